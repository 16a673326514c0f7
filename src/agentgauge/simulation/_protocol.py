"""The user-simulator interface and a scripted simulator for tests and offline examples."""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from ..errors import AgentgaugeError
from ..model import ConversationScenario, Invocation, SessionInput
from ._rules import ScenarioRules

__all__ = [
    "ScriptedUserSimulator",
    "SimulatedUser",
    "SimulationContext",
    "SimulationError",
    "UserSimulator",
    "UserTurn",
    "as_user_simulator",
]


class SimulationError(AgentgaugeError):
    """The simulated user could not produce a message (the case fails with this reason)."""


@dataclass(frozen=True)
class SimulationContext:
    """What a simulator gets when a simulated conversation starts (one per case, run and driven agent)."""

    eval_id: str
    scenario: ConversationScenario
    rules: ScenarioRules
    session_input: SessionInput | None = None


@dataclass(frozen=True)
class UserTurn:
    """What the simulated user reacts to: the agent's last reply (``""`` before the first turn) and the
    conversation so far. ``index`` is the number of user messages already sent."""

    index: int
    last_agent_message: str
    history: list[Invocation] = field(default_factory=list)


@runtime_checkable
class SimulatedUser(Protocol):
    """One simulated user in one conversation."""

    async def next_message(self, turn: UserTurn) -> str | None:
        """The next user message; ``None`` ends the conversation. The run applies the scenario's stop signal."""
        ...


@runtime_checkable
class UserSimulator(Protocol):
    """Starts a :class:`SimulatedUser` for each simulated conversation."""

    def start(self, context: SimulationContext) -> SimulatedUser:
        """A fresh simulated user for ``context``."""
        ...


class _Script:
    def __init__(self, replies: Sequence[str]) -> None:
        self._replies = list(replies)
        self._next = 0

    async def next_message(self, turn: UserTurn) -> str | None:
        if self._next >= len(self._replies):
            return None
        reply = self._replies[self._next]
        self._next += 1
        return reply


class ScriptedUserSimulator:
    """A simulated user that says prepared lines, in order, then stops.

    ``script`` is one list of replies for every case, or a mapping from eval id to replies (a case without an entry
    stops at once). The scenario's starting prompt is sent before the script; a line matching the stop signal ends
    the conversation like any simulated message.
    """

    def __init__(self, script: Sequence[str] | Mapping[str, Sequence[str]]) -> None:
        if isinstance(script, str):
            raise TypeError("script must be a list of replies or a mapping of eval id to replies, not a string")
        self.script = script

    def start(self, context: SimulationContext) -> SimulatedUser:
        """A user saying the lines for ``context.eval_id``."""
        if isinstance(self.script, Mapping):
            return _Script(self.script.get(context.eval_id, ()))
        return _Script(self.script)


class _FunctionUser:
    def __init__(self, fn: Callable[..., Any], context: SimulationContext) -> None:
        self._fn = fn
        self._context = context

    async def next_message(self, turn: UserTurn) -> str | None:
        value = self._fn(self._context, turn)
        if inspect.isawaitable(value):
            value = await value
        if value is not None and not isinstance(value, str):
            raise SimulationError(f"user simulator returned {type(value).__name__}, expected str or None")
        return value


class _FunctionSimulator:
    def __init__(self, fn: Callable[..., Any]) -> None:
        self._fn = fn

    def start(self, context: SimulationContext) -> SimulatedUser:
        return _FunctionUser(self._fn, context)


def as_user_simulator(obj: object) -> UserSimulator:
    """``obj`` as a :class:`UserSimulator`: a simulator (has ``start``), a list or mapping of scripted replies, or
    a function ``(context, turn) -> str | None`` (sync or async)."""
    if isinstance(obj, UserSimulator):
        return obj
    if isinstance(obj, Mapping) or (isinstance(obj, Sequence) and not isinstance(obj, str)):
        return ScriptedUserSimulator(obj)
    if callable(obj):
        return _FunctionSimulator(obj)
    raise TypeError(
        f"{type(obj).__name__} is not a user simulator: expected an object with start(context), a list of replies "
        "or a function (context, turn) -> str | None"
    )
