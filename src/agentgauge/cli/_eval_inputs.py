"""Checks of ``agentgauge eval``'s arguments that name what was given and what was expected."""

from __future__ import annotations

from pathlib import Path

__all__ = ["check_set_args"]


_USAGE = "usage: agentgauge eval [AGENT] EVAL_SET[:case1,case2]..."
_EVAL_SET_FILE = "an eval set file (.evalset.json, .test.json or a trpc-agent-go eval set)"


def check_set_args(agent_spec: str | None, set_args: list[str]) -> None:
    """Refuse arguments that cannot be eval sets, naming the argument and what was expected."""
    from ..errors import InputError

    if not set_args:
        if agent_spec is not None and Path(agent_spec).is_dir():
            raise InputError(
                f"no eval set given: {agent_spec} is a directory, so it was taken as the agent (an ADK agent "
                f"directory); EVAL_SET must be {_EVAL_SET_FILE}, given after the agent; {_USAGE}"
            )
        raise InputError(f"no eval set given: {_USAGE}")
    for arg in set_args:
        if agent_spec is None and (arg.endswith(".py") or Path(arg).is_dir()):
            raise InputError(
                f"{arg}: this looks like an agent, but the agent comes first: "
                "agentgauge eval AGENT EVAL_SET[:case1,case2]..."
            )
        if Path(arg).is_dir():
            raise InputError(f"{arg}: is a directory, not an eval set: EVAL_SET must be {_EVAL_SET_FILE}; {_USAGE}")
        if arg.endswith(".py"):
            raise InputError(
                f"{arg}: a Python file, not an eval set (the agent is {agent_spec}): EVAL_SET must be "
                f"{_EVAL_SET_FILE}; {_USAGE}"
            )
