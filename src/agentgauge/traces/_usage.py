"""What a turn cost, read from its spans: token usage (``gen_ai.usage.*``), model-call count and span times.

This is what ADK's efficiency metrics (``tool_call_count_v1``, ``inference_call_count_v1``, ``token_usage_v1``,
``invocation_duration_v1``) read from an invocation, so a recorded trace reports them like a live run does.

Token attributes, per model-call span (the first key present wins):

- input: ``gen_ai.usage.input_tokens`` (GenAI semantic conventions, ADK), ``gen_ai.usage.prompt_tokens``
  (OpenLLMetry, older conventions);
- output: ``gen_ai.usage.output_tokens``, ``gen_ai.usage.completion_tokens``;
- cache read: ``gen_ai.usage.cache_read.input_tokens`` (GenAI conventions, ADK 2.x),
  ``gen_ai.usage.cache_read_input_tokens`` (OpenLLMetry); cache writes: ``gen_ai.usage.cache_creation.input_tokens``,
  ``gen_ai.usage.cache_creation_input_tokens``;
- reasoning: ``gen_ai.usage.reasoning.output_tokens``, ``gen_ai.usage.reasoning_tokens``;
- OpenInference: ``llm.token_count.prompt`` / ``.completion`` / ``.prompt_details.cache_read`` /
  ``.prompt_details.cache_write`` / ``.completion_details.reasoning``.

A model-call span nested in another (an OpenAI client span inside ADK 1.x's ``call_llm``) is the same call seen by a
second instrumentation: it is not counted again, but fills the counts the outer span lacks (ADK 1.x records input
and output tokens, the OpenAI instrumentation under it the cached part).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ..model import Invocation, TokenUsage
from ._spans import Span, ancestor_test

__all__ = ["TurnCost", "span_model", "span_seconds", "span_usage", "spans_tokens", "turn_cost", "turn_tokens"]

_KEYS: dict[str, tuple[str, ...]] = {
    "input_tokens": (
        "gen_ai.usage.input_tokens",
        "gen_ai.usage.prompt_tokens",
        "llm.usage.prompt_tokens",
        "llm.token_count.prompt",
    ),
    "output_tokens": (
        "gen_ai.usage.output_tokens",
        "gen_ai.usage.completion_tokens",
        "llm.usage.completion_tokens",
        "llm.token_count.completion",
    ),
    "cached_tokens": (
        "gen_ai.usage.cache_read.input_tokens",
        "gen_ai.usage.cache_read_input_tokens",
        "llm.token_count.prompt_details.cache_read",
    ),
    "cache_creation_tokens": (
        "gen_ai.usage.cache_creation.input_tokens",
        "gen_ai.usage.cache_creation_input_tokens",
        "llm.token_count.prompt_details.cache_write",
    ),
    "reasoning_tokens": (
        "gen_ai.usage.reasoning.output_tokens",
        "gen_ai.usage.reasoning_tokens",
        "llm.token_count.completion_details.reasoning",
    ),
}
"""TokenUsage field -> span attributes that hold it, preferred first."""


def _count(value: Any) -> int | None:
    # Exporters write integers as int, float or string (Jaeger tags, OTLP intValue as a JSON string).
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value if value >= 0 else None
    if isinstance(value, float) and value.is_integer() and value >= 0:
        return int(value)
    if isinstance(value, str) and value.strip().isdigit():
        return int(value.strip())
    return None


def span_usage(span: Span) -> dict[str, int]:
    """The token counts one span records, by :class:`~agentgauge.model.TokenUsage` field (absent ones left out)."""
    out: dict[str, int] = {}
    for name, keys in _KEYS.items():
        for key in keys:
            value = _count(span.attributes.get(key))
            if value is not None:
                out[name] = value
                break
    return out


def span_model(span: Span) -> str:
    """The model a span called (``gen_ai.response.model``, else ``gen_ai.request.model``), ``""`` when unknown."""
    for key in ("gen_ai.response.model", "gen_ai.request.model", "llm.model_name"):  # the last: OpenInference's
        value = span.attributes.get(key)
        if isinstance(value, str) and value:
            return value
    return ""


def span_seconds(span: Span) -> float | None:
    """The span's duration in seconds, ``None`` when its times are missing or inverted."""
    if not span.start_ns or not span.end_ns or span.end_ns < span.start_ns:
        return None
    return (span.end_ns - span.start_ns) / 1e9


