"""Word-level differences between expected and actual invocations, limited to what the failed metrics compared.

A difference is only marked in a part of an invocation (tool calls, final response) that a failed metric checks:
a final response that passed its ``contains`` or ROUGE check is not shown as changed because its words differ.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable
from typing import Literal

from ..model import Criterion

__all__ = [
    "RESPONSE",
    "TOOLS",
    "Part",
    "Segment",
    "calls_diff",
    "failed_parts",
    "inline_text",
    "metric_scope",
    "response_strategy",
    "strategy_phrase",
    "word_diff",
]

Part = Literal["tools", "response"]
TOOLS: Part = "tools"
RESPONSE: Part = "response"

Segment = tuple[str, str]
"""``(op, text)``: op ``=`` (both sides), ``-`` (only expected) or ``+`` (only actual)."""

_TOKENS = re.compile(r"\s+|\w+|[^\w\s]")
_TOOL_WORDS = ("trajectory", "tool")
_RESPONSE_WORDS = ("response", "final", "rouge", "hallucination", "safety", "answer")


def metric_scope(metric_name: str, criterion: Criterion | None = None) -> frozenset[Part]:
    """The parts of an invocation a metric compares: from its criterion (``toolTrajectory`` / ``finalResponse``)
    when it has one, else from its name (``tool_trajectory_avg_score`` → tools, ``response_match_score`` →
    response); a metric that could look at anything (an LLM judge, a custom evaluator) covers both."""
    if criterion is not None:
        parts: set[Part] = set()
        if criterion.tool_trajectory is not None:
            parts.add(TOOLS)
        if criterion.final_response is not None:
            parts.add(RESPONSE)
        if parts:
            return frozenset(parts)
    name = metric_name.lower()
    tools = any(word in name for word in _TOOL_WORDS)
    response = any(word in name for word in _RESPONSE_WORDS)
    if tools and not response:
        return frozenset({TOOLS})
    if response and not tools:
        return frozenset({RESPONSE})
    return frozenset({TOOLS, RESPONSE})


def failed_parts(failed: Iterable[tuple[str, Criterion | None]]) -> frozenset[Part]:
    """The parts covered by the failed metrics ``(name, criterion)`` of one invocation."""
    parts: set[Part] = set()
    for name, criterion in failed:
        parts |= metric_scope(name, criterion)
    return frozenset(parts)


def response_strategy(failed: Iterable[tuple[str, Criterion | None]]) -> str | None:
    """How a failed final-response criterion matched text when that was not equality (``contains`` or ``regex``):
    then a word diff would mislead, and reports say what the response had to contain or match instead."""
    for _, criterion in failed:
        block = criterion.final_response if criterion is not None else None
        text = block.get("text") if isinstance(block, dict) else None
        if isinstance(text, dict):
            strategy = text.get("matchStrategy", text.get("match_strategy"))
            if strategy in ("contains", "regex"):
                return str(strategy)
    return None


def strategy_phrase(strategy: str) -> str:
    """``must contain`` / ``must match`` for a :func:`response_strategy`."""
    return "must contain" if strategy == "contains" else "must match"


def word_diff(expected: str, actual: str) -> list[Segment]:
    """The two texts as one sequence of segments, words only one side has marked ``-`` / ``+``."""
    a, b = _TOKENS.findall(expected), _TOKENS.findall(actual)
    out: list[Segment] = []
    for op, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if op == "equal":
            out.append(("=", "".join(a[i1:i2])))
            continue
        if i2 > i1:
            out.append(("-", "".join(a[i1:i2])))
        if j2 > j1:
            out.append(("+", "".join(b[j1:j2])))
    return out


def calls_diff(expected: list[str], actual: list[str]) -> list[list[Segment]]:
    """Tool calls as written (``name({...})``) aligned: one segment list per call, a changed call word-diffed
    against the expected call it replaces, a missing call all ``-``, an extra call all ``+``."""
    out: list[list[Segment]] = []
    for op, i1, i2, j1, j2 in difflib.SequenceMatcher(None, expected, actual, autojunk=False).get_opcodes():
        if op == "equal":
            out += [[("=", call)] for call in actual[j1:j2]]
            continue
        old, new = expected[i1:i2], actual[j1:j2]
        paired = min(len(old), len(new)) if op == "replace" else 0
        out += [word_diff(o, n) for o, n in zip(old[:paired], new[:paired], strict=True)]
        out += [[("-", call)] for call in old[paired:]]
        out += [[("+", call)] for call in new[paired:]]
    return out


def inline_text(segments: Iterable[Segment]) -> str:
    """Segments as plain text in ``git diff --word-diff`` style: ``[-removed-]{+added+}``."""
    marks = {"=": ("", ""), "-": ("[-", "-]"), "+": ("{+", "+}")}
    return "".join(marks[op][0] + text + marks[op][1] for op, text in segments)
