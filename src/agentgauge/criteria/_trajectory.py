"""ToolTrajectoryCriterion (trpc semantics): per-tool strategies, one-to-one matching, order and subset options."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Self

from pydantic import Field

from ._base import MATCH, CriterionError, MatchResult
from ._compare import CompareRegistry, CustomComparable, InvocationCompare
from ._json import JSONCriterion
from ._model import CriterionModel
from ._text import TextCriterion

if TYPE_CHECKING:
    from ..model import Invocation, Tool

__all__ = ["BUILTIN_STRATEGY", "ToolTrajectoryCriterion", "ToolTrajectoryStrategy"]


def _field_reason(field: str, reason: str) -> str:
    # "arguments mismatch: actual 'Lyon' != expected 'Paris' at $.city"
    return f"{field} mismatch: {reason}"


class ToolTrajectoryStrategy(CriterionModel):
    """How one expected tool call is compared with an actual one: ``name``, ``arguments``, ``result``.

    A field left unset is not compared, so ``{}`` matches any call and ``{"name": {}}`` checks only names.
    """

    name: TextCriterion | None = None
    arguments: JSONCriterion | None = None
    result: JSONCriterion | None = None

    def resolve(self, compares: CompareRegistry) -> ToolTrajectoryStrategy:
        """A copy with every nested ``compareName`` bound from ``compares``."""
        return self.model_copy(
            update={
                "name": self.name.resolve(compares) if self.name else None,
                "arguments": self.arguments.resolve(compares) if self.arguments else None,
                "result": self.result.resolve(compares) if self.result else None,
            }
        )

    def match_tool(self, actual: Tool, expected: Tool) -> MatchResult:
        """Compare name, then arguments, then result; the first failing part gives the reason."""
        if self.name is not None:
            r = self.name.match(actual.name, expected.name)
            if not r.ok:
                return MatchResult(False, _field_reason("name", r.reason))
        if self.arguments is not None:
            r = self.arguments.match(actual.arguments, expected.arguments)
            if not r.ok:
                return MatchResult(False, _field_reason("arguments", r.reason))
        if self.result is not None:
            r = self.result.match(actual.result, expected.result)
            if not r.ok:
                return MatchResult(False, _field_reason("result", r.reason))
        return MATCH


BUILTIN_STRATEGY = ToolTrajectoryStrategy(name=TextCriterion(), arguments=JSONCriterion(), result=JSONCriterion())
"""Used when neither a tool strategy nor ``defaultStrategy`` applies: name, arguments and result exact."""


class ToolTrajectoryCriterion(CustomComparable):
    """Compares the tool calls of an actual invocation with the expected ones (trpc-agent-go semantics).

    - Strategy per pair: ``toolStrategy[actual.name]``, else ``toolStrategy[expected.name]``, else
      ``defaultStrategy``, else the built-in one (name, arguments and result exact). A chosen strategy replaces
      the default entirely.
    - Counts: equal unless ``subsetMatching`` (then actual may have more calls).
    - Default: order-insensitive one-to-one matching (maximum bipartite matching, each actual call used once).
      ``orderSensitive``: expected calls must appear in order (extra actual calls may be skipped when
      ``subsetMatching``).
    - Tool ids are never compared; they appear in reasons. A custom ``compare`` replaces all of this.
    """

    compare_kind = "tool_trajectory"
    compare_label = "tool trajectory"

    default_strategy: ToolTrajectoryStrategy | None = None
    tool_strategy: dict[str, ToolTrajectoryStrategy] | None = None
    order_sensitive: bool = False
    subset_matching: bool = False
    compare_name: str | None = None
    compare: InvocationCompare | None = Field(default=None, exclude=True)

    def resolve(self, compares: CompareRegistry) -> Self:
        """A copy with this criterion's and every nested ``compareName`` bound from ``compares``."""
        update = self.compare_update(compares)
        if self.default_strategy is not None:
            update["default_strategy"] = self.default_strategy.resolve(compares)
        if self.tool_strategy:
            update["tool_strategy"] = {k: v.resolve(compares) for k, v in self.tool_strategy.items()}
        return self.model_copy(update=update)

    def strategy_for(self, actual: Tool, expected: Tool) -> ToolTrajectoryStrategy:
        """The strategy that compares this pair."""
        if self.tool_strategy:
            chosen = self.tool_strategy.get(actual.name) or self.tool_strategy.get(expected.name)
            if chosen is not None:
                return chosen
        return self.default_strategy if self.default_strategy is not None else BUILTIN_STRATEGY

    def match_tool(self, actual: Tool, expected: Tool) -> MatchResult:
        """Whether one actual call satisfies one expected call."""
        return self.strategy_for(actual, expected).match_tool(actual, expected)

    def match(self, actual: Invocation, expected: Invocation) -> MatchResult:
        """Compare the tool calls of two invocations; the reason names every expected call left unmatched."""
        custom = self.custom_match(actual, expected)
        if custom is not None:
            return custom
        if actual is None or expected is None:
            raise CriterionError("tool trajectory: actual or expected invocation is missing")
        return self.match_tools(actual.tools, expected.tools)

    def match_tools(self, actual: Sequence[Tool], expected: Sequence[Tool]) -> MatchResult:
        """Compare two lists of tool calls."""
        if not actual and not expected:
            return MATCH
        na, ne = len(actual), len(expected)
        if self.subset_matching and na < ne:
            return MatchResult(False, f"tool count mismatch: actual {na} < expected {ne}")
        if not self.subset_matching and na != ne:
            return MatchResult(False, f"tool count mismatch: actual {na} != expected {ne}")
        if self.order_sensitive:
            return self._ordered(actual, expected)
        return self._unordered(actual, expected)

    def _ordered(self, actual: Sequence[Tool], expected: Sequence[Tool]) -> MatchResult:
        ai = -1
        for e in expected:
            start = ai + 1
            ai = next((i for i in range(start, len(actual)) if self.match_tool(actual[i], e).ok), -2)
            if ai == -2:
                why = self._closest(actual[start:], e, set())
                where = "among the actual calls" if start == 0 else f"after actual call {start - 1}"
                return MatchResult(False, f"{_describe(e)} mismatch in order (not found {where}): {why}")
        return MATCH

    def _unordered(self, actual: Sequence[Tool], expected: Sequence[Tool]) -> MatchResult:
        edges = [[j for j, a in enumerate(actual) if self.match_tool(a, e).ok] for e in expected]
        owner = _max_matching(edges, len(actual))
        matched = {i for i in owner if i >= 0}
        unmatched = [i for i in range(len(expected)) if i not in matched]
        if not unmatched:
            return MATCH
        used = {j for j, i in enumerate(owner) if i >= 0}
        parts = [f"{_describe(expected[i])} mismatch: {self._closest(actual, expected[i], used)}" for i in unmatched]
        return MatchResult(False, "; ".join(parts))

    def _closest(self, candidates: Sequence[Tool], e: Tool, used: set[int]) -> str:
        """Why the most similar actual call did not satisfy ``e`` (same name first, then a matching one in use)."""
        if not candidates:
            return "no actual call left to match"
        best: tuple[int, int, str] | None = None
        for j, a in enumerate(candidates):
            r = self.match_tool(a, e)
            if r.ok:
                rank, why = 0, f"the matching call id {a.id} is already matched to another expected call"
            else:
                rank = 1 if a.name == e.name else 2
                why = f"closest actual call id {a.id} with name {a.name}: {r.reason}"
            if best is None or rank < best[0]:
                best = (rank, j, why)
        assert best is not None
        return best[2]


