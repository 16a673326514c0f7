"""Terminal summary and detailed view with rich."""

from __future__ import annotations

import json

from rich.console import Console
from rich.table import Table
from rich.text import Text

from ..model import EvalCaseResult, EvalMetricResult, EvalSetResult, EvalStatus, UsageTotals
from ..summary._latency import latency_text
from ..summary._reasons import (
    Mismatch,
    case_label,
    case_mismatches,
    format_score,
    format_tool_call,
    group_mismatches,
    message_text,
    mismatch_text,
    one_line,
)
from ..summary._usage import case_usage, usage_text
from ._diff import RESPONSE, TOOLS, Segment, calls_diff, failed_parts, response_strategy, strategy_phrase, word_diff
from ._escape import escaping_console
from ._intervals import estimate_text, view_intervals
from ._links import case_link
from ._transcript import print_transcript
from ._view import ResultView, build_view, view_latency

__all__ = ["print_case", "print_overview", "print_summary"]

_STYLE = {
    EvalStatus.PASSED: "green",
    EvalStatus.FAILED: "bold red",
    EvalStatus.NOT_EVALUATED: "yellow",
    EvalStatus.INFORMATIONAL: "cyan",
    EvalStatus.ERROR: "bold magenta",
}


def _status(status: EvalStatus, *, short: bool = False) -> Text:
    # The metric table says "info": "informational" would squeeze the numeric columns on 80 columns.
    label = "info" if short and status is EvalStatus.INFORMATIONAL else status.value
    return Text(label, style=_STYLE[status])


def _metric_table(view: ResultView) -> Table:
    # The counts are of case runs when the cases ran several times.
    title = f"Metrics (over {view.total_case_runs} case runs)" if view.multi_run else "Metrics"
    table = Table(title=title, title_justify="left", box=None, pad_edge=False, padding=(0, 1))
    # Metric names never wrap; the narrow numeric columns give way first on an 80-column terminal.
    table.add_column("Metric", no_wrap=True)
    for name in ("Mean", "Threshold"):
        table.add_column(name, justify="right", no_wrap=True)
    table.add_column("Status", no_wrap=True)
    scores = view.scores
    errors = any(row.errors for row in scores)  # the column shows only when a metric could not be scored
    for name in ("Passed", "Failed", *(["Error"] if errors else []), "Not eval."):
        table.add_column(name, justify="right", no_wrap=True)
    for row in scores:
        counts = row.counts
        shown = [counts.passed, counts.failed, *([counts.error] if errors else []), counts.not_evaluated]
        table.add_row(
            Text(row.name),  # as it is: a name may hold "[...]" (rich markup) or ":name:" (emoji codes)
            format_score(row.average),
            format_score(row.threshold),
            _status(row.status, short=True),
            *(str(n) for n in shown),
        )
    return table


def _measurement_table(view: ResultView) -> Table:
    """The measurements (no threshold, never a pass or a failure): each one's mean and how many results it has."""
    table = Table(
        title="Measurements (informational)",
        title_justify="left",
        box=None,
        pad_edge=False,
        padding=(0, 1),
    )
    table.add_column("Metric", no_wrap=True)
    table.add_column("Mean", justify="right", no_wrap=True)
    table.add_column("Measured", justify="right", no_wrap=True)
    for row in view.measurements:
        table.add_row(Text(row.name), format_score(row.average), str(len(row.scores)))
    return table


def _counts_text(label: str, counts: dict[EvalStatus, int], total: int) -> Text:
    """``Cases: 3 passed, 3 failed, 0 error, 0 not evaluated, 6 total`` (the same for case runs)."""
    text = Text(f"  {label}: ")
    failed, error = counts[EvalStatus.FAILED], counts[EvalStatus.ERROR]
    text.append(f"{counts[EvalStatus.PASSED]} passed", style="green")
    text.append(", ")
    text.append(f"{failed} failed", style="red" if failed else "")
    text.append(", ")
    text.append(f"{error} error", style="magenta" if error else "")
    text.append(f", {counts[EvalStatus.NOT_EVALUATED]} not evaluated, {total} total")
    return text


