"""The eight callback points of an evaluation, their arguments, and the registry that runs them.

A callback is ``fn(context, args)``, sync or async. It may return ``None`` (keep the current context) or a
:class:`CallbackResult` whose ``context`` replaces the context for the following callbacks of the same point and
for every later stage. Raising aborts the point with :class:`CallbackError`
``"<Point> callback[<idx>] (<name>): <error>"``. An error in ``BeforeInferenceCase`` / ``AfterInferenceCase``
fails only that case; at every other point it aborts the evaluation.
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, TypeVar

from ..errors import AgentgaugeError
from ..model import EvalCaseResult
from ._types import EvalSetRunResult, EvaluateRequest, InferenceRequest, InferenceResult

__all__ = [
    "POINTS",
    "AfterEvaluateCaseArgs",
    "AfterEvaluateSetArgs",
    "AfterInferenceCaseArgs",
    "AfterInferenceSetArgs",
    "BeforeEvaluateCaseArgs",
    "BeforeEvaluateSetArgs",
    "BeforeInferenceCaseArgs",
    "BeforeInferenceSetArgs",
    "Callback",
    "CallbackContext",
    "CallbackError",
    "CallbackFn",
    "CallbackResult",
    "Callbacks",
]

CallbackContext = Mapping[str, Any]
"""The value callbacks pass along the pipeline (an empty mapping unless a callback replaces it)."""


class CallbackError(AgentgaugeError):
    """A callback raised or returned something invalid; the message names the point, index and name."""


@dataclass(frozen=True, slots=True)
class CallbackResult:
    """Optional return value of a callback: ``context`` (when not ``None``) replaces the current context."""

    context: CallbackContext | None = None


@dataclass
class BeforeInferenceSetArgs:
    """Before the inference phase of a run; ``request`` may be modified."""

    request: InferenceRequest


@dataclass
class AfterInferenceSetArgs:
    """After the inference phase of a run: every case's inference result (in eval-set order)."""

    request: InferenceRequest
    results: list[InferenceResult]
    error: BaseException | None
    start_time: float


@dataclass
class BeforeInferenceCaseArgs:
    """Before one case's inference, with the session id it will use."""

    request: InferenceRequest
    eval_case_id: str
    session_id: str


@dataclass
class AfterInferenceCaseArgs:
    """After one case's inference; a failed case has ``result.status == failed`` and ``result.error_message``."""

    request: InferenceRequest
    result: InferenceResult
    error: BaseException | None
    start_time: float


@dataclass
class BeforeEvaluateSetArgs:
    """Before the evaluation phase of a run. With the streaming pipeline of
    :class:`~agentgauge.run._evaluator.AgentEvaluator`, ``request.inference_results`` fills as cases finish."""

    request: EvaluateRequest


@dataclass
class AfterEvaluateSetArgs:
    """After the evaluation phase of a run."""

    request: EvaluateRequest
    result: EvalSetRunResult | None
    error: BaseException | None
    start_time: float


@dataclass
class BeforeEvaluateCaseArgs:
    """Before one case is scored."""

    request: EvaluateRequest
    eval_case_id: str


@dataclass
class AfterEvaluateCaseArgs:
    """After one case is scored (``result.final_eval_status`` / ``result.error_message`` tell how it went)."""

    request: EvaluateRequest
    inference_result: InferenceResult
    result: EvalCaseResult
    error: BaseException | None
    start_time: float


A = TypeVar("A")
CallbackFn = Callable[[CallbackContext, A], "CallbackResult | Awaitable[CallbackResult | None] | None"]
"""A callback function for arguments of type ``A``."""

POINTS: dict[str, str] = {
    "before_inference_set": "BeforeInferenceSet",
    "after_inference_set": "AfterInferenceSet",
    "before_inference_case": "BeforeInferenceCase",
    "after_inference_case": "AfterInferenceCase",
    "before_evaluate_set": "BeforeEvaluateSet",
    "after_evaluate_set": "AfterEvaluateSet",
    "before_evaluate_case": "BeforeEvaluateCase",
    "after_evaluate_case": "AfterEvaluateCase",
}
"""Attribute name → point name used in error messages."""


