"""A gate of several rules, from a rules file (``agentgauge gate BASE NEW --rules gate.yaml``, ``agentgauge
optimize --rules``): each rule is one more :class:`~agentgauge.compare.GateRule` judged by
:func:`~agentgauge.compare.judge_gate`, and a candidate is accepted when no rule fails.

The rules file (YAML or JSON; every key optional)::

    metric: pass_rate        # the gain min_gain reads: the pass rate of case runs, or a metric's mean score
    min_gain: 0.0            # the 95% paired-bootstrap interval of the gain must lie above 0, its low end >= this
    no_new_failures: true    # no case that passed in BASE fails in NEW (several runs: a significant drop, Fisher)
    critical_cases: [refund_policy]   # these cases must pass in NEW
    case_budgets:            # every case of NEW, mean over its runs
      cost: 0.02             # in the price table's currency
      tokens: 4000
      latency: 8.0           # seconds of a run's turns
    overfit: reject          # train improved and validation did not: reject, warn or off
    alpha: 0.05              # the level of the tests (the command's --alpha wins)
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from ..errors import InputError
from ..model import EvalSetResult, EvalStatus, GaugeModel
from ..model._base import empty_list
from ._gate import GateRule, fail_on_rule, judge_gate
from ._intervals import PASS_RATE
from ._model import Comparison, EstimateDelta

__all__ = [
    "PASS_RATE_METRIC",
    "CaseBudgets",
    "GateReport",
    "GateRules",
    "RuleVerdict",
    "gate_report",
    "load_gate_rules",
    "rules_alpha",
]

PASS_RATE_METRIC = "pass_rate"
"""The ``metric`` of the rules file that means the pass rate of case runs."""


class CaseBudgets(BaseModel):
    """Per-case limits on NEW: mean cost, tokens and latency (seconds) of a case's runs (``None``: no limit)."""

    model_config = ConfigDict(extra="forbid")

    cost: float | None = Field(default=None, ge=0)
    tokens: int | None = Field(default=None, ge=0)
    latency: float | None = Field(default=None, ge=0)


class GateRules(BaseModel):
    """A rules file (see the module's description)."""

    model_config = ConfigDict(extra="forbid")

    metric: str = PASS_RATE_METRIC
    min_gain: float = 0.0
    no_new_failures: bool = True
    critical_cases: list[str] = Field(default_factory=list)
    case_budgets: CaseBudgets = Field(default_factory=CaseBudgets)
    overfit: Literal["reject", "warn", "off"] = "reject"
    alpha: float | None = Field(default=None, gt=0, lt=1)


MAX_RULES_BYTES = 256 * 1024
"""The largest rules file read (a rules file is a few lines)."""


def _yaml(text: str) -> object:
    """The YAML document of ``text``, anchors and aliases refused (an alias bomb of a few lines expands to
    gigabytes)."""
    import yaml

    class NoAliases(yaml.SafeLoader):
        def compose_node(self, parent: Any, index: Any) -> Any:
            if self.check_event(yaml.events.AliasEvent):
                mark = self.peek_event().start_mark  # type: ignore[no-untyped-call]
                raise yaml.composer.ComposerError(None, None, "aliases are not allowed in a rules file", mark)
            return super().compose_node(parent, index)

    return yaml.load(text, Loader=NoAliases)


