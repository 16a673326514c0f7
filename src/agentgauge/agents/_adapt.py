"""Turn plain Python callables, event generators, ``run`` objects and ADK agents into an :class:`Agent`."""

from __future__ import annotations

import inspect
from collections.abc import AsyncIterable, Callable, Iterator
from typing import Any

from pydantic import ValidationError

from ..errors import AgentError
from ..model import Message
from ._threads import run_in_daemon_thread
from ._types import Agent, AgentOutput, AgentRequest

__all__ = ["CallableAgent", "as_agent", "to_output"]


def _is_async(fn: Callable[..., Any]) -> bool:
    call = getattr(fn, "__call__", None)  # noqa: B004 - callable instances with an async __call__
    return any(inspect.iscoroutinefunction(f) or inspect.isasyncgenfunction(f) for f in (fn, call) if f is not None)


def _is_adk(obj: object) -> bool:
    return any(cls.__module__.startswith("google.adk.") for cls in type(obj).__mro__)


async def to_output(value: object) -> AgentOutput:
    """Normalise whatever an agent returned into an :class:`AgentOutput`.

    Accepts ``str``, :class:`Message`, :class:`AgentOutput`, a dict in AgentOutput form, an awaitable of any of
    these, or an (async) iterable of events (see :mod:`agentgauge.agents._events`). Anything else raises
    :class:`AgentError` naming what was returned.
    """
    if inspect.isawaitable(value):
        value = await value
    if isinstance(value, AgentOutput):
        return value
    if isinstance(value, str | Message):
        return AgentOutput(final_response=value)
    if isinstance(value, AsyncIterable):
        from ._events import collect_events

        return await collect_events(value)
    if isinstance(value, Iterator):
        from ._events import collect_events_sync

        return collect_events_sync(value)
    if isinstance(value, dict):
        try:
            return AgentOutput.model_validate(value)
        except ValidationError as exc:
            first = exc.errors()[0]
            where = ".".join(str(p) for p in first["loc"])
            raise AgentError(f"agent returned a dict that is not an AgentOutput: {where}: {first['msg']}") from None
    raise AgentError(
        f"agent returned {type(value).__name__}: expected str, Message, AgentOutput, a dict in AgentOutput form "
        "or an (async) iterator of events"
    )


def _call_sync(fn: Callable[[AgentRequest], object], request: AgentRequest) -> object:
    value = fn(request)
    # A sync generator is drained here, in the worker thread, so a blocking agent never blocks the event loop.
    if isinstance(value, Iterator) and not isinstance(value, str):
        from ._events import collect_events_sync

        return collect_events_sync(value)
    return value


class CallableAgent:
    """An :class:`Agent` around a Python callable ``fn(request)``.

    ``fn`` may be async (coroutine function or async generator function) or sync. Sync callables run in a worker
    thread so that a blocking agent does not stall the other cases; for high parallelism prefer async agents.
    """

    agentgauge_native = True
    """Marks agents built by this package, which :func:`as_agent` returns unchanged."""

    def __init__(self, fn: Callable[[AgentRequest], object], *, name: str | None = None) -> None:
        self._fn = fn
        self._async = _is_async(fn)
        self.name = name or getattr(fn, "__qualname__", None) or type(fn).__name__

    async def run(self, request: AgentRequest) -> AgentOutput:
        """Call the wrapped function for one user turn and normalise its answer."""
        if self._async:
            return await to_output(self._fn(request))
        return await to_output(await run_in_daemon_thread(_call_sync, self._fn, request))

    def __repr__(self) -> str:
        return f"CallableAgent({self.name})"


def as_agent(obj: object) -> Agent:
    """Wrap ``obj`` as an :class:`Agent`.

    ``obj`` may be:

    - an agent this package built (:class:`OpenAIAgent`, an ADK adapter, a :class:`CallableAgent`): returned as is;
    - a Google ADK agent or ``App`` (any ``google.adk`` object): run through ADK's ``Runner``;
    - an object with a ``run(request)`` method (sync or async, returning any supported output);
    - a callable ``fn(request)``, sync or async, returning ``str`` / :class:`AgentOutput` / :class:`Message`, or
      a (sync or async) generator of events.

    Raises ``TypeError`` for anything else.
    """
    if getattr(obj, "agentgauge_native", False) and isinstance(obj, Agent):
        return obj
    if _is_adk(obj):
        from ._adk import AdkAgent

        return AdkAgent(obj)
    run = getattr(obj, "run", None)
    if callable(run):
        return CallableAgent(run, name=type(obj).__name__)
    if callable(obj):
        return CallableAgent(obj)
    raise TypeError(
        f"{type(obj).__name__} is not an agent: expected a callable, an object with a run(request) method "
        "or a Google ADK agent"
    )
