"""``agentgauge replay-set``: a saved result or a recorded eval set as replay cases (see docs/replay.md; recorded
traces go through ``traces to-evalset --mocks``)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from ._app import app
from ._common import echo_text, fail_input, input_errors_exit_2

if TYPE_CHECKING:  # pragma: no cover
    from ..model import EvalSet, ReplayMode

__all__ = ["MocksOption", "checked_mode", "replay_set", "write_replay_set"]

MocksOption = Annotated[
    str,
    typer.Option(
        "--mocks",
        help="How recorded tool results answer the replayed calls: 'strict' (arguments must be the recorded ones, "
        "else the call gets an error) or 'fifo' (the calls of a tool take the recorded results in order).",
        rich_help_panel="Input",
    ),
]


def checked_mode(mode: str) -> ReplayMode:
    """``--mocks`` as a replay mode (exit 2 for anything else)."""
    if mode == "fifo":
        return "fifo"
    if mode == "strict":
        return "strict"
    fail_input(f"--mocks must be 'fifo' or 'strict', not {mode!r}")


def write_replay_set(eval_set: EvalSet, target: Path, fmt: str, warnings: list[str]) -> None:
    """Save the replay set atomically in ``fmt`` and say what was written and what cannot be replayed."""
    from ..formats import save_eval_set

    save_eval_set(eval_set, target, fmt="adk" if fmt == "adk" else "native")
    calls = sum(len(inv.tool_mock.actual) for c in eval_set.eval_cases for inv in c.conversation or [] if inv.tool_mock)
    cases = len(eval_set.eval_cases)
    typer.echo(f"wrote {target} (eval set {eval_set.eval_set_id!r}, {cases} replay case(s), {calls} recorded call(s))")
    for warning in warnings:
        echo_text(f"warning: {warning}", err=True)


@app.command(
    "replay-set",
    epilog="Examples:  agentgauge replay-set RESULT.evalset_result.json calculator_replay.evalset.json\n\n"
    "           agentgauge replay-set recorded.evalset.json replay.evalset.json --mocks fifo --to adk",
)
def replay_set(
    source: Annotated[
        Path,
        typer.Argument(
            readable=False,
            help="A saved result (its actual turns are the recording) or an eval set whose turns carry recorded "
            "tool calls (trace-mode cases: their actualConversation; ADK cases: their intermediate data).",
        ),
    ],
    target: Annotated[Path, typer.Argument(help="The replay eval set to write (atomically).")],
    mocks: MocksOption = "strict",
    eval_set_id: Annotated[
        str | None,
        typer.Option(
            "--eval-set-id",
            help="Eval set id (default: the source's, with _replay for a result).",
            rich_help_panel="Input",
        ),
    ] = None,
    to: Annotated[
        str | None,
        typer.Option(
            "--to", help="Output format: 'native' or 'adk' (default: the source file's own).", rich_help_panel="Output"
        ),
    ] = None,
) -> None:
    """Turn a recorded run into replay cases: the user turns are replayed to the agent, which runs for real, and
    every tool call is answered from the recording (each turn's recorded calls become its toolMock rules, keyed
    by tool name and canonical arguments). Run them with 'agentgauge eval AGENT SET --replay'.
    """
    mode = checked_mode(mocks)
    if to not in (None, "native", "adk"):
        fail_input(f"--to must be 'native' or 'adk', not {to!r}")
    with input_errors_exit_2():
        from ..formats import load_set_or_result
        from ..mocks import replay_eval_set
        from ..storage import check_segment

        loaded, fmt = load_set_or_result(source)
        if eval_set_id is not None:
            check_segment(eval_set_id, "eval set id")
        replay = replay_eval_set(loaded, mode, eval_set_id)
        if not replay.eval_set.eval_cases:
            fail_input(f"{source}: nothing to replay (no case has recorded turns)")
        write_replay_set(replay.eval_set, target, to or fmt, replay.warnings)