@escaping_console
def print_overview(view: ResultView, console: Console, duration: float | None = None) -> None:
    """Print the overview part of the summary: status, case (and case run) counts, metric and measurement tables,
    pass@k, intervals, flaky cases, the cases that did not pass, usage and duration."""
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
    counts = _counts_text("Cases", {status: view.count(status) for status in EvalStatus}, total)
    if view.multi_run:
        counts.append(f", {view.num_runs} runs each")
    console.print(counts)
    not_run = view.not_run_text()
    if not_run is not None:  # cases of the set the run could not run: apart from the counted cases
        console.print(Text(f"  {not_run}", style="yellow"))
    if view.multi_run:
        console.print(Text(f"  Case status rule: {view.rule_text}"))
        runs = view.case_runs
        by_status = {s: getattr(runs, s.value, 0) for s in EvalStatus}
        console.print(_counts_text("Case runs", by_status, view.total_case_runs))
    if view.scores:
        console.print(_metric_table(view))
    if view.measurements:
        console.print(_measurement_table(view))
    for row in view.pass_k:
        console.print(
            Text(
                f"  pass@{row.k}: {format_score(row.pass_at_k)}   pass^{row.k}: {format_score(row.pass_hat_k)}"
                f"   (n={view.num_runs}, mean over {total} cases)"
            )
        )
    _print_intervals(view, console)
    _print_flaky(view, console)
    _print_not_passing(view, console)
    usage = usage_text(view.usage)
    if usage:
        console.print(Text(f"  Summed over invocations: {usage}"), soft_wrap=True)
        latency = view_latency(view)
        if latency is not None and view.usage.duration is not None:
            console.print(Text(f"  Latency per case: {latency_text(latency)}"), soft_wrap=True)
    if duration is not None:
        # Plain text, like the lines above: as a string, rich's number highlighting would compile its patterns for this
        # one line (~3 ms).
        console.print(Text(f"  Duration: {duration:.2f} s"))


def _print_intervals(view: ResultView, console: Console) -> None:
    """The pass rate and each metric mean with its bootstrap interval (see :mod:`._intervals`)."""
    found = view_intervals(view)
    if not found.shown:
        return
    console.print(
        Text(
            f"  {found.settings.level:.0%} intervals (bootstrap over {found.cases} cases, {found.resamples} "
            f"resamples, seed {found.settings.seed}):"
        )
    )
    rows = [("pass rate (runs)", estimate_text(found.pass_rate, found.pass_rate_interval))]
    rows += [(name, estimate_text(mean, interval)) for name, (mean, interval) in found.metrics.items()]
    width = max(len(name) for name, _ in rows)
    console.print(Text("\n".join(f"    {name.ljust(width)}  {text}" for name, text in rows)), soft_wrap=True)


def _print_flaky(view: ResultView, console: Console) -> None:
    """Cases whose runs disagree (some passed, some did not), with how many passed."""
    count = view.flaky_count
    if not count:
        return
    console.print(Text(f"  Flaky ({count}: runs disagree):", style="bold yellow"))
    shown = [f"    {c.eval_id}  {c.status_text}" for c in view.first_flaky(NOT_PASSING_SHOWN)]
    if count > NOT_PASSING_SHOWN:
        shown.append(f"    ... and {count - NOT_PASSING_SHOWN} more")
    console.print(Text("\n".join(shown)), soft_wrap=True)


NOT_PASSING_SHOWN = 200
"""At most this many cases are named in the terminal summary's "Did not pass" list; the rest are counted (a
terminal is no place for 400,000 lines: the result file and the HTML/Markdown reports hold them all)."""


def _print_not_passing(view: ResultView, console: Console) -> None:
    """Each case whose status is not passed, with its first reason (and, with several runs, its status with the
    rule that decided it), up to :data:`NOT_PASSING_SHOWN` of them."""
    count = view.not_passing_count
    if not count:
        return
    console.print(Text(f"  Did not pass ({count}):", style="bold red"))
    lines = []
    for case in view.first_not_passing(NOT_PASSING_SHOWN):
        line = Text("    ")
        line.append(case.eval_id, style="bold")
        if view.multi_run:
            line.append("  ")
            line.append_text(_status(case.status))
            line.append(case.status_text.removeprefix(case.status.value))
        if case.reason:
            where = f"run {case.reason_run}: " if view.multi_run and case.reason_run is not None else ""
            line.append(f"{';' if view.multi_run else ':'} {where}{one_line(case.reason)}")
        link = case_link(view.result, case.eval_id, case.reason_run)
        if link:
            line.append(f"\n      replay: {link}")
        lines.append(line)
    if count > NOT_PASSING_SHOWN:
        lines.append(
            Text(
                f"    ... and {count - NOT_PASSING_SHOWN} more: all are in the saved result "
                "(agentgauge show RESULT --print-detailed-results, or --html / --markdown)"
            )
        )
    # One print for all the lines (the same output as a print per line, which costs ~0.1 ms each).
    console.print(Text("\n").join(lines), soft_wrap=True)


