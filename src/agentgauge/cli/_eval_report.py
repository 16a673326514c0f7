"""What ``eval`` prints and writes once its eval sets ran: summaries, report files, where results were saved, the
baseline comparison and the GitHub Actions summary."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ._common import print_line

if TYPE_CHECKING:  # pragma: no cover
    from rich.console import Console

    from ..launch import Baseline
    from ..model import EvalCaseResult
    from ..run import EvaluationResult
    from ._options import ReportOptions

__all__ = ["report_outcomes", "report_streamed"]


def report_streamed(
    outcome: EvaluationResult,
    console: Console,
    report: ReportOptions,
    *,
    reports: list[tuple[Path, str]],
    cases: Iterable[EvalCaseResult] | None = None,
) -> None:
    """Reports of a run too large to hold: the summary from its compact rows, the rest read case by case (from
    the result file, or from ``cases`` when the result went elsewhere, e.g. a SQL store)."""
    from ..reporting import view_from_rows
    from ..reporting._terminal import print_overview

    assert outcome.rows is not None and outcome.result_header is not None
    view = view_from_rows(outcome.result_header, outcome.rows)
    if report.detailed or reports:
        from ..formats._result_stream import ResultStream
        from ..reporting._stream import stream_reports

        if cases is None:
            assert outcome.result_path is not None
            cases = ResultStream(outcome.result_path).cases()
        shown = console if report.detailed else None
        stream_reports(view, cases, reports, console=shown, junit_runs=report.junit_runs)
    print_overview(view, console, outcome.execution_time)


def report_outcomes(
    outcomes: list[EvaluationResult],
    console: Console,
    report: ReportOptions,
    *,
    start: Path,
    result_store: Any = None,
    sources: list[str] = [],  # noqa: B006 - never modified
    baseline: Baseline | None = None,
) -> None:
    """Report each outcome: summary, report files (one per eval set when there are several), comparison with
    ``baseline``, where the result was saved; paths are shown relative to ``start``, the starting directory."""
    from ..reporting import ui_links

    for outcome in outcomes:
        with ui_links(_ui_url(report.ui_url, outcome), outcome.app_name):  # the cases' replay links
            _report_outcome(outcome, console, report, start, result_store, sources, baseline, len(outcomes) > 1)


def _ui_url(given: str | None, outcome: EvaluationResult) -> str | None:
    """Where the reports link the cases to: ``--ui-url`` (``""``: nowhere), else the ``agentgauge serve`` running
    on the results folder the result was saved in (its serve file, :mod:`._serve_file`), else nowhere."""
    if given is not None:
        return given or None
    if outcome.result_path is None:  # saved to a store, or not saved
        return None
    from ._serve_file import discover_ui_url

    return discover_ui_url(outcome.result_path.parent.parent)  # <results>/<app>/<result file>


def _report_outcome(
    outcome: EvaluationResult,
    console: Console,
    report: ReportOptions,
    start: Path,
    result_store: Any,
    sources: list[str],
    baseline: Baseline | None,
    several: bool,
) -> None:
    from ..reporting import print_summary, write_report
    from ._github import full_report, github_actions, publish_outcome, source_files

    reports = [(_report_path(path, outcome.eval_set_id, several), fmt) for path, fmt in report.files()]
    if outcome.results_in_memory:
        result = outcome.eval_set_result
        print_summary(result, console=console, detailed=report.detailed, duration=outcome.execution_time)
        for target, fmt in reports:
            write_report(result, target, fmt, junit_runs=report.junit_runs)  # type: ignore[arg-type]
    else:
        cases = None
        if result_store is not None:  # read back from the store, one page of case results at a time
            cases = result_store.iter_case_results(outcome.app_name, _result_id(outcome))
        report_streamed(outcome, console, report, reports=reports, cases=cases)
    compared = baseline.compared(outcome) if baseline is not None else None
    if compared is not None:  # the comparison block follows the summary; its section goes into the reports
        from ._eval_baseline import show_comparison

        show_comparison(compared, reports, console)
    for target, fmt in reports:
        print_line(console, f"{fmt} report written to {_shown(target, start)}")
    saved = _shown(outcome.result_path, start)
    if result_store is not None:
        saved = f"store {result_store.store.shown_url} as {_result_id(outcome)}"
    if outcome.interrupted:
        print_line(console, f"Interrupted: the cases finished before the stop were saved to {saved}")
    else:
        print_line(console, f"Results saved to {saved}")
    if github_actions():  # job summary and annotations; the exit code stays the same
        full = _shown(full_report(reports), start) if reports else saved
        cases = None
        if result_store is not None and not outcome.results_in_memory:
            cases = result_store.iter_case_results(outcome.app_name, _result_id(outcome))
        publish_outcome(outcome, console, sources=source_files(sources), full_report=full, cases=cases)


def _shown(path: Path | None, start: Path) -> str:
    """``path`` as printed: relative to the directory the command started in when it lies below it."""
    if path is None:
        return "(not saved to a file)"
    try:
        return str(path.relative_to(start))
    except ValueError:
        return str(path)


def _report_path(path: Path, eval_set_id: str, several: bool) -> Path:
    return path.with_name(f"{path.stem}.{eval_set_id}{path.suffix}") if several else path


def _result_id(outcome: EvaluationResult) -> str:
    if outcome.result_header is not None:
        return outcome.result_header.eval_set_result_id
    return outcome.eval_set_result.eval_set_result_id
