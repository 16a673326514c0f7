"""``agentgauge triage RESULT [--to-evalset FILE]``: a result's failures in clusters, heaviest first, and one
candidate golden case per cluster (see docs/replay.md)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from ._app import app
from ._common import echo_text, fail_input, input_errors_exit_2
from ._options import JsonOption

if TYPE_CHECKING:  # pragma: no cover
    from ..model import EvalSetResult
    from ..triage import Triage

__all__ = ["triage"]


@app.command(
    "triage",
    epilog="Examples:  agentgauge triage examples/replay/planted.evalset_result.json\n\n"
    "           agentgauge triage RESULT.evalset_result.json --to-evalset regressions.evalset.json --merge 0.9",
)
def triage(
    result_file: Annotated[
        Path, typer.Argument(readable=False, metavar="RESULT", help="A saved result (any supported result format).")
    ],
    to_evalset: Annotated[
        Path | None,
        typer.Option(
            "--to-evalset",
            readable=False,
            help="Write one candidate golden case per cluster (marked for review) to this eval set: appended to it "
            "in its own format when it exists, else a new set in the result's format (or --to).",
            rich_help_panel="Output",
        ),
    ] = None,
    to: Annotated[
        str | None, typer.Option("--to", help="Format of a new --to-evalset file: 'native' or 'adk'.")
    ] = None,
    merge: Annotated[
        float | None,
        typer.Option(
            "--merge",
            metavar="SIMILARITY",
            help="Also join clusters of the same first failing metric, divergence and tool whose reasons are at least "
            "this similar (0..1; rapidfuzz when installed: pip install 'agentgauge[triage]').",
            rich_help_panel="Metrics",
        ),
    ] = None,
    json_out: JsonOption = False,
) -> None:
    """Group a result's failing case runs by signature (first failing metric, first divergence from the expected
    run and its tool, the reason with numbers, ids and quoted values replaced), ranked by count × cost.

    Prints each cluster with its size, its shared reason and its most typical member. Exit code 0, 2 for bad
    input.
    """
    if to not in (None, "native", "adk"):
        fail_input(f"--to must be 'native' or 'adk', not {to!r}")
    if merge is not None and not 0.0 <= merge <= 1.0:
        fail_input(f"--merge must be between 0 and 1, got {merge:g}")
    with input_errors_exit_2():
        from ..formats import load_set_or_result
        from ..model import EvalSet
        from ..triage import triage_lines, triage_result

        loaded, fmt = load_set_or_result(result_file)
        if isinstance(loaded, EvalSet):
            fail_input(f"{result_file}: an eval set, not a result (run it first: agentgauge eval AGENT SET)")
        found = triage_result(loaded, source=str(result_file), merge=merge)
        if to_evalset is not None:
            written = _write_candidates(found, loaded, to_evalset, to or fmt)
    if json_out:
        typer.echo(json.dumps(found.model_dump(mode="json"), indent=2, ensure_ascii=False))
    else:
        echo_text("\n".join(triage_lines(found)))
    if to_evalset is not None:
        echo_text(
            f"wrote {len(written)} candidate case(s) to {to_evalset} (marked for review): {', '.join(written)}",
            err=json_out,
        )


def _write_candidates(found: Triage, result: EvalSetResult, target: Path, fmt: str) -> list[str]:
    """Add the candidates to ``target`` (kept in its format) or write a new set; the ids written."""
    from ..formats import default_id_for, load_set_or_result, save_eval_set
    from ..model import EvalSet
    from ..triage import add_candidates, candidate_cases

    cases = candidate_cases(found, result)
    if target.exists():
        existing, fmt = load_set_or_result(target)
        if not isinstance(existing, EvalSet):
            fail_input(f"--to-evalset {target}: a result, not an eval set")
        eval_set = existing
    else:
        set_id = default_id_for(str(target))
        eval_set = EvalSet(
            eval_set_id=set_id, name=set_id, description=f"Candidate cases from triage of {result.eval_set_result_id}"
        )
    added = add_candidates(eval_set, cases)
    save_eval_set(eval_set, target, fmt="adk" if fmt == "adk" else "native")
    return added
