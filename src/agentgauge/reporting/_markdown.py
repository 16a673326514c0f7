"""Markdown report for CI job summaries (``$GITHUB_STEP_SUMMARY``, merge-request notes)."""

from __future__ import annotations

import re

from ..model import EvalCaseResult, EvalSetResult, EvalStatus
from ..summary._latency import latency_text
from ..summary._reasons import case_label, case_mismatches, format_score, group_mismatches, mismatch_text, one_line
from ..summary._usage import case_usage, format_cost, format_duration, format_tokens, usage_text
from ._intervals import estimate_text, view_intervals
from ._links import case_link
from ._transcript import markdown_transcript
from ._view import ResultView, build_view, view_latency

__all__ = ["markdown_case", "markdown_head", "markdown_tail", "render_markdown"]

_ICON = {
    EvalStatus.PASSED: "✅ passed",
    EvalStatus.FAILED: "❌ failed",
    EvalStatus.NOT_EVALUATED: "⚪ not evaluated",
    EvalStatus.INFORMATIONAL: "ℹ️ informational",
    EvalStatus.ERROR: "⚠️ error",
}


def _code(text: str) -> str:
    """An inline code span that survives backticks and newlines in ``text``."""
    flat = " ".join(text.split())
    ticks = "`" * (max((len(run) for run in re.findall("`+", flat)), default=0) + 1)
    pad = " " if flat.startswith("`") or flat.endswith("`") else ""
    return f"{ticks}{pad}{flat}{pad}{ticks}"


def _text(text: str) -> str:
    """Plain text with Markdown and HTML metacharacters escaped."""
    return re.sub(r"([\\`*\[\]<>|~])", r"\\\1", " ".join(text.split()))


