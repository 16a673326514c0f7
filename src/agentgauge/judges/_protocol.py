"""The judge-model extension point and adapters for plain Python callables."""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from ._errors import JudgeError

__all__ = ["CallableJudge", "JudgeMessage", "JudgeModel", "ResponseSchema", "as_judge_model"]

JudgeMessage = Mapping[str, str]
"""A chat message sent to a judge: ``{"role": "user", "content": "..."}``."""


@dataclass(frozen=True, slots=True)
class ResponseSchema:
    """A JSON schema the judge's answer must follow (sent as ``response_format`` where supported)."""

    name: str
    schema: Mapping[str, Any] = field(default_factory=dict)
    strict: bool = True

    def as_dict(self) -> dict[str, Any]:
        """Plain-data form, used in cache keys."""
        return {"name": self.name, "schema": self.schema, "strict": self.strict}


@runtime_checkable
class JudgeModel(Protocol):
    """Anything that answers judge prompts.

    ``complete`` returns the judge's raw text answer; raise :class:`JudgeError` when no answer can be had.
    ``response_schema`` is a hint: implementations that cannot enforce it ignore it (answers are parsed
    tolerantly either way).
    """

    async def complete(
        self,
        messages: Sequence[JudgeMessage],
        *,
        generation_config: Mapping[str, Any],
        response_schema: ResponseSchema | None = None,
    ) -> str:
        """The judge's answer to ``messages``."""
        ...


class CallableJudge:
    """Adapts a Python callable ``(messages) -> str`` (sync or async) to :class:`JudgeModel`.

    Sync callables run in a worker thread so they never block the event loop. Exceptions become
    :class:`JudgeError` naming the callable.
    """

    def __init__(self, fn: Any) -> None:
        if not callable(fn):
            raise TypeError(f"judge must be callable or have an async complete() method, got {type(fn).__name__}")
        self._fn = fn
        self._label = getattr(fn, "__qualname__", None) or type(fn).__name__

    async def complete(
        self,
        messages: Sequence[JudgeMessage],
        *,
        generation_config: Mapping[str, Any],
        response_schema: ResponseSchema | None = None,
    ) -> str:
        """Call the wrapped function with a list of plain ``{"role", "content"}`` dicts."""
        payload = [dict(m) for m in messages]
        try:
            if inspect.iscoroutinefunction(self._fn) or inspect.iscoroutinefunction(
                getattr(self._fn, "__call__", None)  # noqa: B004 - async __call__ on objects
            ):
                result = await self._fn(payload)
            else:
                result = await asyncio.to_thread(self._fn, payload)
                if inspect.isawaitable(result):
                    result = await result
        except JudgeError:
            raise
        except Exception as exc:
            raise JudgeError(f"judge callable {self._label} raised {type(exc).__name__}: {exc}") from exc
        if not isinstance(result, str):
            raise JudgeError(f"judge callable {self._label} returned {type(result).__name__}, expected str")
        return result


def as_judge_model(obj: Any) -> JudgeModel:
    """``obj`` itself when it has an async ``complete`` method, else a :class:`CallableJudge` around it."""
    if isinstance(obj, JudgeModel) and inspect.iscoroutinefunction(obj.complete):
        return obj
    return CallableJudge(obj)
