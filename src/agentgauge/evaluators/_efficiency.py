"""Google ADK's informational efficiency metrics: ``tool_call_count_v1``, ``inference_call_count_v1``,
``token_usage_v1`` and ``invocation_duration_v1``.

They report what a turn cost rather than how good it was, per invocation, from what the run recorded (tool calls,
``usage``, ``duration``/``model_duration``/``tool_duration``). Every status is ``informational``: they never pass
or fail a case, and a threshold has no effect. The overall score is the mean of the per-invocation values that
exist; ``None`` means "not measured", never zero. Semantics follow ADK 2.13's ``_efficiency_evaluators``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from ..model import EvalMetric, EvalStatus, Invocation
from ._base import EvaluateResult, NamedEvaluator, PerInvocationResult

__all__ = ["EFFICIENCY_METRICS", "EfficiencyEvaluator", "efficiency_evaluators"]

INFO = EvalStatus.INFORMATIONAL
TOKEN_FIELDS = (
    "total_tokens",
    "input_tokens",
    "prompt_tokens",
    "cached_tokens",
    "tool_use_tokens",
    "output_tokens",
    "candidates_tokens",
    "reasoning_tokens",
)
"""ADK's ``TokenUsageDetails`` fields, in its order."""
DURATION_FIELDS = ("total_seconds", "model_seconds", "tool_seconds", "framework_seconds")
"""ADK's ``DurationDetails`` fields, in its order."""


def _float(value: int | float | None) -> float | None:
    return None if value is None else float(value)


def tool_calls(inv: Invocation) -> float | None:
    """Tool calls of the turn (0 when none)."""
    return float(len(inv.tools))


def inference_calls(inv: Invocation) -> float | None:
    """Model calls of the turn; ``None`` when the run did not count them."""
    return None if inv.usage is None else _float(inv.usage.model_calls)


def token_details(inv: Invocation) -> dict[str, Any]:
    """The turn's token counts by type; the total is input + output as ADK derives it."""
    usage = inv.usage
    if usage is None:
        return dict.fromkeys(TOKEN_FIELDS)
    out: dict[str, Any] = {name: _float(getattr(usage, name)) for name in TOKEN_FIELDS}
    if usage.input_tokens is not None or usage.output_tokens is not None:
        out["total_tokens"] = float((usage.input_tokens or 0) + (usage.output_tokens or 0))
    return out


def duration_details(inv: Invocation) -> dict[str, Any]:
    """Total, model, tool and framework seconds of the turn (all ``None`` when it was not timed)."""
    if inv.duration is None:
        return dict.fromkeys(DURATION_FIELDS)
    model, tool = inv.model_duration, inv.tool_duration
    framework = None if model is None or tool is None else round(max(inv.duration - model - tool, 0.0), 3)
    return {"total_seconds": inv.duration, "model_seconds": model, "tool_seconds": tool, "framework_seconds": framework}


def _mean_tokens(all_details: list[dict[str, Any]]) -> dict[str, Any]:
    # A count missing on some turns is 0 for them (the backend omits counts it did not spend); a count no turn
    # reported stays None. One denominator keeps total = input + output.
    out: dict[str, Any] = {}
    for name in TOKEN_FIELDS:
        present = [d[name] for d in all_details if d[name] is not None]
        out[name] = sum(present) / len(all_details) if present else None
    return out


def _mean_durations(all_details: list[dict[str, Any]]) -> dict[str, Any]:
    # An untimed turn is left out, not counted as a fast one.
    out: dict[str, Any] = {}
    for name in DURATION_FIELDS:
        present = [d[name] for d in all_details if d[name] is not None]
        out[name] = round(sum(present) / len(present), 3) if present else None
    return out


class EfficiencyEvaluator(NamedEvaluator):
    """One informational efficiency metric; reference-free (expected invocations are not used)."""

    needs_expected = False
    needs_judge = False

    def __init__(self, name: str, description: str, value: Callable[[Invocation], float | None]) -> None:
        super().__init__(name, description)
        self._value = value

    async def evaluate(
        self, actuals: Sequence[Invocation], expecteds: Sequence[Invocation], metric: EvalMetric
    ) -> EvaluateResult:
        """Per-invocation values (status informational), overall = mean of the values that exist."""
        pairs = list(zip(actuals, [*expecteds, *([None] * (len(actuals) - len(expecteds)))], strict=True))
        if not pairs:
            return EvaluateResult(None, INFO)
        if self._name == "token_usage_v1":
            details = [token_details(a) for a, _ in pairs]
            per = [
                PerInvocationResult(a, e, d["total_tokens"], INFO, token_usage_details=d)
                for (a, e), d in zip(pairs, details, strict=True)
            ]
            overall = _mean_tokens(details)
            return EvaluateResult(overall["total_tokens"], INFO, per, token_usage_details=overall)
        if self._name == "invocation_duration_v1":
            details = [duration_details(a) for a, _ in pairs]
            per = [
                PerInvocationResult(a, e, d["total_seconds"], INFO, duration_details=d)
                for (a, e), d in zip(pairs, details, strict=True)
            ]
            overall = _mean_durations(details)
            return EvaluateResult(overall["total_seconds"], INFO, per, duration_details=overall)
        per = [PerInvocationResult(a, e, self._value(a), INFO) for a, e in pairs]
        values = [r.score for r in per if r.score is not None]
        return EvaluateResult(sum(values) / len(values) if values else None, INFO, per)


EFFICIENCY_METRICS: dict[str, str] = {
    "tool_call_count_v1": "Informational (ADK): tool calls per invocation; overall = mean per turn",
    "inference_call_count_v1": "Informational (ADK): model calls per invocation; overall = mean per turn",
    "token_usage_v1": "Informational (ADK): tokens per invocation, with a breakdown by type; overall = mean",
    "invocation_duration_v1": "Informational (ADK): seconds per invocation (model / tool / framework split); "
    "overall = mean",
}
"""The four metric names with their one-line descriptions (ADK appends them to every test_config.json)."""


def efficiency_evaluators() -> list[EfficiencyEvaluator]:
    """One evaluator per efficiency metric."""
    values: dict[str, Callable[[Invocation], float | None]] = {
        "tool_call_count_v1": tool_calls,
        "inference_call_count_v1": inference_calls,
        "token_usage_v1": lambda inv: token_details(inv)["total_tokens"],
        "invocation_duration_v1": lambda inv: duration_details(inv)["total_seconds"],
    }
    return [EfficiencyEvaluator(name, text, values[name]) for name, text in EFFICIENCY_METRICS.items()]
