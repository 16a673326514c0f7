"""Matching tool calls against mock rules and producing the mocked results."""

from __future__ import annotations

import asyncio
import functools
import inspect
import json
from collections.abc import Awaitable, Callable
from contextlib import AbstractContextManager
from contextvars import ContextVar, Token
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol, TypeVar, cast

from ..errors import AgentError
from ..model import Invocation, ToolMockArguments, ToolMockRule
from ._replay import ReplayLedger

__all__ = [
    "ActiveMocks",
    "MockResultGenerator",
    "ToolMockError",
    "active_mocks",
    "mockable",
    "mocked_call",
    "mocks_for",
    "parse_generated",
    "use_mocks",
]

F = TypeVar("F", bound=Callable[..., Any])

Side = Literal["actual", "expected"]


class ToolMockError(AgentError):
    """A mocked tool was called and no rule matched (or its result could not be generated): the turn fails."""


class MockResultGenerator(Protocol):
    """Produces an ``llmGenerator`` result: ``prompt`` is the instruction, ``arguments`` the call's JSON text."""

    async def generate(self, prompt: str, arguments: str) -> str:
        """The model's raw answer."""
        ...


def parse_generated(text: str) -> Any:
    """A generated result: the answer parsed as JSON when it is JSON, else the text; empty or ``null`` is refused."""
    content = text.strip()
    if not content:
        raise ToolMockError("generated tool result is empty")
    try:
        value = json.loads(content)
    except ValueError:
        return content
    if value is None:
        raise ToolMockError("generated tool result cannot be null")
    return value


def _arguments_match(actual: Any, arguments: ToolMockArguments | None) -> tuple[bool, str]:
    if arguments is None or arguments.ignore:
        return True, ""
    from ..criteria import CriterionError, JSONCriterion

    try:
        criterion = JSONCriterion(
            only_tree=arguments.only_tree or None,
            ignore_tree=arguments.ignore_tree or None,
            number_tolerance=arguments.number_tolerance or 0.0,
        )
    except (CriterionError, ValueError) as exc:
        return False, str(exc)
    result = criterion.match(actual, arguments.expected)
    return result.ok, result.reason


@dataclass
class ActiveMocks:
    """The mock rules in force during one agent turn, by tool name, in configuration order.

    ``fallthrough`` names tools whose unmatched calls still run for real (ADK's legacy ``mock_tool_output``);
    for every other mocked tool an unmatched call fails the turn. ``generator`` produces ``llmGenerator`` results.
    With ``replay`` (a replayed turn, ``toolMock.replay``) the recording answers every tool call instead.
    """

    rules: dict[str, list[ToolMockRule]] = field(default_factory=dict)
    generator: MockResultGenerator | None = None
    fallthrough: frozenset[str] = frozenset()
    loop: asyncio.AbstractEventLoop | None = None
    replay: ReplayLedger | None = None

    def mocks(self, name: str) -> bool:
        """Whether calls of ``name`` are answered here (during a replay, every tool's are)."""
        return self.replay is not None or name in self.rules

    def _pick(self, name: str, arguments: Any) -> ToolMockRule | None:
        reasons: list[str] = []
        for rule in self.rules.get(name, ()):
            ok, reason = _arguments_match(arguments, rule.arguments)
            if ok:
                return rule
            if reason:
                reasons.append(reason)
        if name in self.fallthrough:
            return None
        detail = f": {reasons[-1]}" if reasons else ""
        raise ToolMockError(f"tool {name!r} is mocked but no rule matched its arguments {_short(arguments)}{detail}")

    async def resolve(self, name: str, arguments: Any) -> tuple[bool, Any]:
        """``(True, result)`` when a rule replaces this call, ``(False, None)`` when the tool runs for real.

        Raises :class:`ToolMockError` for a mocked tool without a matching rule or a failed generation.
        """
        if self.replay is not None:
            return True, self.replay.answer(name, arguments)
        if name not in self.rules:
            return False, None
        rule = self._pick(name, arguments)
        if rule is None:
            return False, None
        if rule.llm_generator is None:
            return True, rule.result
        if self.generator is None:
            raise ToolMockError(
                f"tool {name!r}: an llmGenerator mock needs a model (--simulator-model, or a tool mock generator "
                "passed to the evaluator)"
            )
        payload = json.dumps({} if arguments is None else arguments, ensure_ascii=False, default=str)
        try:
            answer = await self.generator.generate(rule.llm_generator.prompt, payload)
        except ToolMockError:
            raise
        except Exception as exc:
            raise ToolMockError(f"generate tool {name!r} mock result: {exc}") from None
        try:
            return True, parse_generated(answer)
        except ToolMockError as exc:
            raise ToolMockError(f"generate tool {name!r} mock result: {exc}") from None

    def resolve_sync(self, name: str, arguments: Any) -> tuple[bool, Any]:
        """:meth:`resolve` from synchronous tool code running in a worker thread (not on the event loop)."""
        if self.replay is not None:
            return True, self.replay.answer(name, arguments)
        if name not in self.rules:
            return False, None
        rule = self._pick(name, arguments)
        if rule is None:
            return False, None
        if rule.llm_generator is None:
            return True, rule.result
        loop = self.loop
        try:
            running = asyncio.get_running_loop()
        except RuntimeError:
            running = None
        if loop is None or running is loop:
            raise ToolMockError(
                f"tool {name!r}: an llmGenerator mock cannot run from a synchronous tool on the event loop; "
                "make the tool async"
            )
        return asyncio.run_coroutine_threadsafe(self.resolve(name, arguments), loop).result()


