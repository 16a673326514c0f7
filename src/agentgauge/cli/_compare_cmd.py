"""``agentgauge compare``: what changed between two results (fixed / broken cases, metric deltas, significance)."""

from __future__ import annotations

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

_FailOnOption = Annotated[
    str,
    typer.Option(
        "--fail-on",
        metavar="RULE",
        rich_help_panel="Store",
        help="What fails the command (exit 1): broken (a case that passed in BASE does not in NEW; with several runs "
        "only a significant drop of its pass rate), significant (only a significant drop of a pass rate), any-change "
        "or never. See Gates in docs/compare.md.",
    ),
]
_AlphaOption = Annotated[
    float,
    typer.Option("--alpha", rich_help_panel="Store", help="The significance level of the comparison's exact tests."),
]


@app.command()
def compare(
    base: Annotated[
        str,
        typer.Argument(
            metavar="BASE",
            help="The earlier result: a result file (native or ADK), a result id, label:KEY=VALUE[,KEY=VALUE] (the "
            "newest result with those labels, of NEW's eval set when NEW is named) or latest (the newest result of "
            "NEW's eval set besides NEW).",
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
    fail_on: _FailOnOption = "broken",
    alpha: _AlphaOption = 0.05,
) -> None:
    """Compare two results: fixed / broken / still failing cases, metric mean deltas, pass@k, significance.

    Cases are matched by id; BASE and NEW may be agentgauge, trpc-agent-go or ADK result files, result ids (saved
    under --output-dir, or in the SQL store of --store / AGENTGAUGE_STORE), label:KEY=VALUE or latest. With several
    runs per case, Fisher's exact test says whether a case's pass rate really changed: a status flip it cannot tell
    from chance (at --alpha) is listed as within noise, never as broken. When one side ran only
    selected cases (EVAL_SET:case1,case2) or was interrupted, the cases it did not run are listed apart as not run,
    never as removed or broken. The pass rate's and each metric's change get a 95% paired bootstrap interval; a change
    the interval cannot tell from chance gets the number of cases needed to detect it.

    Exit code 1 when the comparison fails --fail-on (default broken: a case that passed in BASE does not pass in
    NEW, beyond noise with several runs), 0 otherwise, 2 on bad input.

    \b
    Examples:
      agentgauge compare base.evalset_result.json new.evalset_result.json
      agentgauge compare calculator_calculator_1f0c... calculator_calculator_9b2e...
      agentgauge compare label:env=prod label:env=staging --store results.db
      agentgauge compare label:branch=main latest --fail-on significant
    """
    from rich.console import Console

    from .._util.redact import mask_standard_streams

    mask_standard_streams()
    from ..reporting._escape import escape_controls

    # user text may hold ":name:" (no emoji codes) and control characters (escaped)
    console = escape_controls(Console(stderr=json_out, soft_wrap=False, emoji=False))
    with input_errors_exit_2():
        from .._util.fileio import atomic_write, check_output_targets
        from ..compare import check_alpha, compare_results, fail_on_rule, print_comparison, render_html, render_markdown
        from ..storage import resolve_pair
        from ._selectors import result_catalog

        check_output_targets(markdown, html)
        rule, alpha = fail_on_rule(fail_on), check_alpha(alpha)
        before, after = resolve_pair(base, new, result_catalog([base, new], output_dir, store, app_name))
        comparison = compare_results(
            before.load(),
            after.load(),
            base_source=before.source,
            new_source=after.source,
            resamples=bootstrap_resamples,
            seed=seed,
            alpha=alpha,
            fail_on=rule,
        )
        print_comparison(comparison, console)
        for target, text, kind in ((markdown, render_markdown, "markdown"), (html, render_html, "html")):
            if target is not None:
                atomic_write(target, text(comparison).encode("utf-8"))
                print_line(console, f"{kind} comparison written to {target}")
        if json_out:
            typer.echo(comparison.model_dump_json(indent=2))
    raise typer.Exit(EXIT_FAILED if comparison.gate is not None and comparison.gate.failed else EXIT_OK)
