"""``agentgauge show``: print and convert a stored result file (native or ADK)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from ._app import app
from ._common import EXIT_FAILED, EXIT_OK, input_errors_exit_2, print_line
from ._options import (
    DEFAULT_OUTPUT_DIR,
    AppNameOption,
    BootstrapResamplesOption,
    DetailedOption,
    HtmlOption,
    JsonOption,
    JunitOption,
    JunitRunsOption,
    MarkdownOption,
    OutputDirOption,
    ReportOptions,
    SeedOption,
    StoreOption,
)
from ._selectors import SELECTOR_FORMS

if TYPE_CHECKING:  # pragma: no cover
    from rich.console import Console

    from ..model import EvalSetResult, RunMetadata
    from ..storage import FoundResult

__all__ = ["show"]


_ResultArg = Annotated[str, typer.Argument(metavar="RESULT", help=f"The result to show: {SELECTOR_FORMS}.")]


@app.command()
def show(
    result_file: _ResultArg,
    print_detailed_results: DetailedOption = False,
    html: HtmlOption = None,
    junit: JunitOption = None,
    junit_runs: JunitRunsOption = False,
    markdown: MarkdownOption = None,
    json_out: JsonOption = False,
    store: StoreOption = None,
    app_name: AppNameOption = None,
    bootstrap_resamples: BootstrapResamplesOption = 10_000,
    seed: SeedOption = 0,
    output_dir: OutputDirOption = DEFAULT_OUTPUT_DIR,
) -> None:
    """Show a stored evaluation result and optionally write it as HTML, JUnit XML or Markdown.

    Exit code 0 when every case passed, 1 when a case failed, errored or was not evaluated, 2 when the file is
    invalid.

    Examples:

      agentgauge show .agentgauge/results/calc/calc_1a2b.evalset_result.json --print-detailed-results

      agentgauge show my_agent/.adk/eval_history/x.evalset_result.json --junit report.junit.xml --html report.html

      agentgauge show calc_calculator_1a2b... --store sqlite:///results.db

      agentgauge show latest
    """
    report = ReportOptions(
        junit, html, markdown, json_out=json_out, detailed=print_detailed_results, junit_runs=junit_runs
    )
    from ..stats import BootstrapSettings, use_bootstrap

    with use_bootstrap(BootstrapSettings(bootstrap_resamples, seed)):
        code = _show(result_file, report, store, app_name, output_dir)
    raise typer.Exit(code)


def _show(spec: str, report: ReportOptions, store: str | None, app_name: str | None, output_dir: Path) -> int:
    """Print (and write) the result ``spec`` selects; the exit code: whether every case passed."""
    from rich.console import Console

    from ..model import EvalStatus
    from ..reporting import build_view, print_summary, render, write_report
    from ..storage import resolve_result
    from ._selectors import result_catalog

    reports = report.files("html", "junit", "markdown")
    from ..reporting._escape import escape_controls

    # user text may hold ":name:" (no emoji codes) and control characters (escaped)
    console = escape_controls(Console(stderr=report.json_out, soft_wrap=False, emoji=False))
    with input_errors_exit_2():
        found = resolve_result(spec, result_catalog([spec], output_dir, store, app_name))
        streamed = None
        if found.path is not None and found.result is None:  # a file not read yet: large ones are streamed
            streamed = _show_streamed(found.path, reports, console, report)
        if streamed is None:
            result = found.load()
            for path, fmt in reports:
                write_report(result, path, fmt, junit_runs=report.junit_runs)  # type: ignore[arg-type]
    if streamed is None:
        print_summary(result, console=console, detailed=report.detailed)
        _print_metadata(console, result.run_metadata)
    _print_written(reports, console)
    _github(found, reports, console, None if streamed is not None else result)
    if streamed is None and report.json_out:
        sys.stdout.write(render(result, "json"))
        sys.stdout.flush()
    passed = streamed if streamed is not None else build_view(result).overall_status is EvalStatus.PASSED
    return EXIT_OK if passed else EXIT_FAILED


def _print_metadata(console: Console, metadata: RunMetadata | None) -> None:
    """The run's labels and provenance, under the summary."""
    from ._run_metadata import metadata_lines

    for line in metadata_lines(metadata):
        print_line(console, line)


def _github(
    found: FoundResult, reports: list[tuple[Path, str]], console: Console, result: EvalSetResult | None
) -> None:
    """In GitHub Actions: annotations and the job summary (a large file is read case by case once more)."""
    from ._github import full_report, github_actions, publish

    if not github_actions():
        return
    full = str(full_report(reports)) if reports else found.source
    sources = [found.path] if found.path is not None else []  # not for a result read from a store by id
    if result is not None:
        from ..reporting import build_view

        publish(build_view(result), result.eval_case_results, console, sources=sources, full_report=full)
        return
    from ..reporting._stream import scan_result_file

    assert found.path is not None  # a stored result is never streamed
    scanned = scan_result_file(found.path)
    if scanned is not None:
        stream, view = scanned
        publish(view, stream.cases(), console, sources=sources, full_report=full)


def _print_written(reports: list[tuple[Path, str]], console: Console) -> None:
    names = {"html": "HTML report", "junit": "JUnit report", "markdown": "Markdown report"}
    for path, fmt in reports:
        print_line(console, f"{names[fmt]} written to {path}")


def _show_streamed(
    result_file: Path, reports: list[tuple[Path, str]], console: Console, report: ReportOptions
) -> bool | None:
    """Show a large result file reading one case result at a time; ``None`` when it is small or not streamable.

    The file is read once to check every case and aggregate the summary (nothing is printed if it is invalid), then
    once more for the detailed view and the reports, and once more for ``--json``. Returns whether it passed.
    """
    from ..model import EvalStatus
    from ..reporting._stream import scan_result_file, stream_json, stream_reports
    from ..reporting._terminal import print_overview
    from ..service import _source

    try:
        if result_file.stat().st_size < _source.stream_min_bytes():
            return None
    except OSError:
        return None  # the whole-file reader reports it
    scanned = scan_result_file(result_file)
    if scanned is None:
        return None
    stream, view = scanned
    if report.detailed or reports:
        shown = console if report.detailed else None
        stream_reports(view, stream.cases(), reports, console=shown, junit_runs=report.junit_runs)
    print_overview(view, console)
    assert stream.header is not None
    _print_metadata(console, stream.header.run_metadata)
    if report.json_out:
        sys.stdout.flush()
        stream_json(stream.header, stream.cases(), sys.stdout.buffer, stream.case_summaries(), view)
        sys.stdout.buffer.flush()
    return view.overall_status is EvalStatus.PASSED and not view.result.interrupted
