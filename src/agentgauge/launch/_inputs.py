"""Checks of a request's eval set arguments that name what was given and what was expected."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import InputError

if TYPE_CHECKING:  # pragma: no cover
    from ._request import EvalSetSpec
    from ._surface import Surface

__all__ = ["check_set_args"]

_EVAL_SET_FILE = "an eval set file (.evalset.json, .test.json or a trpc-agent-go eval set)"


def check_set_args(agent: object, sets: Sequence[EvalSetSpec | str], surface: Surface) -> None:
    """Refuse a request without eval sets, and arguments that cannot be eval sets (an agent given after the sets, a
    directory, a Python file), naming the argument and what was expected."""
    usage = surface.name("usage")
    tail = f"; {usage}" if usage else ""
    spec = agent if isinstance(agent, str) else None
    if not sets:
        if spec is not None and Path(spec).is_dir():
            raise InputError(
                f"no eval set given: {spec} is a directory, so it was taken as the agent (an ADK agent directory); "
                f"EVAL_SET must be {_EVAL_SET_FILE}, given after the agent{tail}"
            )
        raise InputError(f"no eval set given{': ' + usage if usage else ''}")
    for arg in (s for s in sets if isinstance(s, str)):
        if agent is None and (arg.endswith(".py") or Path(arg).is_dir()):
            raise InputError(
                f"{arg}: this looks like an agent, but the agent comes first: "
                "agentgauge eval AGENT EVAL_SET[:case1,case2]..."
            )
        if Path(arg).is_dir():
            raise InputError(f"{arg}: is a directory, not an eval set: EVAL_SET must be {_EVAL_SET_FILE}{tail}")
        if arg.endswith(".py"):
            raise InputError(
                f"{arg}: a Python file, not an eval set (the agent is {spec}): EVAL_SET must be {_EVAL_SET_FILE}{tail}"
            )
