"""``agentgauge compare``: what changed between two results (fixed / broken cases, metric deltas, significance)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from ._app import app
from ._common import EXIT_FAILED, EXIT_OK, input_errors_exit_2, print_line
from ._options import (
    DEFAULT_OUTPUT_DIR,
    AppNameOption,
    BootstrapResamplesOption,
    HtmlOption,
    JsonOption,
    MarkdownOption,
    OutputDirOption,
    SeedOption,
    StoreOption,
)

__all__ = ["compare"]


@app.command()
def compare(
    base: Annotated[
        str,
        typer.Argument(
            metavar="BASE",
            help="The earlier result: a result file (native or ADK), a result id, or label:KEY=VALUE[,KEY=VALUE] "
            "(the newest result with those labels).",
        ),
    ],
    new: Annotated[
        str, typer.Argument(metavar="NEW", help="The later result, compared against BASE (same forms as BASE).")
    ],
    output_dir: OutputDirOption = DEFAULT_OUTPUT_DIR,
    json_out: JsonOption = False,
    markdown: MarkdownOption = None,
    html: HtmlOption = None,
    store: StoreOption = None,
    app_name: AppNameOption = None,
    bootstrap_resamples: BootstrapResamplesOption = 10_000,
    seed: SeedOption = 0,
) -> None:
    """Compare two results: fixed / broken / still failing cases, metric mean deltas, pass@k, significance.

    Cases are matched by id; BASE and NEW may be agentgauge, trpc-agent-go or ADK result files, or result ids
    (saved under --output-dir, or in the SQL store of --store / AGENTGAUGE_STORE). With
    several runs per case, Fisher's exact test says whether a case's pass rate really changed. When one side ran only
    selected cases (EVAL_SET:case1,case2) or was interrupted, the cases it did not run are listed apart as not run,
    never as removed or broken. The pass rate's and each metric's change get a 95% paired bootstrap interval; a change
    the interval cannot tell from chance gets the number of cases needed to detect it.

    Exit code 0 when no case broke, 1 when a case that passed in BASE does not pass in NEW, 2 on bad input.

    \b
    Examples:
      agentgauge compare base.evalset_result.json new.evalset_result.json
      agentgauge compare calculator_calculator_1f0c... calculator_calculator_9b2e...
      agentgauge compare label:env=prod label:env=staging --store results.db
    """
    from rich.console import Console

    from .._util.redact import mask_standard_streams

    mask_standard_streams()
    from ..reporting._escape import escape_controls

    # user text may hold ":name:" (no emoji codes) and control characters (escaped)
    console = escape_controls(Console(stderr=json_out, soft_wrap=False, emoji=False))
    with input_errors_exit_2():
        from .._util.fileio import atomic_write, check_output_targets
        from ..compare import compare_results, print_comparison, render_html, render_markdown
        from ..sqlstore import resolve_store_url
        from ._run_metadata import load_compared

        check_output_targets(markdown, html)
        url = resolve_store_url(store)
        results = None
        if url is not None and not (Path(base).exists() and Path(new).exists()):
            from ..sqlstore._cli import open_result_store

            results = open_result_store(url)
        (before, base_source), (after, new_source) = load_compared(
            base, new, output_dir, results=results, app_name=app_name
        )
        comparison = compare_results(
            before, after, base_source=base_source, new_source=new_source, resamples=bootstrap_resamples, seed=seed
        )
        print_comparison(comparison, console)
        for target, text, kind in ((markdown, render_markdown, "markdown"), (html, render_html, "html")):
            if target is not None:
                atomic_write(target, text(comparison).encode("utf-8"))
                print_line(console, f"{kind} comparison written to {target}")
        if json_out:
            typer.echo(comparison.model_dump_json(indent=2))
    raise typer.Exit(EXIT_FAILED if comparison.regressed else EXIT_OK)
