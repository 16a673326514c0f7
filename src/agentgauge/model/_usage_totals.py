"""Totals of the durations, token usage and costs recorded on invocations, per case, run or whole result."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from ._evalset import Invocation

__all__ = ["UsageTotals"]


def _plus(total: float | None, value: float | None) -> float | None:
    if value is None:
        return total
    return value if total is None else total + value


def _plus_int(total: int | None, value: int | None) -> int | None:
    if value is None:
        return total
    return value if total is None else total + value


@dataclass
class UsageTotals:
    """Sums over the invocations added: wall time, model/tool time, tokens, model calls and cost.

    A figure stays ``None`` until an invocation reports it, so "not recorded" is never shown as zero.
    ``total_tokens`` falls back to input + output for an invocation that gave both but no total. ``cost`` sums the
    invocations whose price was known; ``cost_missing`` counts those with tokens but no cost, so a partial sum can be
    marked as such. ``models`` are the model names seen, in order of first appearance.
    """

    invocations: int = 0
    duration: float | None = None
    model_duration: float | None = None
    tool_duration: float | None = None
    input_tokens: int | None = None
    output_tokens: int | None = None
    total_tokens: int | None = None
    model_calls: int | None = None
    cost: float | None = None
    cost_missing: int = 0
    models: list[str] = field(default_factory=list)

    @classmethod
    def of(cls, invocations: Iterable[Invocation]) -> UsageTotals:
        """The totals of ``invocations``."""
        totals = cls()
        for invocation in invocations:
            totals.add(invocation)
        return totals

    @property
    def known(self) -> bool:
        """True when any figure was recorded."""
        return (
            self.duration is not None
            or self.model_duration is not None
            or self.tool_duration is not None
            or self.total_tokens is not None
            or self.model_calls is not None
            or self.cost is not None
        )

    def add(self, invocation: Invocation) -> None:
        """Add the figures of one invocation (absent ones are skipped)."""
        self.invocations += 1
        self.duration = _plus(self.duration, invocation.duration)
        self.model_duration = _plus(self.model_duration, invocation.model_duration)
        self.tool_duration = _plus(self.tool_duration, invocation.tool_duration)
        usage = invocation.usage
        if usage is None:
            return
        self.input_tokens = _plus_int(self.input_tokens, usage.input_tokens)
        self.output_tokens = _plus_int(self.output_tokens, usage.output_tokens)
        total = usage.total_tokens
        if total is None and usage.input_tokens is not None and usage.output_tokens is not None:
            total = usage.input_tokens + usage.output_tokens
        self.total_tokens = _plus_int(self.total_tokens, total)
        self.model_calls = _plus_int(self.model_calls, usage.model_calls)
        if usage.cost is not None:
            self.cost = _plus(self.cost, usage.cost)
        elif total:
            self.cost_missing += 1
        if usage.model and usage.model not in self.models:
            self.models.append(usage.model)

    def merge(self, other: UsageTotals) -> None:
        """Add another total into this one."""
        self.invocations += other.invocations
        self.duration = _plus(self.duration, other.duration)
        self.model_duration = _plus(self.model_duration, other.model_duration)
        self.tool_duration = _plus(self.tool_duration, other.tool_duration)
        self.input_tokens = _plus_int(self.input_tokens, other.input_tokens)
        self.output_tokens = _plus_int(self.output_tokens, other.output_tokens)
        self.total_tokens = _plus_int(self.total_tokens, other.total_tokens)
        self.model_calls = _plus_int(self.model_calls, other.model_calls)
        self.cost = _plus(self.cost, other.cost)
        self.cost_missing += other.cost_missing
        self.models.extend(m for m in other.models if m not in self.models)
