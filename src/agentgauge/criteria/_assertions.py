"""Trajectory assertions: deterministic checks of what an agent did over a whole case, as promptfoo's
``trajectory:*`` assertions are -- a tool used or not used, a sequence of tools in order, at most N steps, no call
repeated more than N times, a token or cost budget.

Each assertion reads the case's actual invocations and returns an :class:`AssertionOutcome`: a score in [0, 1]
(``None`` when what it measures was not recorded) and a reason that reproduces the decision with both sides
labelled (``tool 'book': actual 0 calls < expected at least 1``).
"""

from __future__ import annotations

import fnmatch
import json
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from pydantic import ConfigDict, Field, model_validator

from ._model import CriterionModel

if TYPE_CHECKING:
    from ..model import Invocation, Tool

__all__ = [
    "ASSERTION_KINDS",
    "AssertionOutcome",
    "BudgetAssertion",
    "NoLoopsAssertion",
    "StepCountAssertion",
    "ToolNotUsedAssertion",
    "ToolSequenceAssertion",
    "ToolUsedAssertion",
    "TrajectoryAssertion",
]


@dataclass(frozen=True, slots=True)
class AssertionOutcome:
    """The score of an assertion over a case (``None``: not measured) and the reason for it."""

    score: float | None
    reason: str


def _calls(invocations: Sequence[Invocation]) -> list[tuple[int, int, Tool]]:
    """Every tool call of the case as (turn, index in the turn, call), in order."""
    return [(turn, i, tool) for turn, inv in enumerate(invocations) for i, tool in enumerate(inv.tools)]


def _matches(pattern: str, name: str) -> bool:
    # Patterns use shell wildcards (``search_*``); a plain name matches itself only.
    return fnmatch.fnmatchcase(name, pattern)


def _names(calls: list[tuple[int, int, Tool]]) -> str:
    return "[" + ", ".join(tool.name for _, _, tool in calls) + "]"


class TrajectoryAssertion(CriterionModel):
    """Base of the assertions: keys in camelCase or snake_case, unknown keys refused (a typo must not pass)."""

    model_config = ConfigDict(**{**CriterionModel.model_config, "extra": "forbid"})

    def check(self, invocations: Sequence[Invocation]) -> AssertionOutcome:  # pragma: no cover - abstract
        """Score the case's actual invocations."""
        raise NotImplementedError


class ToolUsedAssertion(TrajectoryAssertion):
    """``trajectory_tool_used``: every listed tool (name or ``*`` pattern) is called ``minCalls``..``maxCalls``
    times over the case. Score: the fraction of listed tools that are."""

    tools: list[str] = Field(min_length=1)
    min_calls: int = Field(default=1, ge=0)
    max_calls: int | None = Field(default=None, ge=0)

    @model_validator(mode="after")
    def _bounds(self) -> ToolUsedAssertion:
        if self.max_calls is not None and self.max_calls < self.min_calls:
            raise ValueError(f"maxCalls {self.max_calls} < minCalls {self.min_calls}")
        return self

    def check(self, invocations: Sequence[Invocation]) -> AssertionOutcome:
        """Count each listed tool's calls and compare with the bounds."""
        calls = _calls(invocations)
        problems: list[str] = []
        for pattern in self.tools:
            n = sum(1 for _, _, tool in calls if _matches(pattern, tool.name))
            if n < self.min_calls:
                problems.append(f"tool {pattern!r}: actual {n} calls < expected at least {self.min_calls}")
            elif self.max_calls is not None and n > self.max_calls:
                problems.append(f"tool {pattern!r}: actual {n} calls > expected at most {self.max_calls}")
        score = (len(self.tools) - len(problems)) / len(self.tools)
        if not problems:
            return AssertionOutcome(score, f"every expected tool was used; actual calls {_names(calls)}")
        return AssertionOutcome(score, "; ".join(problems) + f"; actual calls {_names(calls)}")


