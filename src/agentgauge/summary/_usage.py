"""Durations, token counts and costs as every report shows them (figures that were not recorded are left out)."""

from __future__ import annotations

from ..model import EvalCaseResult, UsageTotals

__all__ = [
    "case_usage",
    "format_cost",
    "format_duration",
    "format_tokens",
    "usage_parts",
    "usage_text",
]


def case_usage(case: EvalCaseResult) -> UsageTotals:
    """The totals of a case result's actual invocations (the finished turns, for a case that errored)."""
    return UsageTotals.of(per_inv.actual_invocation for per_inv in case.eval_metric_result_per_invocation)


def format_duration(seconds: float | None) -> str:
    """``0.42 s``, ``12.3 s``, ``2 min 05 s``; ``-`` when unknown."""
    if seconds is None:
        return "-"
    if seconds < 10:
        return f"{seconds:.2f} s"
    if seconds < 60:
        return f"{seconds:.1f} s"
    minutes, rest = divmod(round(seconds), 60)
    return f"{minutes} min {rest:02d} s"


def format_tokens(count: int | None) -> str:
    """A token count with thousands separators; ``-`` when unknown."""
    return "-" if count is None else f"{count:,}"


def format_cost(cost: float | None, missing: int = 0) -> str:
    """A cost in the price table's currency, up to six decimals (``0.000123``, ``12.5``); ``-`` when unknown.

    ``missing`` invocations used tokens without a known price: the sum is then a lower bound, shown with ``≥``.
    """
    if cost is None:
        return "-"
    text = f"{cost:.6f}".rstrip("0").rstrip(".") or "0"
    return f"≥{text}" if missing else text


def usage_parts(usage: UsageTotals) -> list[str]:
    """The recorded figures as short phrases: duration (with model / tool time), tokens, model calls, cost."""
    parts: list[str] = []
    if usage.duration is not None:
        split = [
            f"{name} {format_duration(value)}"
            for name, value in (("model", usage.model_duration), ("tools", usage.tool_duration))
            if value is not None
        ]
        parts.append(format_duration(usage.duration) + (f" ({', '.join(split)})" if split else ""))
    elif usage.model_duration is not None or usage.tool_duration is not None:
        parts.append(f"model {format_duration(usage.model_duration)}, tools {format_duration(usage.tool_duration)}")
    if usage.total_tokens is not None:
        split = []
        if usage.input_tokens is not None:
            split.append(f"{format_tokens(usage.input_tokens)} in")
        if usage.output_tokens is not None:
            split.append(f"{format_tokens(usage.output_tokens)} out")
        parts.append(f"{format_tokens(usage.total_tokens)} tokens" + (f" ({' / '.join(split)})" if split else ""))
    if usage.model_calls is not None:
        parts.append(f"{usage.model_calls:,} model call{'s' if usage.model_calls != 1 else ''}")
    if usage.cost is not None:
        parts.append(f"cost {format_cost(usage.cost, usage.cost_missing)}")
    return parts


def usage_text(usage: UsageTotals) -> str:
    """The figures of :func:`usage_parts` joined with `` · `` (``""`` when nothing was recorded)."""
    return " · ".join(usage_parts(usage))
