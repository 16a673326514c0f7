"""Terminal summary and detailed view with rich."""

from __future__ import annotations

from rich.console import Console
from rich.table import Table
from rich.text import Text

from ..model import EvalCaseResult, EvalSetResult, EvalStatus
from ._view import (
    ResultView,
    build_view,
    case_label,
    case_mismatches,
    format_score,
    group_mismatches,
    mismatch_text,
)

__all__ = ["print_case", "print_overview", "print_summary"]

_STYLE = {
    EvalStatus.PASSED: "green",
    EvalStatus.FAILED: "bold red",
    EvalStatus.NOT_EVALUATED: "yellow",
    EvalStatus.INFORMATIONAL: "cyan",
}


def _status(status: EvalStatus, *, short: bool = False) -> Text:
    # The metric table says "info": "informational" would squeeze the numeric columns on 80 columns.
    label = "info" if short and status is EvalStatus.INFORMATIONAL else status.value
    return Text(label, style=_STYLE[status])


def _metric_table(view: ResultView) -> Table:
    table = Table(title="Metrics", title_justify="left", box=None, pad_edge=False, padding=(0, 1))
    # Metric names never wrap; the narrow numeric columns give way first on an 80-column terminal.
    table.add_column("Metric", no_wrap=True)
    for name in ("Mean", "Threshold"):
        table.add_column(name, justify="right", no_wrap=True)
    table.add_column("Status", no_wrap=True)
    for name in ("Passed", "Failed", "Not eval."):
        table.add_column(name, justify="right", no_wrap=True)
    for row in view.metrics:
        info = row.status is EvalStatus.INFORMATIONAL  # reported, never judged: no threshold, no counts
        table.add_row(
            row.metric_name,
            format_score(row.mean),
            "-" if info else format_score(row.threshold),
            _status(row.status, short=True),
            *(("-", "-", "-") if info else (str(row.passed), str(row.failed), str(row.not_evaluated))),
        )
    return table


def print_overview(view: ResultView, console: Console, duration: float | None = None) -> None:
    """Print the overview part of the summary: status, case counts, metric table, pass@k, errors, duration."""
    result = view.result
    header = Text("Eval set ", style="bold")
    header.append(result.eval_set_id, style="bold")
    header.append("  ")
    header.append_text(_status(view.overall_status))
    if result.eval_set_result_id:
        header.append(f"  (result {result.eval_set_result_id})", style="dim")
    console.print(header, soft_wrap=True)  # an id broken across lines could not be copied
    if result.interrupted:
        console.print(Text("  Interrupted: only the cases that finished before the run was stopped are included.",
                           style="bold yellow"))  # fmt: skip
    total = len(view.cases)
    counts = Text("  Cases: ")
    counts.append(f"{view.count(EvalStatus.PASSED)} passed", style="green")
    counts.append(", ")
    counts.append(f"{view.count(EvalStatus.FAILED)} failed", style="red" if view.count(EvalStatus.FAILED) else "")
    counts.append(f", {view.count(EvalStatus.NOT_EVALUATED)} not evaluated, {total} total")
    if view.multi_run:
        counts.append(f", {view.num_runs} runs each")
    console.print(counts)
    if view.metrics:
        console.print(_metric_table(view))
    for row in view.pass_k:
        console.print(
            f"  pass@{row.k}: {format_score(row.pass_at_k)}   pass^{row.k}: {format_score(row.pass_hat_k)}"
            f"   (n={view.num_runs}, mean over {total} cases)"
        )
    errors = [(c.eval_id, e) for c in view.cases for e in c.errors]
    if errors:
        console.print(Text(f"  Errors ({len(errors)}):", style="bold red"))
        for eval_id, error in errors:
            console.print(Text(f"    {eval_id} {error}"), soft_wrap=True)
    if duration is not None:
        console.print(f"  Duration: {duration:.2f} s")


def _mismatch_block(text: str) -> Text:
    block = Text()
    section = ""
    for line in text.splitlines():
        stripped = line.strip()
        if stripped in ("Expected:", "Actual:"):
            section = stripped
        elif not line.startswith("    "):
            section = ""
        if not line.startswith(" "):
            style = "bold red"
        elif stripped in ("Expected:", "Actual:"):
            style = "bold"
        else:
            style = {"Expected:": "green", "Actual:": "red"}.get(section, "")
        block.append(line + "\n", style=style)
    block.rstrip()
    return block


def print_case(case: EvalCaseResult, multi_run: bool, console: Console) -> None:
    """Print one case result in detail: metrics per invocation and an Expected / Actual block per mismatch."""
    title = Text("Case ", style="bold")
    title.append(case_label(case, multi_run), style="bold")
    title.append("  ")
    title.append_text(_status(case.final_eval_status))
    console.print(title)
    if case.error_message:
        console.print(Text(f"  Error: {case.error_message}", style="red"))
    if case.overall_eval_metric_results:
        table = Table(show_edge=False, pad_edge=False, box=None, padding=(0, 2))
        for name in ("Invocation", "Metric", "Score", "Threshold", "Status"):
            table.add_column(name)
        for metric in case.overall_eval_metric_results:
            table.add_row(
                "overall", metric.metric_name, format_score(metric.score), format_score(metric.threshold),
                _status(metric.eval_status),
            )  # fmt: skip
        for index, per_inv in enumerate(case.eval_metric_result_per_invocation):
            for metric in per_inv.eval_metric_results:
                table.add_row(
                    str(index + 1), metric.metric_name, format_score(metric.score), format_score(metric.threshold),
                    _status(metric.eval_status),
                )  # fmt: skip
        console.print(table)
    for group in group_mismatches(case_mismatches(case)):
        console.print(_mismatch_block(mismatch_text(group)), soft_wrap=True)


def print_summary(
    result: EvalSetResult, *, console: Console, detailed: bool = False, duration: float | None = None
) -> None:
    """Print a summary of ``result``: case counts, per-metric mean scores vs thresholds, pass@k when there are
    several runs, errors and duration. With ``detailed``, first print every case and invocation with its metrics
    and an Expected / Actual block for each mismatch."""
    view = build_view(result)
    if detailed:
        for case in result.eval_case_results:
            print_case(case, view.multi_run, console)
            console.print()
    print_overview(view, console, duration)