def _fence(text: str) -> str:
    longest = max((len(run) for run in re.findall("`+", text)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}text\n{text}\n{fence}"


def markdown_head(view: ResultView) -> str:
    """The summary part of the report: status, counts, metric means, pass@k, and the failed-cases heading."""
    result = view.result
    lines = [f"## agentgauge: {_code(result.eval_set_id)} {_ICON[view.overall_status]}", ""]
    if result.interrupted:
        lines += ["**Interrupted:** only the cases that finished before the run was stopped are included.", ""]
    lines += _counts_table(view)
    usage = usage_text(view.usage)
    if usage:
        lines += [f"**Usage:** {_text(usage)}", ""]
        latency = view_latency(view)
        if latency is not None:
            lines += [f"**Latency per case:** {_text(latency_text(latency))}", ""]
    lines += _metric_lines(view)
    if view.pass_k:
        lines += ["| k | pass@k | pass^k |", "|---:|---:|---:|"]
        lines += [f"| {p.k} | {format_score(p.pass_at_k)} | {format_score(p.pass_hat_k)} |" for p in view.pass_k]
        lines.append("")
    lines += _interval_lines(view)
    if view.flaky:
        lines += ["### Flaky cases (runs disagree)", "", "| Case | Runs passed | Pass rate | Status |"]
        lines += ["|---|---:|---:|---|"]
        lines += [
            f"| {_code(c.eval_id).replace('|', chr(92) + '|')} | {c.runs_passed}/{c.runs} | "
            f"{c.runs_passed / c.runs:.2f} | {_text(c.status_text)} |"
            for c in view.flaky
        ]
        lines.append("")
    if view.not_passing:
        lines += ["### Cases that did not pass", "", *_not_passing_table(view), ""]
    return "\n".join(lines) + "\n"


def _counts_table(view: ResultView) -> list[str]:
    """The case counts (and, with several runs, the case run counts, labelled apart) and the status rule."""
    lines = [
        "| Cases | Passed | Failed | Error | Not evaluated | Runs |",
        "|---:|---:|---:|---:|---:|---:|",
        f"| {len(view.cases)} | {view.count(EvalStatus.PASSED)} | {view.count(EvalStatus.FAILED)} | "
        f"{view.count(EvalStatus.ERROR)} | {view.count(EvalStatus.NOT_EVALUATED)} | {view.num_runs} |",
        "",
    ]
    not_run = view.not_run_text()
    if not_run is not None:  # cases of the set the run could not run: apart from the counted cases
        lines += [f"*{_text(not_run)}.*", ""]
    if view.multi_run:
        runs = view.case_runs
        lines += [
            f"*Case status over {view.num_runs} runs: {_text(view.rule_text)}.*",
            "",
            "| Case runs | Passed | Failed | Error | Not evaluated |",
            "|---:|---:|---:|---:|---:|",
            f"| {view.total_case_runs} | {runs.passed} | {runs.failed} | {runs.error} | {runs.not_evaluated} |",
            "",
        ]
    return lines


def _metric_lines(view: ResultView) -> list[str]:
    """The metric table (counts over case runs) and, apart, the measurements."""
    lines: list[str] = []
    if view.scores:
        errors = any(row.errors for row in view.scores)  # the column shows only when a metric could not be scored
        over = f" (over {view.total_case_runs} case runs)" if view.multi_run else ""
        error_head, error_align = (" Error |", "---:|") if errors else ("", "")
        lines += [f"| Metric{over} | Mean score | Threshold | Status | Passed | Failed |{error_head} Not evaluated |"]
        lines += [f"|---|---:|---:|---|---:|---:|{error_align}---:|"]
        for row in view.scores:
            counts = row.counts
            error = f" {counts.error} |" if errors else ""
            lines.append(
                f"| {_text(row.name)} | {format_score(row.average)} | {format_score(row.threshold)} | "
                f"{_ICON[row.status]} | {counts.passed} | {counts.failed} |{error} {counts.not_evaluated} |"
            )
        lines.append("")
    if view.measurements:
        lines += ["| Measurement (informational) | Mean | Measured |", "|---|---:|---:|"]
        lines += [f"| {_text(m.name)} | {format_score(m.average)} | {len(m.scores)} |" for m in view.measurements]
        lines.append("")
    return lines


def _interval_lines(view: ResultView) -> list[str]:
    """The estimates with their bootstrap intervals, as a table (none when no interval was computed)."""
    found = view_intervals(view)
    if not found.shown:
        return []
    lines = [
        f"| Estimate | Value [{found.settings.level:.0%} interval] |",
        "|---|---:|",
        f"| pass rate (runs) | {estimate_text(found.pass_rate, found.pass_rate_interval)} |",
    ]
    lines += [f"| {_text(name)} | {estimate_text(mean, i)} |" for name, (mean, i) in found.metrics.items()]
    note = (
        f"*Percentile bootstrap over {found.cases} cases (a case's runs resampled with it), {found.resamples} "
        f"resamples, seed {found.settings.seed}.*"
    )
    return [*lines, "", note, ""]


def _not_passing_table(view: ResultView) -> list[str]:
    """One row per case that did not pass: status, runs passed (several runs), recorded usage, first reason."""
    cases = view.not_passing
    cols = [
        (name, attr)
        for name, attr in (("Duration", "duration"), ("Tokens", "total_tokens"), ("Cost", "cost"))
        if any(getattr(c.usage, attr) is not None for c in cases)
    ]
    head = ["Case", "Status", *(["Runs passed"] if view.multi_run else []), *(n for n, _ in cols), "First reason"]
    # With several runs the status names the rule that decided it.
    align = ["---", "---", *(["---:"] if view.multi_run else []), *("---:" for _ in cols), "---"]
    rows = [f"| {' | '.join(head)} |", f"|{'|'.join(align)}|"]
    for case in cases:
        rule = case.status_text.removeprefix(case.status.value).strip()  # with several runs: runs passed, rule
        status = f"{_ICON[case.status]} {_text(rule)}" if rule else _ICON[case.status]
        cells = [_code(case.eval_id).replace("|", "\\|"), status]  # GFM: a pipe ends a cell even in code
        link = case_link(view.result, case.eval_id, case.reason_run)
        if link:
            cells[0] = f"[{cells[0]}]({link})"
        if view.multi_run:
            cells.append(f"{case.runs_passed}/{case.runs}")
        for _, attr in cols:
            value = getattr(case.usage, attr)
            if attr == "duration":
                cells.append(format_duration(value))
            elif attr == "total_tokens":
                cells.append(format_tokens(value))
            else:
                cells.append(_text(format_cost(value, case.usage.cost_missing)))
        reason = one_line(case.reason or "", 200)
        if reason and view.multi_run and case.reason_run is not None:
            reason = f"run {case.reason_run}: {reason}"
        cells.append(_text(reason))
        rows.append(f"| {' | '.join(cells)} |")
    return rows


def markdown_case(case: EvalCaseResult, view: ResultView | bool) -> str:
    """The block of one case result that did not pass (``""`` for a case that passed without error); ``view`` (or
    the former ``multi_run`` flag) tells whether runs are numbered."""
    if case.final_eval_status is EvalStatus.PASSED and not case.error_message:
        return ""
    multi_run = view.multi_run if isinstance(view, ResultView) else view
    label = case_label(case, multi_run)
    lines = [f"#### {_code(label)} {_ICON[case.final_eval_status]}", ""]
    usage = usage_text(case_usage(case))
    if usage:
        lines += [f"*{_text(usage)}*", ""]
    if case.error_message:
        lines += [f"**Error:** {_code(case.error_message)}", ""]
    if case.error_traceback:
        lines += ["<details><summary>Traceback</summary>", "", _fence(case.error_traceback), "", "</details>", ""]
    for group in group_mismatches(case_mismatches(case)):
        lines += [_fence(mismatch_text(group)), ""]
    lines += markdown_transcript(case, _code, _text)
    return "\n".join(lines) + "\n"


def markdown_tail(view: ResultView) -> str:
    """The end of the report: the result id."""
    result_id = view.result.eval_set_result_id
    return f"Result {_code(result_id)}\n\n" if result_id else ""


def render_markdown(result: EvalSetResult) -> str:
    """The result as Markdown: a summary table, recorded usage, metric means, pass@k for several runs, a table of
    the cases that did not pass with their first reasons, and each failed case result with its reasons and
    Expected / Actual blocks."""
    view = build_view(result)
    parts = [markdown_head(view)]
    parts += [markdown_case(case, view) for case in result.eval_case_results]
    parts.append(markdown_tail(view))
    return "".join(parts)[:-1]  # every part ends with a newline; the document ends with the last line's
