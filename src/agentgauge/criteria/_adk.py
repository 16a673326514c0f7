"""Google ADK's ``tool_trajectory_avg_score`` semantics: EXACT / IN_ORDER / ANY_ORDER, names + arguments."""

from __future__ import annotations

from collections.abc import Sequence
from enum import IntEnum
from typing import TYPE_CHECKING, Any

from pydantic import field_validator

from ._base import MATCH, MatchResult
from ._model import CriterionModel
from ._show import show

if TYPE_CHECKING:
    from ..model import Invocation, Tool

__all__ = ["AdkToolTrajectoryCriterion", "MatchType", "parse_match_type"]


class MatchType(IntEnum):
    """ADK's ``ToolTrajectoryCriterion.MatchType`` with its integer values."""

    EXACT = 0
    IN_ORDER = 1
    ANY_ORDER = 2


_NAMES = ", ".join(m.name for m in MatchType)


def parse_match_type(value: Any) -> MatchType:
    """Read a match type the way ADK does: ints 0/1/2 or names, case-insensitive, ``-``/space for ``_``.

    ``"in-order"``, ``" ANY ORDER "``, ``"exact"``, ``1``, ``1.0`` and ``"MatchType.EXACT"`` are all accepted
    (the last one is an agentgauge extension; ADK rejects it). Digit strings such as ``"1"`` are rejected, as
    in ADK.
    Anything else raises ``ValueError`` listing the valid names.
    """
    if isinstance(value, MatchType):
        return value
    if isinstance(value, int) and value in (0, 1, 2):  # ADK's pydantic enum also takes False/True as 0/1
        return MatchType(int(value))
    if isinstance(value, float) and value in (0.0, 1.0, 2.0):
        return MatchType(int(value))
    if isinstance(value, str):
        key = value.strip().upper().replace("-", "_").replace(" ", "_").removeprefix("MATCHTYPE.")
        if key in MatchType.__members__:
            return MatchType[key]
    raise ValueError(f"invalid match_type {value!r}: expected one of {_NAMES} (or 0, 1, 2)")


class AdkToolTrajectoryCriterion(CriterionModel):
    """An ADK ``test_config.json`` trajectory criterion: ``threshold``, ``match_type``, ``ignore_args``.

    Two calls match when their names are equal and (unless ``ignore_args``) their arguments are equal under
    Python ``==`` (key order ignored, ``1 == 1.0 == True``, ``{} != None``). Results and call ids are never
    compared.

    - ``EXACT`` (default): same number of calls, matching position by position.
    - ``IN_ORDER``: the expected calls appear in the actual ones in order; extra actual calls are allowed.
    - ``ANY_ORDER``: every expected call matches a distinct actual call, in any order; extras allowed.
    """

    threshold: float | None = None
    match_type: MatchType = MatchType.EXACT
    ignore_args: bool = False

    @field_validator("match_type", mode="before")
    @classmethod
    def _match_type(cls, value: Any) -> MatchType:
        return parse_match_type(value)

    def _same(self, a: Tool, e: Tool) -> bool:
        return a.name == e.name and (self.ignore_args or a.arguments == e.arguments)

    def match(self, actual: Invocation, expected: Invocation) -> MatchResult:
        """Compare the tool calls of two invocations."""
        return self.match_tools(actual.tools, expected.tools)

    def match_tools(self, actual: Sequence[Tool], expected: Sequence[Tool]) -> MatchResult:
        """Compare two lists of tool calls under the configured match type."""
        if self.match_type is MatchType.EXACT:
            return self._exact(actual, expected)
        if not expected:
            return MATCH
        if not actual:
            return MatchResult(False, f"no actual tool calls, expected {len(expected)} ({_names(expected)})")
        if self.match_type is MatchType.IN_ORDER:
            return self._in_order(actual, expected)
        return self._any_order(actual, expected)

    def _exact(self, actual: Sequence[Tool], expected: Sequence[Tool]) -> MatchResult:
        if len(actual) != len(expected):
            return MatchResult(
                False,
                f"tool count mismatch: actual {len(actual)} != expected {len(expected)}; "
                f"actual [{_names(actual)}], expected [{_names(expected)}]",
            )
        for i, (a, e) in enumerate(zip(actual, expected, strict=True)):
            if a.name != e.name:
                return MatchResult(False, f"call {i}: name: actual {a.name!r} != expected {e.name!r}")
            if not self.ignore_args and a.arguments != e.arguments:
                return MatchResult(
                    False, f"call {i} ({e.name}): arguments: actual {show(a.arguments)} != expected {show(e.arguments)}"
                )
        return MATCH

    def _in_order(self, actual: Sequence[Tool], expected: Sequence[Tool]) -> MatchResult:
        k = 0
        for a in actual:
            if self._same(a, expected[k]):
                k += 1
                if k == len(expected):
                    return MATCH
        e = expected[k]
        return MatchResult(
            False, f"expected call {k} ({e.name} {show(e.arguments)}) not found in order among the actual calls"
        )

    def _any_order(self, actual: Sequence[Tool], expected: Sequence[Tool]) -> MatchResult:
        pool = list(actual)
        for k, e in enumerate(expected):
            for i, a in enumerate(pool):
                if self._same(a, e):
                    pool.pop(i)
                    break
            else:
                return MatchResult(
                    False, f"expected call {k} ({e.name} {show(e.arguments)}) has no matching unused actual call"
                )
        return MATCH


def _names(tools: Sequence[Tool]) -> str:
    return ", ".join(t.name for t in tools)
