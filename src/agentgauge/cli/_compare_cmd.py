"""``agentgauge compare``: what changed between two results (fixed / broken cases, metric deltas, significance)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from ._app import app
from ._common import EXIT_FAILED, EXIT_OK, input_errors_exit_2

if TYPE_CHECKING:  # pragma: no cover
    from ..model import EvalSetResult

__all__ = ["compare", "find_result"]


def find_result(spec: str, output_dir: Path) -> Path:
    """The result file ``spec`` names: a path, or a result id saved under ``output_dir`` (``<app>/<id>``)."""
    from ..errors import InputError
    from ..storage._locator import RESULT_SUFFIX

    path = Path(spec)
    if path.is_file():
        return path
    if path.exists():
        raise InputError(f"{spec}: not a result file")
    if "/" not in spec and "\\" not in spec and output_dir.is_dir():
        found = sorted(output_dir.glob(f"*/{spec}{RESULT_SUFFIX}")) + sorted(output_dir.glob(f"{spec}{RESULT_SUFFIX}"))
        if len(found) == 1:
            return found[0]
        if len(found) > 1:
            raise InputError(f"{spec}: several results have this id: {', '.join(map(str, found))}")
    raise InputError(f"{spec}: no such file, and no result with this id under {output_dir}")


def _load(spec: str, output_dir: Path) -> tuple[EvalSetResult, str]:
    from ..formats import load_result

    path = find_result(spec, output_dir)
    return load_result(path), str(path)


@app.command()
def compare(
    base: Annotated[
        str, typer.Argument(metavar="BASE", help="The earlier result: a result file (native or ADK) or a result id.")
    ],
    new: Annotated[str, typer.Argument(metavar="NEW", help="The later result, compared against BASE.")],
    output_dir: Annotated[
        Path, typer.Option("--output-dir", readable=False, help="Where result ids are looked up.")
    ] = Path(".agentgauge/results"),
    json_out: Annotated[
        bool, typer.Option("--json", help="Print the comparison as JSON on stdout (human output goes to stderr).")
    ] = False,
    markdown: Annotated[
        Path | None, typer.Option("--markdown", readable=False, help="Also write the comparison as Markdown.")
    ] = None,
    html: Annotated[
        Path | None, typer.Option("--html", readable=False, help="Also write a self-contained HTML page.")
    ] = None,
) -> None:
    """Compare two results: fixed / broken / still failing cases, metric mean deltas, pass@k, significance.

    Cases are matched by id; BASE and NEW may be agentgauge, trpc-agent-go or ADK result files, or result ids. With
    several runs per case, Fisher's exact test says whether a case's pass rate really changed.

    Exit code 0 when no case broke, 1 when a case that passed in BASE does not pass in NEW, 2 on bad input.

    Examples:

      agentgauge compare examples/compare/base.evalset_result.json examples/compare/new.evalset_result.json

      agentgauge compare calculator_calculator_1f0c... calculator_calculator_9b2e... --markdown compare.md
    """
    from rich.console import Console

    from .._redact import mask_standard_streams

    mask_standard_streams()
    console = Console(stderr=json_out, soft_wrap=False)
    with input_errors_exit_2():
        from .._fileio import atomic_write, check_output_targets
        from ..compare import compare_results, print_comparison, render_html, render_markdown

        check_output_targets(markdown, html)
        before, base_source = _load(base, output_dir)
        after, new_source = _load(new, output_dir)
        comparison = compare_results(before, after, base_source=base_source, new_source=new_source)
        print_comparison(comparison, console)
        for target, text, kind in ((markdown, render_markdown, "markdown"), (html, render_html, "html")):
            if target is not None:
                atomic_write(target, text(comparison).encode("utf-8"))
                console.print(f"{kind} comparison written to {target}", highlight=False, soft_wrap=True)
        if json_out:
            typer.echo(comparison.model_dump_json(indent=2))
    raise typer.Exit(EXIT_FAILED if comparison.regressed else EXIT_OK)
