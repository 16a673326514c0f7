"""Where one invocation's time goes: intervals spent in model calls and in tools, measured while the agent runs.

The run engine opens a :class:`TurnClock` around each ``agent.run`` call. Code that knows it is calling a model or
a tool records the interval it occupied (:func:`time_model` / :func:`time_tool`, or :meth:`TurnClock.add`);
agents that see every model call and every tool of a turn (the OpenAI-compatible agent, the ADK adapter) declare so
with :func:`measures`, which makes "no interval" mean zero seconds rather than "not measured".

Overlapping intervals count once (tools may run concurrently, a tool may await a model), and time a tool spent
awaiting a model is model time, as in ADK's ``Invocation.model_duration`` / ``tool_duration``.
"""

from __future__ import annotations

import contextlib
import time
from contextvars import ContextVar, Token
from dataclasses import dataclass, field

__all__ = ["TurnClock", "current_clock", "measures", "time_model", "time_tool", "turn_clock"]


def _union(intervals: list[tuple[float, float]]) -> list[tuple[float, float]]:
    merged: list[tuple[float, float]] = []
    for start, end in sorted(intervals):
        if merged and start <= merged[-1][1]:
            if end > merged[-1][1]:
                merged[-1] = (merged[-1][0], end)
        else:
            merged.append((start, end))
    return merged


def _length(intervals: list[tuple[float, float]]) -> float:
    return sum(end - start for start, end in intervals)


def _overlap(a: list[tuple[float, float]], b: list[tuple[float, float]]) -> float:
    # Both lists are merged and sorted: one linear sweep.
    total, i, j = 0.0, 0, 0
    while i < len(a) and j < len(b):
        start, end = max(a[i][0], b[j][0]), min(a[i][1], b[j][1])
        if end > start:
            total += end - start
        if a[i][1] < b[j][1]:
            i += 1
        else:
            j += 1
    return total


@dataclass(slots=True)
class TurnClock:
    """Model and tool intervals of one invocation (``time.monotonic`` seconds)."""

    model: list[tuple[float, float]] = field(default_factory=list)
    tools: list[tuple[float, float]] = field(default_factory=list)
    sees_all_models: bool = False
    sees_all_tools: bool = False

    def add(self, kind: str, start: float, end: float) -> None:
        """Record that a ``"model"`` call or a ``"tool"`` ran from ``start`` to ``end``."""
        (self.model if kind == "model" else self.tools).append((start, max(start, end)))

    def model_seconds(self) -> float | None:
        """Seconds with at least one model call in flight; ``None`` when model calls were not measured."""
        if not self.model and not self.sees_all_models:
            return None
        return _length(_union(self.model))

    def tool_seconds(self) -> float | None:
        """Seconds inside a tool but not awaiting a model; ``None`` when tools were not measured."""
        if not self.tools and not self.sees_all_tools:
            return None
        tools = _union(self.tools)
        return max(_length(tools) - _overlap(tools, _union(self.model)), 0.0)


_CLOCK: ContextVar[TurnClock | None] = ContextVar("agentgauge_turn_clock", default=None)


def current_clock() -> TurnClock | None:
    """The clock of the invocation being run in this context, if any."""
    return _CLOCK.get()


class _ClockScope:
    """The context manager of :func:`turn_clock` (a class: it is entered for every invocation of a run)."""

    __slots__ = ("_clock", "_token")

    def __init__(self) -> None:
        self._clock = TurnClock()
        self._token: Token[TurnClock | None] | None = None

    def __enter__(self) -> TurnClock:
        self._token = _CLOCK.set(self._clock)
        return self._clock

    def __exit__(self, *exc_info: object) -> None:
        if self._token is not None:
            _CLOCK.reset(self._token)
            self._token = None


def turn_clock() -> contextlib.AbstractContextManager[TurnClock]:
    """Open a fresh clock for one invocation (the run engine does this around ``agent.run``)."""
    return _ClockScope()


def measures(*, models: bool = False, tools: bool = False) -> None:
    """Declare that the running agent records every model call (``models``) / every tool (``tools``) of the turn."""
    clock = _CLOCK.get()
    if clock is not None:
        clock.sees_all_models = clock.sees_all_models or models
        clock.sees_all_tools = clock.sees_all_tools or tools


class _Interval:
    """Records the time spent inside the ``with`` block on the clock current when it was entered."""

    __slots__ = ("_clock", "_kind", "_start")

    def __init__(self, kind: str) -> None:
        self._kind = kind
        self._clock: TurnClock | None = None
        self._start = 0.0

    def __enter__(self) -> None:
        self._clock = _CLOCK.get()
        self._start = time.monotonic()

    def __exit__(self, *exc_info: object) -> None:
        if self._clock is not None:
            self._clock.add(self._kind, self._start, time.monotonic())


def _interval(kind: str) -> contextlib.AbstractContextManager[None]:
    return _Interval(kind)


def time_model() -> contextlib.AbstractContextManager[None]:
    """``with time_model(): ...`` records the block as time awaiting a model."""
    return _interval("model")


def time_tool() -> contextlib.AbstractContextManager[None]:
    """``with time_tool(): ...`` records the block as time inside a tool."""
    return _interval("tool")