def _describe(tool: Tool) -> str:
    return f"expected tool id {tool.id} with name {tool.name}"


def _max_matching(edges: list[list[int]], n_right: int) -> list[int]:
    """Kuhn's augmenting paths: ``owner[j]`` = index of the expected call matched to actual ``j`` (or -1).

    Each search visits every actual node at most once, so the whole run is O(V * E); the path search is
    iterative so long tool lists cannot exhaust the recursion limit.
    """
    owner = [-1] * n_right
    right_of = [-1] * len(edges)
    for root in range(len(edges)):
        seen = [False] * n_right
        parent: dict[int, int] = {}  # right node -> the left node whose edge reached it
        stack: list[tuple[int, int]] = [(root, 0)]  # (left node, next edge position)
        found = -1
        while stack and found < 0:
            left, pos = stack[-1]
            adj = edges[left]
            while pos < len(adj) and seen[adj[pos]]:
                pos += 1
            if pos >= len(adj):
                stack.pop()
                continue
            j = adj[pos]
            stack[-1] = (left, pos + 1)
            seen[j] = True
            parent[j] = left
            if owner[j] < 0:
                found = j
            else:
                stack.append((owner[j], 0))
        # Flip the augmenting path: every left node on it takes the right node it reached.
        j = found
        while j >= 0:
            left = parent[j]
            prev = right_of[left]
            owner[j] = left
            right_of[left] = j
            j = prev
    return owner