def load_gate_rules(path: Path) -> GateRules:
    """Read a rules file (YAML, or JSON as YAML's subset; at most :data:`MAX_RULES_BYTES`); problems raise
    :class:`InputError` naming the file and the key."""
    import yaml

    from ..formats import model_from_document, read_limited

    source = str(path)
    data = read_limited(source, MAX_RULES_BYTES, what="the rules file")  # a FIFO or a missing file: named
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(f"cannot read the rules file: {exc}", file=source) from None
    try:
        document = _yaml(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"line {mark.line + 1} column {mark.column + 1}" if mark is not None else None
        raise InputError(f"invalid YAML: {getattr(exc, 'problem', None) or exc}", file=source, location=where) from None
    return model_from_document({} if document is None else document, GateRules, source, camel=False)


class RuleVerdict(GaugeModel):
    """One rule's verdict: ``pass``, ``fail``, ``warn`` (a failed rule that only warns) or ``skip`` (nothing to
    judge it on), the rule in plain words and what failed it."""

    name: str
    status: Literal["pass", "fail", "warn", "skip"]
    rule: str
    findings: list[str] = Field(default_factory=empty_list)


class GateReport(GaugeModel):
    """Every rule's verdict on a candidate (NEW) against its baseline (BASE); accepted when none failed."""

    accepted: bool
    alpha: float
    verdicts: list[RuleVerdict] = Field(default_factory=empty_list)
    gain: EstimateDelta | None = None
    """The gain ``min_gain`` read (validation: the comparison of BASE and NEW)."""

    def lines(self) -> list[str]:
        """``Gate: ACCEPTED`` / ``REJECTED`` then one line per rule and its findings (what every surface prints)."""
        out = [f"Gate: {'ACCEPTED' if self.accepted else 'REJECTED'} (alpha {self.alpha:g})"]
        for verdict in self.verdicts:
            out.append(f"  {verdict.status.upper():4}  {verdict.name}: {verdict.rule}")
            out += [f"        {finding}" for finding in verdict.findings]
        return out


def _estimate(comparison: Comparison, metric: str) -> EstimateDelta | None:
    wanted = PASS_RATE if metric == PASS_RATE_METRIC else metric
    return next((e for e in comparison.estimates if e.name == wanted), None)


def _gain_text(e: EstimateDelta) -> str:
    low, high = (f"{v:+.3f}" if v is not None else "?" for v in (e.low, e.high))
    return f"{e.name} {e.base:.3f} -> {e.new:.3f} (gain {e.delta:+.3f}, 95% interval {low} to {high}, {e.cases} cases)"


class _MinGain:
    name = "min_gain"

    def __init__(self, metric: str, min_gain: float) -> None:
        self.metric, self.min_gain = metric, min_gain

    def describe(self, alpha: float) -> str:
        what = "the pass rate of case runs" if self.metric == PASS_RATE_METRIC else f"the mean of {self.metric}"
        floor = f" and its low end is at least {self.min_gain:g}" if self.min_gain > 0 else ""
        return f"the 95% paired-bootstrap interval of the gain in {what} lies above 0{floor}"

    def findings(self, comparison: Comparison) -> list[str]:
        found = _estimate(comparison, self.metric)
        if found is None or found.delta is None or found.base is None or found.new is None:
            return [f"{self.metric}: not measured on both sides"]
        if found.low is None:
            return [f"{_gain_text(found)}: no interval (fewer than 2 cases on both sides)"]
        if found.low <= 0:
            return [f"{_gain_text(found)}: the low end {found.low:+.3f} is not above 0 (the gain may be chance)"]
        if found.low < self.min_gain:
            return [f"{_gain_text(found)}: the low end {found.low:+.3f} is below min_gain {self.min_gain:g}"]
        return []


class _NoNewFailures:
    name = "no_new_failures"

    def describe(self, alpha: float) -> str:
        return fail_on_rule("broken").describe(alpha).replace("fails when a case broke", "no case broke")

    def findings(self, comparison: Comparison) -> list[str]:
        return fail_on_rule("broken").findings(comparison)


class _CriticalCases:
    name = "critical_cases"

    def __init__(self, cases: list[str]) -> None:
        self.cases = cases

    def describe(self, alpha: float) -> str:
        return f"these cases pass in the candidate: {', '.join(self.cases)}"

    def findings(self, comparison: Comparison) -> list[str]:
        by_id = {c.eval_id: c for c in comparison.cases}
        found = []
        for eval_id in self.cases:
            case = by_id.get(eval_id)
            if case is None or case.new_status is None:
                found.append(f"{eval_id}: not run in the candidate")
            elif case.new_status is not EvalStatus.PASSED:
                found.append(f"{eval_id}: {case.new_status.value} ({case.new_passed_runs}/{case.new_runs} runs passed)")
        return found


class _CaseBudgets:
    name = "case_budgets"

    def __init__(self, budgets: CaseBudgets, new: EvalSetResult) -> None:
        self.budgets = budgets
        self.means = _case_means(new)

    def describe(self, alpha: float) -> str:
        limits = [
            f"{label} <= {value:g}"
            for label, value in (
                ("cost", self.budgets.cost),
                ("tokens", self.budgets.tokens),
                ("latency (s)", self.budgets.latency),
            )
            if value is not None
        ]
        return f"every case of the candidate, mean over its runs: {', '.join(limits)}"

    def findings(self, comparison: Comparison) -> list[str]:
        found = []
        for eval_id, means in self.means.items():
            for key, label in (("cost", "cost"), ("tokens", "tokens"), ("latency", "latency (s)")):
                limit, value = getattr(self.budgets, key), means.get(key)
                if limit is not None and value is not None and value > limit:
                    found.append(f"{eval_id}: mean {label} {value:.6g} > {limit:g}")
        return found


def _case_means(result: EvalSetResult) -> dict[str, dict[str, float]]:
    """Per case: mean cost, tokens and latency of its runs (a figure no run recorded is left out)."""
    from ..summary import case_usage

    totals: dict[str, dict[str, list[float]]] = {}
    for run in result.eval_case_results:
        usage = case_usage(run)
        figures = totals.setdefault(run.eval_id, {"cost": [], "tokens": [], "latency": []})
        for key, value in (("cost", usage.cost), ("tokens", usage.total_tokens), ("latency", usage.duration)):
            if value is not None:
                figures[key].append(float(value))
    return {eid: {k: sum(v) / len(v) for k, v in figures.items() if v} for eid, figures in totals.items()}


class _Overfit:
    name = "overfit"

    def __init__(self, train: Comparison, metric: str) -> None:
        self.train, self.metric = train, metric

    def describe(self, alpha: float) -> str:
        return "not overfit: when the gain on train is positive, the gain on validation is positive too"

    def findings(self, comparison: Comparison) -> list[str]:
        train, validation = _estimate(self.train, self.metric), _estimate(comparison, self.metric)
        if train is None or validation is None or train.delta is None or validation.delta is None:
            return []
        if train.delta > 0 and validation.delta <= 0:
            return [f"train: {_gain_text(train)}", f"validation: {_gain_text(validation)}"]
        return []


def gate_report(
    validation: Comparison, rules: GateRules, new: EvalSetResult, *, train: Comparison | None = None
) -> GateReport:
    """Judge a candidate: ``validation`` compares the baseline with it (``new`` is its result), ``train`` (optional)
    the same on the train split, for the overfit rule; every test at the comparisons' alpha (see
    :func:`rules_alpha`)."""
    chosen: list[GateRule] = [_MinGain(rules.metric, rules.min_gain)]
    if rules.no_new_failures:
        chosen.append(_NoNewFailures())
    if rules.critical_cases:
        chosen.append(_CriticalCases(rules.critical_cases))
    if any(v is not None for v in (rules.case_budgets.cost, rules.case_budgets.tokens, rules.case_budgets.latency)):
        chosen.append(_CaseBudgets(rules.case_budgets, new))
    verdicts = [_verdict(validation, rule) for rule in chosen]
    verdicts.append(_overfit_verdict(validation, train, rules))
    accepted = all(v.status != "fail" for v in verdicts)
    return GateReport(
        accepted=accepted, alpha=validation.alpha, verdicts=verdicts, gain=_estimate(validation, rules.metric)
    )


def rules_alpha(rules: GateRules, given: float | None) -> float:
    """The level of a gate's tests: ``given`` (a command's ``--alpha``), else the rules file's, else 0.05."""
    from ._significance import ALPHA

    return given if given is not None else rules.alpha if rules.alpha is not None else ALPHA


def _verdict(comparison: Comparison, rule: GateRule) -> RuleVerdict:
    verdict = judge_gate(comparison, rule)
    status: Literal["pass", "fail"] = "fail" if verdict.failed else "pass"
    return RuleVerdict(name=verdict.fail_on, status=status, rule=verdict.rule, findings=verdict.findings)


def _overfit_verdict(validation: Comparison, train: Comparison | None, rules: GateRules) -> RuleVerdict:
    rule = _Overfit(train or validation, rules.metric)
    if rules.overfit == "off" or train is None:
        why = "off in the rules" if rules.overfit == "off" else "no train results to compare"
        return RuleVerdict(name=rule.name, status="skip", rule=rule.describe(validation.alpha), findings=[why])
    verdict = _verdict(validation, rule)
    if verdict.status == "fail" and rules.overfit == "warn":
        verdict.status = "warn"
    return verdict
