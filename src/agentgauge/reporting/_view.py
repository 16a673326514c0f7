"""Report-independent views of an EvalSetResult: case outcomes, metric means, pass@k and mismatch blocks.

Every output format (terminal, JUnit, Markdown, HTML) is built from these views so they agree on the numbers.
"""

from __future__ import annotations

import json
import statistics
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from ..model import (
    EvalCaseResult,
    EvalMetricResult,
    EvalSetResult,
    EvalStatus,
    Invocation,
    Message,
    Tool,
    status_for_score,
    summarize_statuses,
)
from ..stats import pass_at_k, pass_hat_k

__all__ = [
    "CaseOutcome",
    "MetricRow",
    "Mismatch",
    "PassK",
    "ResultView",
    "build_view",
    "case_failure_text",
    "case_label",
    "case_mismatches",
    "format_score",
    "format_tool_call",
    "group_mismatches",
    "message_text",
    "mismatch_text",
]


def format_score(score: float | None) -> str:
    """A score with up to four significant decimals, or ``-`` when there is none."""
    if score is None:
        return "-"
    text = f"{score:.4f}".rstrip("0").rstrip(".")
    return text or "0"


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, default=str)


def format_tool_call(tool: Tool) -> str:
    """``name({"a": 1})``: a tool call with its arguments as compact JSON (key order kept); ``name()`` for a call
    recorded without arguments (``None``), which is not the same call as ``name({})``."""
    args = tool.arguments
    return f"{tool.name}({_json(args) if args is not None else ''})"


def message_text(message: Message | None) -> str | None:
    """The text of a message, or ``None`` when there is no message."""
    return None if message is None else message.content


def case_label(case: EvalCaseResult, multi_run: bool) -> str:
    """The case id, suffixed with ``[run N]`` when a result holds several runs."""
    return f"{case.eval_id} [run {case.run_id}]" if multi_run else case.eval_id


@dataclass(frozen=True)
class Mismatch:
    """One failed metric with what was expected and what the agent did.

    ``invocation_index`` is ``None`` for a case-level (overall) failure without per-invocation detail.
    """

    metric_name: str
    score: float | None
    threshold: float
    reason: str
    invocation_index: int | None
    expected: Invocation | None
    actual: Invocation | None
    rubric_reasons: tuple[str, ...] = ()

    @property
    def headline(self) -> str:
        """One line: metric, score vs threshold, and which invocation."""
        where = "" if self.invocation_index is None else f" (invocation {self.invocation_index + 1})"
        return f"{self.metric_name}{where}: score {format_score(self.score)} < threshold {format_score(self.threshold)}"


def _reason(result: EvalMetricResult) -> str:
    return (result.details.reason or "") if result.details else ""


def _rubric_reasons(result: EvalMetricResult) -> tuple[str, ...]:
    if not result.details:
        return ()
    return tuple(
        f"{r.id or '?'} scored {format_score(r.score)}" + (f": {r.reason}" if r.reason else "")
        for r in result.details.rubric_scores
    )


def case_mismatches(case: EvalCaseResult) -> list[Mismatch]:
    """Every failed metric of a case: per invocation where available, else the overall metric result."""
    found: list[Mismatch] = []
    covered: set[str] = set()
    for index, per_inv in enumerate(case.eval_metric_result_per_invocation):
        for metric in per_inv.eval_metric_results:
            if metric.eval_status is not EvalStatus.FAILED:
                continue
            covered.add(metric.metric_name)
            found.append(
                Mismatch(
                    metric_name=metric.metric_name,
                    score=metric.score,
                    threshold=metric.threshold,
                    reason=_reason(metric),
                    invocation_index=index,
                    expected=per_inv.expected_invocation,
                    actual=per_inv.actual_invocation,
                    rubric_reasons=_rubric_reasons(metric),
                )
            )
    for metric in case.overall_eval_metric_results:
        if metric.eval_status is EvalStatus.FAILED and metric.metric_name not in covered:
            found.append(
                Mismatch(
                    metric_name=metric.metric_name,
                    score=metric.score,
                    threshold=metric.threshold,
                    reason=_reason(metric),
                    invocation_index=None,
                    expected=None,
                    actual=None,
                    rubric_reasons=_rubric_reasons(metric),
                )
            )
    return found


def _invocation_lines(invocation: Invocation | None, indent: str) -> list[str]:
    if invocation is None:
        return [f"{indent}(no invocation)"]
    calls = [format_tool_call(t) for t in invocation.tools]
    response = message_text(invocation.final_response)
    return [
        f"{indent}tool calls: {', '.join(calls) if calls else '(none)'}",
        f"{indent}final response: {_json(response) if response is not None else '(none)'}",
    ]


def group_mismatches(mismatches: list[Mismatch]) -> list[list[Mismatch]]:
    """Mismatches grouped by invocation (case-level ones last), so each Expected / Actual block is shown once."""
    groups: dict[int | None, list[Mismatch]] = {}
    for mismatch in mismatches:
        groups.setdefault(mismatch.invocation_index, []).append(mismatch)
    return [groups[k] for k in sorted(groups, key=lambda i: (i is None, i or 0))]


def mismatch_text(mismatches: Mismatch | list[Mismatch]) -> str:
    """The plain-text block of the failed metrics of one invocation: one headline per metric, the Expected /
    Actual tool calls and final responses, then each metric's reason (used by every report and by pytest)."""
    group = [mismatches] if isinstance(mismatches, Mismatch) else mismatches
    if not group:
        return ""
    first = group[0]
    lines = [m.headline for m in group]
    if first.invocation_index is not None:
        user = message_text(first.actual.user_content) if first.actual else None
        if user is not None:
            lines.append(f"  User: {_json(user)}")
        lines.append("  Expected:")
        lines.extend(_invocation_lines(first.expected, "    "))
        lines.append("  Actual:")
        lines.extend(_invocation_lines(first.actual, "    "))
    for m in group:
        if m.reason:
            lines.append(f"  {m.metric_name}: {m.reason}")
        lines.extend(f"    rubric {r}" for r in m.rubric_reasons)
    return "\n".join(lines)


