"""``agentgauge show``: print and convert a stored result file (native or ADK)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from ._app import app
from ._common import EXIT_FAILED, EXIT_OK, input_errors_exit_2

__all__ = ["show"]


@app.command()
def show(
    result_file: Annotated[
        Path, typer.Argument(readable=False, help="An .evalset_result.json file (agentgauge, trpc-agent-go or ADK).")
    ],
    print_detailed_results: Annotated[
        bool,
        typer.Option(
            "--print-detailed-results",
            "--print_detailed_results",
            help="Per case and invocation: metric, score, threshold, status and Expected / Actual for mismatches.",
        ),
    ] = False,
    html: Annotated[
        Path | None, typer.Option("--html", readable=False, help="Also write a self-contained HTML report here.")
    ] = None,
    junit: Annotated[
        Path | None, typer.Option("--junit", readable=False, help="Also write a JUnit XML report here.")
    ] = None,
    markdown: Annotated[
        Path | None, typer.Option("--markdown", readable=False, help="Also write a Markdown summary here.")
    ] = None,
    json_out: Annotated[
        bool, typer.Option("--json", help="Print the result as JSON on stdout (human output goes to stderr).")
    ] = False,
) -> None:
    """Show a stored evaluation result and optionally write it as HTML, JUnit XML or Markdown.

    Exit code 0 when every case passed, 1 when a case failed or was not evaluated, 2 when the file is invalid.

    Examples:

      agentgauge show .agentgauge/results/calc/calc_1a2b.evalset_result.json --print-detailed-results

      agentgauge show my_agent/.adk/eval_history/x.evalset_result.json --junit report.junit.xml --html report.html
    """
    from rich.console import Console

    from ..formats import load_result
    from ..model import EvalStatus
    from ..reporting import build_view, print_summary, render, write_report

    with input_errors_exit_2():
        result = load_result(result_file)
        for path, fmt in ((html, "html"), (junit, "junit"), (markdown, "markdown")):
            if path is not None:
                write_report(result, path, fmt)  # type: ignore[arg-type]
    console = Console(stderr=json_out, soft_wrap=False)
    print_summary(result, console=console, detailed=print_detailed_results)
    for path, what in ((html, "HTML report"), (junit, "JUnit report"), (markdown, "Markdown report")):
        if path is not None:
            console.print(f"{what} written to {path}", highlight=False, soft_wrap=True)
    if json_out:
        sys.stdout.write(render(result, "json"))
        sys.stdout.flush()
    passed = build_view(result).overall_status is EvalStatus.PASSED
    raise typer.Exit(EXIT_OK if passed else EXIT_FAILED)