@dataclass
class Callback:
    """A named group of callbacks; each non-``None`` field is registered at its point."""

    before_inference_set: CallbackFn[BeforeInferenceSetArgs] | None = None
    after_inference_set: CallbackFn[AfterInferenceSetArgs] | None = None
    before_inference_case: CallbackFn[BeforeInferenceCaseArgs] | None = None
    after_inference_case: CallbackFn[AfterInferenceCaseArgs] | None = None
    before_evaluate_set: CallbackFn[BeforeEvaluateSetArgs] | None = None
    after_evaluate_set: CallbackFn[AfterEvaluateSetArgs] | None = None
    before_evaluate_case: CallbackFn[BeforeEvaluateCaseArgs] | None = None
    after_evaluate_case: CallbackFn[AfterEvaluateCaseArgs] | None = None


@dataclass
class Callbacks:
    """Callbacks per point, run in registration order."""

    _entries: dict[str, list[tuple[str, Callable[..., Any]]]] = field(
        default_factory=lambda: {point: [] for point in POINTS}
    )

    def register(self, name: str, callback: object) -> Callbacks:
        """Register every callback ``callback`` defines (a :class:`Callback` or any object with the same
        attributes) under ``name``. Returns ``self`` for chaining."""
        for point in POINTS:
            fn = getattr(callback, point, None)
            if fn is not None:
                self._add(point, name, fn)
        return self

    def _add(self, point: str, name: str, fn: Callable[..., Any]) -> Callbacks:
        if not callable(fn):
            raise TypeError(f"{POINTS[point]} callback {name!r} is not callable")
        self._entries[point].append((name, fn))
        return self

    def register_before_inference_set(self, name: str, fn: CallbackFn[BeforeInferenceSetArgs]) -> Callbacks:
        """Register one ``BeforeInferenceSet`` callback."""
        return self._add("before_inference_set", name, fn)

    def register_after_inference_set(self, name: str, fn: CallbackFn[AfterInferenceSetArgs]) -> Callbacks:
        """Register one ``AfterInferenceSet`` callback."""
        return self._add("after_inference_set", name, fn)

    def register_before_inference_case(self, name: str, fn: CallbackFn[BeforeInferenceCaseArgs]) -> Callbacks:
        """Register one ``BeforeInferenceCase`` callback."""
        return self._add("before_inference_case", name, fn)

    def register_after_inference_case(self, name: str, fn: CallbackFn[AfterInferenceCaseArgs]) -> Callbacks:
        """Register one ``AfterInferenceCase`` callback."""
        return self._add("after_inference_case", name, fn)

    def register_before_evaluate_set(self, name: str, fn: CallbackFn[BeforeEvaluateSetArgs]) -> Callbacks:
        """Register one ``BeforeEvaluateSet`` callback."""
        return self._add("before_evaluate_set", name, fn)

    def register_after_evaluate_set(self, name: str, fn: CallbackFn[AfterEvaluateSetArgs]) -> Callbacks:
        """Register one ``AfterEvaluateSet`` callback."""
        return self._add("after_evaluate_set", name, fn)

    def register_before_evaluate_case(self, name: str, fn: CallbackFn[BeforeEvaluateCaseArgs]) -> Callbacks:
        """Register one ``BeforeEvaluateCase`` callback."""
        return self._add("before_evaluate_case", name, fn)

    def register_after_evaluate_case(self, name: str, fn: CallbackFn[AfterEvaluateCaseArgs]) -> Callbacks:
        """Register one ``AfterEvaluateCase`` callback."""
        return self._add("after_evaluate_case", name, fn)

    def names(self, point: str) -> list[str]:
        """The names registered at ``point`` (attribute form, e.g. ``"before_inference_set"``), in order."""
        return [name for name, _ in self._entries[point]]

    async def run(self, point: str, context: CallbackContext, args: object) -> CallbackContext:
        """Run the callbacks of ``point`` in order and return the (possibly replaced) context.

        Raises :class:`CallbackError` on the first callback that raises or returns something other than
        ``None`` / :class:`CallbackResult`.
        """
        for index, (name, fn) in enumerate(self._entries[point]):
            prefix = f"{POINTS[point]} callback[{index}] ({name})"
            try:
                result = fn(context, args)
                if inspect.isawaitable(result):
                    result = await result
            except Exception as exc:
                raise CallbackError(f"{prefix}: {exc}") from exc
            if result is None:
                continue
            if not isinstance(result, CallbackResult):
                raise CallbackError(f"{prefix}: returned {type(result).__name__}, expected CallbackResult or None")
            if result.context is not None:
                context = result.context
        return context