class ToolNotUsedAssertion(TrajectoryAssertion):
    """``trajectory_tool_not_used``: none of the listed tools (names or ``*`` patterns) is called. Score: the
    fraction of listed tools never called."""

    tools: list[str] = Field(min_length=1)

    def check(self, invocations: Sequence[Invocation]) -> AssertionOutcome:
        """Find calls of the forbidden tools."""
        calls = _calls(invocations)
        problems: list[str] = []
        for pattern in self.tools:
            found = [(turn, i, tool) for turn, i, tool in calls if _matches(pattern, tool.name)]
            if found:
                where = ", ".join(f"{tool.name} (turn {turn + 1}, call {i + 1})" for turn, i, tool in found[:5])
                problems.append(f"tool {pattern!r}: actual {len(found)} calls ({where}) != expected none")
        score = (len(self.tools) - len(problems)) / len(self.tools)
        return AssertionOutcome(
            score, "; ".join(problems) or f"no forbidden tool was used; actual calls {_names(calls)}"
        )


class ToolSequenceAssertion(TrajectoryAssertion):
    """``trajectory_tool_sequence``: the listed tools are called in this order over the case.

    ``mode: in_order`` (default): they appear in order, other calls between them allowed; the score is the
    fraction of the sequence found in order (greedy, from the first call). ``mode: exact``: the case's calls are
    exactly this sequence; 1 or 0.
    """

    tools: list[str] = Field(min_length=1)
    mode: Literal["in_order", "exact"] = "in_order"

    def check(self, invocations: Sequence[Invocation]) -> AssertionOutcome:
        """Walk the calls looking for the sequence."""
        calls = _calls(invocations)
        if self.mode == "exact":
            ok = len(calls) == len(self.tools) and all(
                _matches(p, tool.name) for p, (_, _, tool) in zip(self.tools, calls, strict=False)
            )
            if ok:
                return AssertionOutcome(1.0, f"actual calls {_names(calls)} are exactly the expected sequence")
            return AssertionOutcome(0.0, f"actual calls {_names(calls)} != expected sequence [{', '.join(self.tools)}]")
        k, position = 0, 0
        for index, (_, _, tool) in enumerate(calls):
            if k < len(self.tools) and _matches(self.tools[k], tool.name):
                k, position = k + 1, index + 1
        score = k / len(self.tools)
        if k == len(self.tools):
            return AssertionOutcome(score, f"expected sequence found in order in actual calls {_names(calls)}")
        found = ", ".join(self.tools[:k]) or "nothing"
        return AssertionOutcome(
            score,
            f"expected sequence [{', '.join(self.tools)}]: found {found} in order, then no actual call "
            f"{self.tools[k]!r} after call {position}; actual calls {_names(calls)}",
        )


class StepCountAssertion(TrajectoryAssertion):
    """``trajectory_step_count``: the case's ``count`` -- ``tool_calls`` (default), ``model_calls`` (the agent's
    recorded model requests) or ``turns`` -- lies within ``min``..``max``. 1 or 0; no score when model calls were
    not recorded for every turn."""

    count: Literal["tool_calls", "model_calls", "turns"] = "tool_calls"
    min: int = Field(default=0, ge=0)
    max: int | None = Field(default=None, ge=0)

    @model_validator(mode="after")
    def _bounds(self) -> StepCountAssertion:
        if self.max is not None and self.max < self.min:
            raise ValueError(f"max {self.max} < min {self.min}")
        if self.max is None and self.min == 0:
            raise ValueError("give max (and/or min): without a bound every case passes")
        return self

    def check(self, invocations: Sequence[Invocation]) -> AssertionOutcome:
        """Count and compare with the bounds."""
        if self.count == "turns":
            n = len(invocations)
        elif self.count == "tool_calls":
            n = sum(len(inv.tools) for inv in invocations)
        else:
            missing = [i + 1 for i, inv in enumerate(invocations) if inv.usage is None or inv.usage.model_calls is None]
            if missing:
                return AssertionOutcome(None, f"model calls not recorded (turns {', '.join(map(str, missing))})")
            n = sum(inv.usage.model_calls or 0 for inv in invocations if inv.usage is not None)
        what = self.count.replace("_", " ")
        if n < self.min:
            return AssertionOutcome(0.0, f"{what}: actual {n} < expected at least {self.min}")
        if self.max is not None and n > self.max:
            return AssertionOutcome(0.0, f"{what}: actual {n} > expected at most {self.max}")
        bound = f"{self.min}..{self.max}" if self.max is not None else f"at least {self.min}"
        return AssertionOutcome(1.0, f"{what}: actual {n} within expected {bound}")


