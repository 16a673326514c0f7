"""The gate of a comparison: the noise rule that tells a broken case from a flip within noise, and the rules
(``--fail-on``) that decide whether a comparison fails. ``compare``, ``eval --baseline`` and the web UI's comparison
all decide here; a rule read from elsewhere (a rule file) is one more :class:`GateRule`.

The rules, strictest last (``alpha`` is the comparison's significance level, 0.05 by default):

- ``never``: never fails.
- ``broken`` (the default): fails when a case is ``broken``: passed in base, not passed in new; when both sides ran
  it at least twice, only if its pass rate dropped significantly (Fisher's exact test, p < alpha). A status flip
  that the test cannot tell from chance is ``within_noise`` and does not fail. One run on either side: every
  passed-to-not-passed flip is broken (a single run cannot be tested).
- ``significant``: fails on a significant drop of the pass rate only: a case's runs (Fisher's exact test, both
  sides at least two runs, whatever its status) or the set's status changes (exact McNemar test, more cases
  stopped passing than started). A single-run flip alone does not fail it.
- ``any-change``: fails when any case changed: broken, fixed, within noise, its runs passed moved, new or removed.

Cases one side did not run (``not_run``) never fail any rule. Metric means (and their intervals) never gate: a
metric that matters has a threshold, and its failures move the case statuses and pass rates the rules read.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Protocol

from ..errors import InputError
from ._model import CaseChange, ChangeKind, Comparison, GateVerdict

__all__ = [
    "DEFAULT_FAIL_ON",
    "FailOn",
    "GateRule",
    "check_alpha",
    "fail_on_rule",
    "judge_gate",
    "settle_flip",
]


class FailOn(StrEnum):
    """The built-in rules of ``--fail-on`` (see the module's description)."""

    BROKEN = "broken"
    SIGNIFICANT = "significant"
    ANY_CHANGE = "any-change"
    NEVER = "never"


DEFAULT_FAIL_ON = FailOn.BROKEN
"""The rule ``compare`` judges by unless ``--fail-on`` says otherwise."""


class GateRule(Protocol):
    """A rule a comparison is judged by: its name, its statement in plain words and what in a comparison fails it."""

    @property
    def name(self) -> str:
        """How the rule is named (``--fail-on NAME``)."""
        ...

    def describe(self, alpha: float) -> str:
        """The rule in plain words, at significance level ``alpha``."""
        ...

    def findings(self, comparison: Comparison) -> list[str]:
        """What fails the comparison, one line each (empty: it passes)."""
        ...


def _moved(case: CaseChange) -> int:
    """The sign of the pass rate's change from base to new (-1 down, 0 the same, 1 up)."""
    before, after = case.base_passed_runs * case.new_runs, case.new_passed_runs * case.base_runs
    return (after > before) - (after < before)


def settle_flip(case: CaseChange) -> ChangeKind:
    """The change a status flip counts as: ``broken`` / ``fixed`` stay so with one run on either side (no test) or
    when the pass rate moved significantly in the flip's direction; otherwise the flip is ``within_noise``."""
    flip = {ChangeKind.BROKEN: -1, ChangeKind.FIXED: 1}.get(case.change)
    if flip is None or case.significance is None:
        return case.change
    return case.change if case.significance.significant and _moved(case) == flip else ChangeKind.WITHIN_NOISE


def _runs(case: CaseChange) -> str:
    return f"{case.base_passed_runs}/{case.base_runs} -> {case.new_passed_runs}/{case.new_runs} runs passed"


def _status(case: CaseChange) -> str:
    base, new = case.base_status, case.new_status
    return f"{base.value if base else '-'} -> {new.value if new else '-'}"


def _fisher(case: CaseChange) -> str:
    return "" if case.significance is None else f" (Fisher's exact test p = {case.significance.p_value:.3g})"


def _significant_drop(case: CaseChange) -> bool:
    return case.significance is not None and case.significance.significant and _moved(case) < 0


class _Never:
    name = FailOn.NEVER.value

    def describe(self, alpha: float) -> str:
        return "never fails: the comparison is reported only"

    def findings(self, comparison: Comparison) -> list[str]:
        return []


class _Broken:
    name = FailOn.BROKEN.value

    def describe(self, alpha: float) -> str:
        return (
            "fails when a case broke: passed in base, not in new; with several runs on both sides only when its "
            f"pass rate dropped significantly (Fisher's exact test, p < {alpha:g})"
        )

    def findings(self, comparison: Comparison) -> list[str]:
        return [
            f"{case.eval_id}: {_status(case)}" + (f", {_runs(case)}{_fisher(case)}" if case.significance else "")
            for case in comparison.cases
            if case.change is ChangeKind.BROKEN
        ]


class _Significant:
    name = FailOn.SIGNIFICANT.value

    def describe(self, alpha: float) -> str:
        return (
            f"fails when the pass rate dropped significantly (p < {alpha:g}): a case's runs (Fisher's exact test, "
            "several runs on both sides) or the cases' status changes (exact McNemar test); a single-run flip alone "
            "does not"
        )

    def findings(self, comparison: Comparison) -> list[str]:
        found = [f"{c.eval_id}: {_runs(c)}{_fisher(c)}" for c in comparison.cases if _significant_drop(c)]
        test = comparison.significance
        up, down = comparison.status_flips()
        if test is not None and test.significant and down > up:
            found.append(
                f"cases: {down} stopped passing against {up} started (exact McNemar test p = {test.p_value:.3g})"
            )
        return found


_CHANGED = {ChangeKind.BROKEN, ChangeKind.FIXED, ChangeKind.WITHIN_NOISE, ChangeKind.NEW, ChangeKind.REMOVED}


class _AnyChange:
    name = FailOn.ANY_CHANGE.value

    def describe(self, alpha: float) -> str:
        return (
            "fails when any case changed: broken, fixed, within noise, its runs passed moved, new or removed "
            "(cases not run never count)"
        )

    def findings(self, comparison: Comparison) -> list[str]:
        found = []
        for case in comparison.cases:
            kind = case.change.value.replace("_", " ")
            if case.change in _CHANGED:
                found.append(f"{case.eval_id}: {kind}" + (f", {_status(case)}" if case.base_status else ""))
            elif case.change is not ChangeKind.NOT_RUN and _moved(case):
                found.append(f"{case.eval_id}: {kind}, {_runs(case)}")
        return found


_RULES: dict[str, GateRule] = {rule.name: rule for rule in (_Broken(), _Significant(), _AnyChange(), _Never())}


def fail_on_rule(name: str | FailOn, *, given_as: str = "--fail-on") -> GateRule:
    """The built-in rule called ``name``; :class:`InputError` (naming ``given_as``, the option or field it came
    from) lists the choices for another."""
    rule = _RULES.get(str(name))
    if rule is None:
        raise InputError(f"{given_as}: unknown rule {str(name)!r}; choose {', '.join(_RULES)}")
    return rule


def check_alpha(alpha: float, *, given_as: str = "--alpha") -> float:
    """``alpha`` when it is a significance level (strictly between 0 and 1); :class:`InputError` (naming
    ``given_as``) otherwise."""
    if not 0 < alpha < 1:  # written so that nan is refused too
        raise InputError(f"{given_as} must be between 0 and 1 (exclusive), got {alpha:g}")
    return alpha


def judge_gate(comparison: Comparison, rule: GateRule | FailOn | str = DEFAULT_FAIL_ON) -> GateVerdict:
    """The verdict of ``rule`` on ``comparison`` (at the comparison's alpha): failed when it has a finding."""
    judge = rule if not isinstance(rule, str) else fail_on_rule(rule)
    findings = judge.findings(comparison)
    return GateVerdict(
        fail_on=judge.name,
        alpha=comparison.alpha,
        rule=judge.describe(comparison.alpha),
        failed=bool(findings),
        findings=findings,
        within_noise=[c.eval_id for c in comparison.cases if c.change is ChangeKind.WITHIN_NOISE],
    )