def _short(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= 200 else text[:197] + "..."


_ACTIVE: ContextVar[ActiveMocks | None] = ContextVar("agentgauge_active_mocks", default=None)


def active_mocks() -> ActiveMocks | None:
    """The mocks of the agent turn running in this context, if any."""
    return _ACTIVE.get()


class _MockScope:
    """The context manager of :func:`use_mocks` (a class: it is entered for every invocation of a run)."""

    __slots__ = ("_mocks", "_token")

    def __init__(self, mocks: ActiveMocks | None) -> None:
        self._mocks = mocks
        self._token: Token[ActiveMocks | None] | None = None

    def __enter__(self) -> None:
        self._token = _ACTIVE.set(self._mocks)

    def __exit__(self, *exc_info: object) -> None:
        if self._token is not None:
            _ACTIVE.reset(self._token)
            self._token = None


def use_mocks(mocks: ActiveMocks | None) -> AbstractContextManager[None]:
    """Make ``mocks`` the active mocks inside the block (``None``: no mocks)."""
    return _MockScope(mocks)


def _legacy_rules(invocation: Invocation) -> list[ToolMockRule]:
    # ADK's old .test.json rows: {tool_name, tool_input, mock_tool_output}; ADK replaced a call with the same name
    # and equal arguments by the output and let any other call run.
    rules = []
    for tool in invocation.tools:
        extra = tool.__pydantic_extra__ or {}
        if "mock_tool_output" not in extra or extra["mock_tool_output"] is None:
            continue
        expected = tool.arguments if tool.arguments is not None else {}
        rules.append(
            ToolMockRule(
                name=tool.name, arguments=ToolMockArguments(expected=expected), result=extra["mock_tool_output"]
            )
        )
    return rules


def mocks_for(
    invocation: Invocation | None, side: Side, generator: MockResultGenerator | None = None
) -> ActiveMocks | None:
    """The mocks of ``invocation`` for the ``actual`` or ``expected`` agent, or ``None`` when it has none.

    On the actual side, ADK's legacy ``mock_tool_output`` of the invocation's tools become static rules (equal
    arguments), for tools without a ``toolMock`` rule; unmatched calls of those tools run for real, as in ADK. A
    replayed turn (``toolMock.replay``) gets a :class:`ReplayLedger` over its ``actual`` rules instead.
    """
    if invocation is None:
        return None
    configured = invocation.tool_mock
    if configured is not None and configured.replay is not None and side == "actual":
        return ActiveMocks(replay=ReplayLedger(configured.replay, list(configured.actual)))
    if configured is None and (side != "actual" or not any(tool.__pydantic_extra__ for tool in invocation.tools)):
        return None  # the common case, checked first: it is asked for every turn of a run
    rules: dict[str, list[ToolMockRule]] = {}
    for rule in getattr(configured, side, None) or []:
        rules.setdefault(rule.name, []).append(rule)
    fallthrough: set[str] = set()
    if side == "actual":
        for rule in _legacy_rules(invocation):
            if rule.name in rules and rule.name not in fallthrough:
                continue
            rules.setdefault(rule.name, []).append(rule)
            fallthrough.add(rule.name)
    if not rules:
        return None
    try:
        loop: asyncio.AbstractEventLoop | None = asyncio.get_running_loop()
    except RuntimeError:
        loop = None
    return ActiveMocks(rules, generator, frozenset(fallthrough), loop)


async def mocked_call(name: str, arguments: Any, call: Callable[[], Awaitable[Any]]) -> Any:
    """The active mock's result for this call of ``name``, else ``await call()`` (the real tool)."""
    mocks = _ACTIVE.get()
    if mocks is not None:
        hit, result = await mocks.resolve(name, arguments)
        if hit:
            return result
    return await call()


def _bound_arguments(fn: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any]) -> dict[str, Any]:
    try:
        bound = inspect.signature(fn).bind(*args, **kwargs)
    except TypeError:
        return dict(kwargs)
    return dict(bound.arguments)


def mockable(fn: F | None = None, *, name: str | None = None) -> Any:
    """Decorate a tool function of a Python agent so that eval-set tool mocks apply to it.

    ``@mockable`` (or ``@mockable(name="get_weather")``) works on sync and async functions; the tool name defaults
    to the function's name and the arguments are its bound parameters. Outside a mocked turn it just calls the
    function.
    """

    def wrap(func: F) -> F:
        tool_name = name or func.__name__
        if inspect.iscoroutinefunction(func):

            @functools.wraps(func)
            async def run_async(*args: Any, **kwargs: Any) -> Any:
                mocks = _ACTIVE.get()
                if mocks is not None and mocks.mocks(tool_name):
                    hit, result = await mocks.resolve(tool_name, _bound_arguments(func, args, kwargs))
                    if hit:
                        return result
                return await func(*args, **kwargs)

            return cast(F, run_async)

        @functools.wraps(func)
        def run_sync(*args: Any, **kwargs: Any) -> Any:
            mocks = _ACTIVE.get()
            if mocks is not None and mocks.mocks(tool_name):
                hit, result = mocks.resolve_sync(tool_name, _bound_arguments(func, args, kwargs))
                if hit:
                    return result
            return func(*args, **kwargs)

        return cast(F, run_sync)

    if fn is not None:
        return wrap(fn)
    return wrap
