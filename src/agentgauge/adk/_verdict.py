"""ADK's pytest verdict: per-metric means over runs and invocations, failure lines, detail tables and CSV rows."""

from __future__ import annotations

import csv
import io
import os
import statistics
import sys
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from ..model import EvalCaseResult, EvalMetricResult, EvalSetResult, EvalStatus, Invocation

__all__ = ["CSV_COLUMNS", "MetricVerdict", "append_csv", "failure_lines", "metric_verdicts", "print_details"]

CSV_COLUMNS = (
    "eval_set_id",
    "eval_id",
    "metric_name",
    "threshold",
    "score",
    "eval_status",
    "prompt",
    "expected_response",
    "actual_response",
    "expected_tool_calls",
    "actual_tool_calls",
)


@dataclass(frozen=True)
class InvocationScore:
    """One per-invocation metric result of one run, with the invocations it compared."""

    eval_set_id: str
    eval_id: str
    result: EvalMetricResult
    expected: Invocation | None
    actual: Invocation


@dataclass(frozen=True)
class MetricVerdict:
    """A metric of one eval case over all runs: ``overall`` is the mean of every non-None per-invocation score."""

    eval_id: str
    metric_name: str
    threshold: float
    overall: float | None
    status: EvalStatus
    rows: tuple[InvocationScore, ...]


def _by_case(result: EvalSetResult) -> dict[str, list[EvalCaseResult]]:
    grouped: dict[str, list[EvalCaseResult]] = {}
    for case in result.eval_case_results:
        grouped.setdefault(case.eval_id, []).append(case)
    return grouped


def _lower_is_better(rows: Iterable[InvocationScore]) -> bool:
    # ADK infers the direction from the statuses the evaluator gave; a pass below the threshold means lower wins.
    for row in rows:
        score, status, threshold = row.result.score, row.result.eval_status, row.result.threshold
        if score is None or score == threshold:
            continue
        return (status is EvalStatus.PASSED) == (score < threshold)
    return False


def _verdict(eval_id: str, name: str, rows: list[InvocationScore]) -> MetricVerdict | None:
    if all(r.result.eval_status is EvalStatus.INFORMATIONAL for r in rows):
        return None
    threshold = rows[0].result.threshold
    scores = [r.result.score for r in rows if r.result.score is not None]
    if not scores:
        return MetricVerdict(eval_id, name, threshold, None, EvalStatus.NOT_EVALUATED, tuple(rows))
    overall = statistics.mean(scores)
    ok = overall <= threshold if _lower_is_better(rows) else overall >= threshold
    return MetricVerdict(eval_id, name, threshold, overall, EvalStatus.PASSED if ok else EvalStatus.FAILED, tuple(rows))


def metric_verdicts(runs: list[EvalCaseResult]) -> list[MetricVerdict]:
    """Per-metric verdicts of one eval case over its runs (metrics in first-seen order; informational skipped)."""
    per_metric: dict[str, list[InvocationScore]] = {}
    for run in runs:
        for per_inv in run.eval_metric_result_per_invocation:
            for metric in per_inv.eval_metric_results:
                row = InvocationScore(
                    run.eval_set_id, run.eval_id, metric, per_inv.expected_invocation, per_inv.actual_invocation
                )
                per_metric.setdefault(metric.metric_name, []).append(row)
    verdicts = (_verdict(runs[0].eval_id, name, rows) for name, rows in per_metric.items())
    return [v for v in verdicts if v is not None]