_MARKS = {"=": ("", "", ""), "-": ("[-", "-]", "red strike"), "+": ("{+", "+}", "bold green")}


def _segments(segments: list[Segment], quote: bool) -> Text:
    text = Text('"' if quote else "")
    for op, part in segments:
        start, end, style = _MARKS[op]
        shown = json.dumps(part, ensure_ascii=False)[1:-1] if quote else part
        text.append(f"{start}{shown}{end}", style=style)
    if quote:
        text.append('"')
    return text


def _inline_block(group: list[Mismatch]) -> Text:
    """One failing invocation: the headlines, then the user message, tool calls and final response written once,
    with the words the failed metrics disagree on marked inline (``[-expected-]{+actual+}``), then the reasons."""
    first = group[0]
    block = Text()
    for m in group:
        block.append(m.headline + "\n", style="bold red")
    actual, expected = first.actual, first.expected
    parts = failed_parts((m.metric_name, m.criterion) for m in group)
    if actual is not None:
        block.append(f"  User: {json.dumps(actual.user_content.content, ensure_ascii=False)}\n")
    act_calls = [format_tool_call(t) for t in actual.tools] if actual else []
    if expected is not None and TOOLS in parts:
        calls = calls_diff([format_tool_call(t) for t in expected.tools], act_calls)
    else:
        calls = [[("=", c)] for c in act_calls]
    block.append("  Tool calls: ")
    if calls:
        for index, call in enumerate(calls):
            if index:
                block.append(", ")
            block.append_text(_segments(call, quote=False))
    else:
        block.append("(none)")
    block.append("\n  Final response: ")
    act_text = message_text(actual.final_response) if actual else None
    exp_text = message_text(expected.final_response) if expected else None
    strategy = response_strategy((m.metric_name, m.criterion) for m in group) if RESPONSE in parts else None
    if strategy is not None and exp_text is not None:
        # A contains / regex check: the answer as given, then what it had to contain (a word diff would mislead).
        block.append(json.dumps(act_text, ensure_ascii=False) if act_text is not None else "(none)")
        block.append(f" ({strategy_phrase(strategy)} ")
        block.append_text(_segments([("-", exp_text)], quote=True))
        block.append(")")
    elif RESPONSE in parts and expected is not None and (exp_text is not None or act_text is not None):
        block.append_text(_segments(word_diff(exp_text or "", act_text or ""), quote=True))
        if act_text is None:
            block.append(" (no final response)")
    elif act_text is not None:
        block.append(json.dumps(act_text, ensure_ascii=False))
    else:
        block.append("(none)")
    block.append("\n")
    for m in group:
        if m.reason:
            block.append(f"  {m.metric_name}: {m.reason}\n")
        for r in m.rubric_reasons:
            block.append(f"    rubric {r}\n")
    block.rstrip()
    return block


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


def _score_cell(metric: EvalMetricResult) -> str:
    """The score, and the typed value the judge answered beside it when recorded (``0 (false)``)."""
    value = metric.details.value if metric.details is not None else None
    score = format_score(metric.score)
    return f"{score} ({value.text()})" if value is not None else score


@escaping_console
def print_case(case: EvalCaseResult, multi_run: bool, console: Console) -> None:
    """Print one case result in detail: metrics per invocation, a simulated case's conversation, and an Expected /
    Actual block per mismatch."""
    title = Text("Case ", style="bold")
    title.append(case_label(case, multi_run), style="bold")
    title.append("  ")
    title.append_text(_status(case.final_eval_status))
    usage = usage_text(case_usage(case))
    if usage:
        title.append(f"  {usage}", style="dim")
    console.print(title, soft_wrap=True)
    if case.error_message:
        console.print(Text(f"  Error: {case.error_message}", style="red"), soft_wrap=True)
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
                    str(index + 1), metric.metric_name, _score_cell(metric), format_score(metric.threshold),
                    _status(metric.eval_status),
                )  # fmt: skip
        console.print(table)
    for index, per_inv in enumerate(case.eval_metric_result_per_invocation):
        inv_usage = usage_text(UsageTotals.of([per_inv.actual_invocation]))
        if inv_usage:
            console.print(Text(f"  Invocation {index + 1}: {inv_usage}", style="dim"), soft_wrap=True)
    print_transcript(case, console)
    for group in group_mismatches(case_mismatches(case)):
        if group[0].invocation_index is None:
            console.print(_mismatch_block(mismatch_text(group)), soft_wrap=True)
        else:
            console.print(_inline_block(group), soft_wrap=True)


@escaping_console
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