@dataclass(slots=True)
class TurnCost:
    """A turn's usage and times: ``usage`` (``None`` when it made no model call), wall ``duration`` and the time
    inside model and tool calls, in seconds rounded to milliseconds as ADK records them."""

    usage: TokenUsage | None
    duration: float | None
    model_duration: float | None
    tool_duration: float | None


def _call_usage(span: Span, llm_spans: set[int]) -> dict[str, int]:
    counts = span_usage(span)
    for inner in span.descendants():
        if id(inner) in llm_spans:
            continue  # a separate call of the turn, counted on its own
        for name, value in span_usage(inner).items():
            counts.setdefault(name, value)
    return counts


def _sum_seconds(spans: Sequence[Span]) -> float | None:
    values = [s for s in (span_seconds(span) for span in spans) if s is not None]
    return round(sum(values), 3) if values else None


def turn_cost(anchor: Span | None, llms: Sequence[Span], tools: Sequence[Span], members: Sequence[Span]) -> TurnCost:
    """The usage and times of one turn.

    ``llms`` are the turn's model calls (outermost LLM spans, each counted once; spans inside them only fill
    missing counts), ``tools`` its tool spans, ``members`` every span of the turn. The wall time is the anchor
    (agent) span's duration, else the extent of the turn's spans.
    """
    counted = {id(s) for s in llms}
    totals: dict[str, int] = {}
    model = ""
    for span in llms:
        for name, value in _call_usage(span, counted).items():
            totals[name] = totals.get(name, 0) + value
        model = model or span_model(span) or next((span_model(d) for d in span.descendants() if span_model(d)), "")
    usage: TokenUsage | None = None
    if llms:
        usage = TokenUsage(model_calls=len(llms), model=model or None, **totals)
        if usage.input_tokens is not None or usage.output_tokens is not None:
            usage.total_tokens = (usage.input_tokens or 0) + (usage.output_tokens or 0)
    duration = span_seconds(anchor) if anchor is not None else None
    if duration is None:
        timed = [s for s in members if span_seconds(s) is not None]
        if timed:
            duration = (max(s.end_ns for s in timed) - min(s.start_ns for s in timed)) / 1e9
    return TurnCost(
        usage=usage,
        duration=None if duration is None else round(duration, 3),
        model_duration=_sum_seconds(llms),
        tool_duration=_sum_seconds(tools),
    )


_SIDES = {
    "input": ("gen_ai.usage.input_tokens", "gen_ai.usage.prompt_tokens", "llm.token_count.prompt"),
    "output": ("gen_ai.usage.output_tokens", "gen_ai.usage.completion_tokens", "llm.token_count.completion"),
}


def turn_tokens(invocation: Invocation, spans: Sequence[Span]) -> tuple[int | None, int | None]:
    """A turn's input and output tokens: its usage as extracted (see :func:`turn_cost`), else
    :func:`spans_tokens` of ``spans``. ``None`` where nothing was recorded."""
    usage = invocation.usage
    if usage is not None and usage.input_tokens is not None:
        return usage.input_tokens, usage.output_tokens
    return spans_tokens(spans)


def spans_tokens(spans: Sequence[Span]) -> tuple[int | None, int | None]:
    """Input and output tokens of ``spans`` (linked into their tree): ``gen_ai.usage.*`` summed, leaving out a span
    inside another that records them (an ADK ``call_llm`` around an instrumented client reports the same call);
    what a trace that yields no conversation (no message content) still says of its cost."""
    totals: dict[str, int | None] = {"input": None, "output": None}
    keys = [key for pair in _SIDES.values() for key in pair]
    outer = [pair[0] for pair in _SIDES.values()]
    counted_above = ancestor_test(lambda above: any(k in above.attributes for k in outer))  # follows the tree
    for span in spans:
        if not any(k in span.attributes for k in keys) or counted_above(span):
            continue
        for side, side_keys in _SIDES.items():
            value = next((span.attributes[k] for k in side_keys if k in span.attributes), None)
            if isinstance(value, int) and not isinstance(value, bool):
                totals[side] = (totals[side] or 0) + value
    return totals["input"], totals["output"]