def failure_lines(result: EvalSetResult, agent_label: str) -> tuple[list[str], list[MetricVerdict]]:
    """ADK's failure lines for every eval case of ``result``, plus all metric verdicts (for details and CSV)."""
    failures: list[str] = []
    verdicts: list[MetricVerdict] = []
    for eval_id, runs in _by_case(result).items():
        empty = [
            r for r in runs if r.final_eval_status is not EvalStatus.PASSED and not r.eval_metric_result_per_invocation
        ]
        if empty:
            failures.append(
                f"{eval_id} for {agent_label} Failed. {len(empty)} of {len(runs)} runs were recorded as failed "
                "without producing any metric results."
            )
        # A run failed by the case itself while its metrics passed (a recording missing a turn): the metric lines
        # below would not show it, so it is named with its reason.
        unscored = [
            r
            for r in runs
            if r.final_eval_status is EvalStatus.FAILED
            and r.eval_metric_result_per_invocation
            and not any(m.eval_status is EvalStatus.FAILED for m in r.overall_eval_metric_results)
        ]
        if unscored:
            failures.append(
                f"{eval_id} for {agent_label} Failed. {len(unscored)} of {len(runs)} runs failed: "
                f"{unscored[0].error_message or 'no reason recorded'}"
            )
        for verdict in metric_verdicts(runs):
            verdicts.append(verdict)
            if verdict.status is EvalStatus.NOT_EVALUATED:
                failures.append(
                    f"{verdict.metric_name} for {agent_label} was not evaluated. No score was produced, so the "
                    f"threshold of {verdict.threshold} was never checked and this is not a score regression. "
                    "See the logs for why the metric could not run."
                )
            elif verdict.status is EvalStatus.FAILED:
                failures.append(
                    f"{verdict.metric_name} for {agent_label} Failed. "
                    f"Expected {verdict.threshold}, but got {verdict.overall}."
                )
    return failures, verdicts


def _text(invocation: Invocation | None, which: str) -> str:
    if invocation is None:
        return ""
    if which == "prompt":
        return invocation.user_content.content
    return invocation.final_response.content if invocation.final_response else ""


def _calls(invocation: Invocation | None) -> str:
    from ..reporting import format_tool_call

    return "\n".join(format_tool_call(t) for t in invocation.tools) if invocation else ""


def _row_cells(verdict: MetricVerdict, row: InvocationScore) -> list[str]:
    prompt_source = row.expected if row.expected is not None else row.actual
    return [
        f"EvalStatus.{row.result.eval_status.name}",
        "" if row.result.score is None else str(row.result.score),
        str(verdict.threshold),
        _text(prompt_source, "prompt"),
        _text(row.expected, "response"),
        _text(row.actual, "response"),
        _calls(row.expected),
        _calls(row.actual),
    ]


def print_details(verdicts: Iterable[MetricVerdict]) -> None:
    """Print, per metric, ADK's summary line and a grid table of every invocation (to stdout, so pytest captures
    it with the test)."""
    from rich import box
    from rich.console import Console
    from rich.table import Table

    from ..reporting._escape import escape_controls

    console = escape_controls(Console(file=sys.stdout, width=200, soft_wrap=False))  # user text: controls escaped
    headers = ("eval_status", "score", "threshold", "prompt", "expected_response", "actual_response",
               "expected_tool_calls", "actual_tool_calls")  # fmt: skip
    for verdict in verdicts:
        console.print(
            f"Summary: `EvalStatus.{verdict.status.name}` for Metric: `{verdict.metric_name}`. "
            f"Expected threshold: `{verdict.threshold}`, actual value: `{verdict.overall}`.",
            markup=False,
            highlight=False,
        )
        table = Table(box=box.ASCII_DOUBLE_HEAD, show_lines=True)
        for header in headers:
            table.add_column(header, max_width=25, overflow="fold")
        for row in verdict.rows:
            table.add_row(*_row_cells(verdict, row))
        console.print(table, markup=False)


def append_csv(path: str | os.PathLike[str], verdicts: Iterable[MetricVerdict]) -> None:
    """Append one row per run, invocation and metric to the CSV file at ``path`` (header written when the file is
    new), replacing the file atomically."""
    from .._util.fileio import atomic_write
    from ..storage._lock import file_lock

    target = Path(path)
    # Concurrent writers (pytest-xdist workers) append to one file: read-modify-write under its lock.
    with file_lock(target):
        existing = target.read_text(encoding="utf-8") if target.is_file() else ""
        atomic_write(target, _with_rows(existing, verdicts).encode("utf-8"))


def _with_rows(existing: str, verdicts: Iterable[MetricVerdict]) -> str:
    """``existing`` CSV text (possibly empty) followed by the rows of ``verdicts`` (and the header when new)."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    if not existing.strip():
        existing = ""
        writer.writerow(CSV_COLUMNS)
    for verdict in verdicts:
        for row in verdict.rows:
            cells = _row_cells(verdict, row)
            writer.writerow(
                [
                    row.eval_set_id,
                    row.eval_id,
                    verdict.metric_name,
                    verdict.threshold,
                    cells[1],
                    row.result.eval_status.name,
                    *cells[3:],
                ]
            )
    if existing and not existing.endswith("\n"):
        existing += "\n"
    return existing + buffer.getvalue()