def case_failure_text(case: EvalCaseResult) -> str:
    """Everything that went wrong in one case result: its error message and one block per failing invocation."""
    parts = [f"error: {case.error_message}"] if case.error_message else []
    parts += [mismatch_text(group) for group in group_mismatches(case_mismatches(case))]
    return "\n\n".join(parts)


@dataclass
class MetricRow:
    """A metric over the whole result: mean score of evaluated results against its threshold, plus counts."""

    metric_name: str
    threshold: float
    scores: list[float] = field(default_factory=list)
    passed: int = 0
    failed: int = 0
    not_evaluated: int = 0
    informational: int = 0

    @property
    def mean(self) -> float | None:
        """Mean score over the results that produced one."""
        return statistics.fmean(self.scores) if self.scores else None

    @property
    def status(self) -> EvalStatus:
        """``informational`` if the metric never gates, else the mean compared with the threshold."""
        if self.informational and not (self.passed or self.failed):
            return EvalStatus.INFORMATIONAL
        return status_for_score(self.mean, self.threshold)


@dataclass(frozen=True)
class CaseOutcome:
    """One eval case across its runs."""

    eval_id: str
    status: EvalStatus
    runs: int
    runs_passed: int
    errors: tuple[str, ...]


@dataclass(frozen=True)
class PassK:
    """Mean pass@k and pass^k over cases for one k."""

    k: int
    pass_at_k: float
    pass_hat_k: float


@dataclass(frozen=True)
class ResultView:
    """Everything the reports show about one EvalSetResult."""

    result: EvalSetResult
    num_runs: int
    cases: list[CaseOutcome]
    metrics: list[MetricRow]
    pass_k: list[PassK]

    @property
    def multi_run(self) -> bool:
        """True when the result holds several runs of each case."""
        return self.num_runs > 1

    def count(self, status: EvalStatus) -> int:
        """How many cases ended with ``status``."""
        return sum(1 for c in self.cases if c.status is status)

    @property
    def errored(self) -> int:
        """How many cases had an inference/evaluation error in at least one run."""
        return sum(1 for c in self.cases if c.errors)

    @property
    def overall_status(self) -> EvalStatus:
        """Passed only when every case passed (not evaluated or failed cases fail the set)."""
        if not self.cases:
            return EvalStatus.NOT_EVALUATED
        if all(c.status is EvalStatus.PASSED for c in self.cases):
            return EvalStatus.PASSED
        if any(c.status is EvalStatus.FAILED for c in self.cases):
            return EvalStatus.FAILED
        return EvalStatus.NOT_EVALUATED


def _metric_rows(results: Iterable[EvalCaseResult]) -> list[MetricRow]:
    rows: dict[str, MetricRow] = {}
    for case in results:
        for metric in case.overall_eval_metric_results:
            row = rows.get(metric.metric_name)
            if row is None:
                row = rows[metric.metric_name] = MetricRow(metric.metric_name, metric.threshold)
            status = metric.eval_status
            if status is EvalStatus.INFORMATIONAL:
                row.informational += 1
            elif status is EvalStatus.PASSED:
                row.passed += 1
            elif status is EvalStatus.FAILED:
                row.failed += 1
            else:
                row.not_evaluated += 1
            if metric.score is not None and status is not EvalStatus.NOT_EVALUATED:
                row.scores.append(metric.score)
    return list(rows.values())


def _case_outcomes(result: EvalSetResult) -> list[CaseOutcome]:
    by_case: dict[str, list[EvalCaseResult]] = {}
    for case in result.eval_case_results:
        by_case.setdefault(case.eval_id, []).append(case)
    summaries = {s.eval_id: s for s in result.summary.eval_case_summaries} if result.summary else {}
    outcomes = []
    for eval_id, runs in by_case.items():
        errors = tuple(f"run {r.run_id}: {r.error_message}" for r in runs if r.error_message)
        summary = summaries.get(eval_id)
        if summary is not None:
            status = summary.overall_status
        else:
            status = summarize_statuses(r.final_eval_status for r in runs)
            if status is EvalStatus.NOT_EVALUATED and errors:
                status = EvalStatus.FAILED
        passed = sum(1 for r in runs if r.final_eval_status is EvalStatus.PASSED)
        outcomes.append(CaseOutcome(eval_id, status, len(runs), passed, errors))
    return outcomes


def _pass_k(cases: list[CaseOutcome], num_runs: int) -> list[PassK]:
    if num_runs <= 1 or not cases:
        return []
    rows = []
    for k in sorted({1, num_runs}):
        at = [pass_at_k(num_runs, min(c.runs_passed, num_runs), k) for c in cases]
        hat = [pass_hat_k(num_runs, min(c.runs_passed, num_runs), k) for c in cases]
        rows.append(PassK(k, statistics.fmean(at), statistics.fmean(hat)))
    return rows


def build_view(result: EvalSetResult) -> ResultView:
    """Aggregate an EvalSetResult into the numbers every report shows."""
    runs_seen = {c.run_id for c in result.eval_case_results}
    num_runs = result.summary.num_runs if result.summary else max(len(runs_seen), 1)
    cases = _case_outcomes(result)
    return ResultView(
        result=result,
        num_runs=num_runs,
        cases=cases,
        metrics=_metric_rows(result.eval_case_results),
        pass_k=_pass_k(cases, num_runs),
    )
