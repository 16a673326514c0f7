"""``agentgauge triage RESULT_OR_TRACES [--to-evalset FILE]``: a result's failures (or recorded sessions', scored
as ``eval --traces`` scores them) in clusters, heaviest first, and one candidate golden case per cluster (see
docs/replay.md)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from ._app import app
from ._common import echo_text, fail_input, input_errors_exit_2
from ._options import BySessionOption, JsonOption

if TYPE_CHECKING:  # pragma: no cover
    from ..model import EvalSet, EvalSetResult
    from ..triage import Triage

__all__ = ["triage"]


@app.command(
    "triage",
    epilog="Examples:  agentgauge triage examples/replay/planted.evalset_result.json\n\n"
    "           agentgauge triage RESULT.evalset_result.json --to-evalset regressions.evalset.json --merge 0.9\n\n"
    "           agentgauge triage examples/traces/ --eval-set examples/traces/weather.evalset.json",
)
def triage(
    result_file: Annotated[
        Path,
        typer.Argument(
            readable=False,
            metavar="RESULT_OR_TRACES",
            help="A saved result (any supported result format), or recorded traces (a file or directory) to score "
            "first as 'eval --traces' does.",
        ),
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
    eval_set: Annotated[
        str | None,
        typer.Option("--eval-set", help="With traces: the eval set to compare them with.", rich_help_panel="Input"),
    ] = None,
    metrics: Annotated[
        Path | None,
        typer.Option(
            "--metrics",
            readable=False,
            help="With traces: the metrics file (default: the eval set's, as 'eval --traces' finds it).",
            rich_help_panel="Metrics",
        ),
    ] = None,
    by_session: BySessionOption = False,
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
        from ..model import EvalSet
        from ..triage import triage_lines, triage_result

        loaded, fmt = _result_of(result_file, eval_set, metrics, by_session)
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


def _result_of(
    path: Path, eval_set: str | None, metrics: Path | None, by_session: bool
) -> tuple[EvalSet | EvalSetResult, str]:
    """The result to triage: the file at ``path``, or its recorded traces scored in memory (nothing saved)."""
    from ._traces_cmds import set_or_result_else_traces

    found = set_or_result_else_traces(path)
    if found is None:
        return _scored_traces(path, eval_set, metrics, by_session), "native"
    if eval_set is not None or metrics is not None or by_session:
        fail_input("--eval-set, --metrics and --by-session score recorded traces, not a saved result")
    return found


def _scored_traces(path: Path, eval_set: str | None, metrics: Path | None, by_session: bool) -> EvalSetResult:
    """The traces at ``path`` scored exactly as ``eval --traces`` scores them, the result kept in memory."""
    import asyncio

    from ..launch import COMMAND_LINE, EvalRequest, JudgeOptions, evaluate
    from ..storage import InMemoryEvalResultManager

    request = EvalRequest(
        traces=path,
        eval_set=eval_set,
        by_session=by_session,
        config=metrics,
        judge=JudgeOptions(no_cache=True),
        results=InMemoryEvalResultManager(),
        surface=COMMAND_LINE,
    )
    [outcome] = asyncio.run(evaluate(request, on_note=lambda line: echo_text(line, err=True)))
    return outcome.eval_set_result


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
