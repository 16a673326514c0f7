"""``agentgauge diff RUN_A RUN_B [CASE]``: where two runs of a case first diverge (see docs/replay.md).

A run is read from a saved result (a case's run), an eval set (a case's golden conversation, or the recorded
``actualConversation`` of a trace-mode case without one) or recorded traces (a trace's or a session's
conversation); cases pair by id.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from ._app import app
from ._common import EXIT_FAILED, EXIT_OK, echo_text, fail_input, input_errors_exit_2
from ._options import BySessionOption, JsonOption

if TYPE_CHECKING:  # pragma: no cover
    from ..divergence import Alignment, Divergence
    from ..model import EvalCaseResult, EvalSetResult, Invocation

__all__ = ["diff"]


@dataclass(frozen=True, slots=True)
class _Run:
    """One case's run from one side: its turns and how it was chosen (``run 2``, ``golden conversation``)."""

    invocations: list[Invocation]
    what: str


def _from_result(result: EvalSetResult, run_id: int | None, failing: bool) -> dict[str, _Run]:
    from ..divergence import pick_run, run_invocations

    runs: dict[str, list[EvalCaseResult]] = {}
    for case in result.eval_case_results:
        runs.setdefault(case.eval_id, []).append(case)
    out = {}
    for eval_id, case_runs in runs.items():
        try:
            chosen = pick_run(case_runs, failing=failing, run_id=run_id)
        except ValueError as exc:
            if run_id is None:
                raise
            echo_text(f"note: case {eval_id} skipped: {exc}", err=True)
            continue
        out[eval_id] = _Run(run_invocations(chosen), f"run {chosen.run_id}")
    return out


def _load(path: Path, run_id: int | None, failing: bool, by_session: bool) -> dict[str, _Run]:
    """The runs of every case at ``path`` (a result, an eval set or traces), by case id."""
    from ..model import EvalSet
    from ._traces_cmds import set_or_result_else_traces

    found = set_or_result_else_traces(path)
    if found is None:
        return _from_traces(path, by_session)
    loaded, _ = found
    if isinstance(loaded, EvalSet):
        out = {}
        for case in loaded.eval_cases:
            golden = case.conversation or case.actual_conversation or []
            out[case.eval_id] = _Run(list(golden), "golden conversation" if case.conversation else "recording")
        return out
    return _from_result(loaded, run_id, failing)


def _from_traces(path: Path, by_session: bool) -> dict[str, _Run]:
    from ..traces import golden_eval_set
    from ._traces_cmds import read_traces

    found = read_traces(path, by_session)
    eval_set = golden_eval_set(found.conversations, "traces")
    return {case.eval_id: _Run(list(case.conversation or []), "trace") for case in eval_set.eval_cases}


def _pairs(base: dict[str, _Run], new: dict[str, _Run], case: str | None) -> list[tuple[str, _Run, _Run]]:
    if case is not None:
        missing = [side for side, runs in (("RUN_A", base), ("RUN_B", new)) if case not in runs]
        if missing:
            fail_input(f"case {case!r} is not in {' and '.join(missing)}")
        return [(case, base[case], new[case])]
    common = [(i, base[i], new[i]) for i in base if i in new]
    if not common and len(base) == len(new) == 1:
        [(a_id, a_run)], [(b_id, b_run)] = base.items(), new.items()
        echo_text(f"note: the only case of each side paired: {a_id} with {b_id}", err=True)
        return [(a_id, a_run, b_run)]
    if not common:
        fail_input("the two runs have no case in common (name one with CASE when each side has one)")
    return common


def _side_by_side(alignment: Alignment, divergence: Divergence | None) -> list[str]:
    """The two runs' steps in two columns, the first divergence marked with ``>>``."""
    from ..divergence import step_text

    marks = {"match": "=", "replace": "~", "delete": "-", "insert": "+"}
    rows = []
    for s in alignment.steps:
        where = f"{s.base.turn}.{s.base.step}" if s.base else ""
        rows.append(
            (where, step_text(s.base, 50) if s.base else "", marks[s.op], step_text(s.new, 50) if s.new else "")
        )
    width = max([len(r[1]) for r in rows] + [4])
    fork = next((k for k, s in enumerate(alignment.steps) if s.op != "match"), None) if divergence else None
    lines = [f"   {'step':<5} {'RUN_A':<{width}}   RUN_B"]
    for k, (where, left, mark, right) in enumerate(rows):
        lines.append(f"{'>> ' if k == fork else '   '}{where:<5} {left:<{width}} {mark} {right}".rstrip())
    return lines


_RunOption = Annotated[
    int | None,
    typer.Option(
        help="The run of a result to read (default: RUN_A's first run, RUN_B's first failing).",
        rich_help_panel="Input",
    ),
]


@app.command(
    "diff",
    epilog="Examples:  agentgauge diff examples/replay/calculator.evalset.json "
    "examples/replay/swapped.evalset_result.json\n\n"
    "           agentgauge diff base.evalset_result.json new.evalset_result.json product_then_sum --json",
)
def diff(
    run_a: Annotated[Path, typer.Argument(readable=False, help="The base run: a result, an eval set or traces.")],
    run_b: Annotated[Path, typer.Argument(readable=False, help="The new run: a result, an eval set or traces.")],
    case: Annotated[str | None, typer.Argument(help="The case to compare (default: every case of both).")] = None,
    base_run: _RunOption = None,
    new_run: _RunOption = None,
    by_session: BySessionOption = False,
    json_out: JsonOption = False,
) -> None:
    """Where two runs of a case first diverge: the first step (tool call, its arguments or result, the answer)
    where they differ, both sides, and where they re-converge.

    Each case's steps are aligned with an edit distance; with one case, both runs are shown side by side with
    the fork marked. Exit code 0 when no compared case diverged, 1 when one did, 2 for bad input.
    """
    from ..divergence import align_steps, alignment_divergence, divergence_text, invocation_steps

    with input_errors_exit_2():
        base = _load(run_a, base_run, False, by_session)
        new = _load(run_b, new_run, True, by_session)
    pairs = _pairs(base, new, case)
    documents, lines, diverged = [], [], 0
    for eval_id, a, b in pairs:
        alignment = align_steps(invocation_steps(a.invocations), invocation_steps(b.invocations))
        found = alignment_divergence(alignment)
        diverged += found is not None
        documents.append(
            {
                "evalId": eval_id,
                "base": a.what,
                "new": b.what,
                "firstDivergence": found.model_dump(mode="json") if found is not None else None,
                **({"steps": alignment.steps_json()} if len(pairs) == 1 else {}),
            }
        )
        lines.append(f"{eval_id} ({a.what} -> {b.what}): {divergence_text(found, sides=('RUN_A', 'RUN_B'))}")
        if len(pairs) == 1:
            lines += _side_by_side(alignment, found)
    if json_out:
        typer.echo(json.dumps(documents, indent=2, ensure_ascii=False))
    else:
        echo_text("\n".join(lines))
        echo_text(f"{diverged} of {len(pairs)} case(s) diverged")
    raise typer.Exit(EXIT_FAILED if diverged else EXIT_OK)