def _call_key(tool: Tool) -> str:
    # Identical calls: the same name and the same arguments, whatever their key order.
    return tool.name + " " + json.dumps(tool.arguments, sort_keys=True, ensure_ascii=False, default=str)


class NoLoopsAssertion(TrajectoryAssertion):
    """``trajectory_no_loops``: no identical call (same name and arguments) is made more than ``maxRepeats`` times
    over the case (loop detection). 1 or 0."""

    max_repeats: int = Field(default=1, ge=1)

    def check(self, invocations: Sequence[Invocation]) -> AssertionOutcome:
        """Count identical calls."""
        calls = _calls(invocations)
        counts = Counter(_call_key(tool) for _, _, tool in calls)
        first = {_call_key(tool): tool for _, _, tool in reversed(calls)}
        loops = [(key, n) for key, n in counts.most_common() if n > self.max_repeats]
        if not loops:
            top = counts.most_common(1)[0][1] if counts else 0
            return AssertionOutcome(
                1.0, f"most repeated call: actual {top} times <= expected at most {self.max_repeats}"
            )
        parts = [
            f"call {first[key].name} {json.dumps(first[key].arguments, ensure_ascii=False, default=str)}: actual {n} "
            f"identical calls > expected at most {self.max_repeats}"
            for key, n in loops[:3]
        ]
        return AssertionOutcome(0.0, "; ".join(parts))


class BudgetAssertion(TrajectoryAssertion):
    """``trajectory_budget``: the case's tokens (input + output, over every turn) are at most ``maxTokens`` and its
    cost at most ``maxCost`` (in the price table's currency). 1 or 0; no score when what a bound needs was not
    recorded for every turn."""

    max_tokens: int | None = Field(default=None, ge=0)
    max_cost: float | None = Field(default=None, ge=0)

    @model_validator(mode="after")
    def _some_bound(self) -> BudgetAssertion:
        if self.max_tokens is None and self.max_cost is None:
            raise ValueError("give maxTokens and/or maxCost")
        return self

    def check(self, invocations: Sequence[Invocation]) -> AssertionOutcome:
        """Add up the recorded usage and compare with the bounds."""
        problems: list[str] = []
        passed: list[str] = []
        if self.max_tokens is not None:
            tokens = _total(invocations, _tokens)
            if tokens is None:
                return AssertionOutcome(None, "token usage not recorded for every turn")
            (problems if tokens > self.max_tokens else passed).append(
                f"tokens: actual {tokens:g} {'>' if tokens > self.max_tokens else '<='} expected at most "
                f"{self.max_tokens}"
            )
        if self.max_cost is not None:
            cost = _total(invocations, lambda inv: inv.usage.cost if inv.usage is not None else None)
            if cost is None:
                return AssertionOutcome(None, "cost not known for every turn (no usage, or no price for the model)")
            (problems if cost > self.max_cost else passed).append(
                f"cost: actual {cost:.6g} {'>' if cost > self.max_cost else '<='} expected at most {self.max_cost:g}"
            )
        return AssertionOutcome(0.0 if problems else 1.0, "; ".join(problems or passed))


def _tokens(inv: Invocation) -> float | None:
    usage = inv.usage
    if usage is None:
        return None
    if usage.total_tokens is not None:
        return float(usage.total_tokens)
    if usage.input_tokens is None and usage.output_tokens is None:
        return None
    return float((usage.input_tokens or 0) + (usage.output_tokens or 0))


def _total(invocations: Sequence[Invocation], value: Callable[[Invocation], float | None]) -> float | None:
    """The sum of ``value(inv)`` over the turns; ``None`` when a turn has none (or there are no turns)."""
    total = 0.0
    for inv in invocations:
        item = value(inv)
        if item is None:
            return None
        total += item
    return total if invocations else None


ASSERTION_KINDS: dict[str, type[TrajectoryAssertion]] = {
    "trajectory_tool_used": ToolUsedAssertion,
    "trajectory_tool_not_used": ToolNotUsedAssertion,
    "trajectory_tool_sequence": ToolSequenceAssertion,
    "trajectory_step_count": StepCountAssertion,
    "trajectory_no_loops": NoLoopsAssertion,
    "trajectory_budget": BudgetAssertion,
}
"""Metric name → the assertion its criterion configures."""
