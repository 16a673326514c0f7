"""Every criterion's mismatch reason says which side is which: ``actual 'Lyon' != expected 'Paris' at $.city``.

One row per criterion type and way of failing. The actual side holds ``ACT`` values and the expected side ``EXP``
values, so a reason that swapped or dropped the labels is caught: each ``!=`` has ``actual`` before it and
``expected`` after it, and the actual value follows the word ``actual``.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import pytest

from agentgauge.criteria import (
    AdkToolTrajectoryCriterion,
    FinalResponseCriterion,
    JSONCriterion,
    MatchResult,
    RougeCriterion,
    TextCriterion,
    ToolTrajectoryCriterion,
    XMLCriterion,
)
from agentgauge.model import Invocation, Message, Tool


def _inv(*tools: Tool, text: str = "") -> Invocation:
    return Invocation(
        user_content=Message(content="q"), final_response=Message(role="assistant", content=text), tools=list(tools)
    )


def _tool(name: str, value: Any, result: Any = None, tool_id: str = "t1") -> Tool:
    return Tool(id=tool_id, name=name, arguments={"city": value}, result=result)


def _json(kind: str) -> Callable[[], MatchResult]:
    criteria = {
        "exact": JSONCriterion(),
        "ignoreTree": JSONCriterion.model_validate({"ignoreTree": {"ts": True}}),
        "onlyTree": JSONCriterion.model_validate({"onlyTree": {"city": True}}),
    }
    return lambda: criteria[kind].match({"city": "ACT", "ts": 1}, {"city": "EXP", "ts": 2})


CASES: list[tuple[str, Callable[[], MatchResult]]] = [
    ("text exact", lambda: TextCriterion().match("ACT", "EXP")),
    ("text exact, long", lambda: TextCriterion().match("x" * 90 + "ACT" + "y" * 60, "x" * 90 + "EXP" + "y" * 60)),
    ("text case-insensitive", lambda: TextCriterion(case_insensitive=True).match("ACT", "EXP")),
    ("text contains", lambda: TextCriterion(match_strategy="contains").match("ACT", "EXP")),
    ("text regex", lambda: TextCriterion(match_strategy="regex").match("ACT", "^EXP$")),
    ("json exact", _json("exact")),
    ("json ignoreTree", _json("ignoreTree")),
    ("json onlyTree", _json("onlyTree")),
    ("json kinds differ", lambda: JSONCriterion().match({"city": "ACT"}, {"city": 1})),
    ("json numbers", lambda: JSONCriterion().match({"n": 1}, {"n": 2})),
    ("json array length", lambda: JSONCriterion().match(["ACT"], ["EXP", "EXP"])),
    ("json raw text", lambda: JSONCriterion().match_raw('{"city": "ACT"}', '{"city": "EXP"}')),
    (
        "tool trajectory arguments",
        lambda: ToolTrajectoryCriterion().match(_inv(_tool("get", "ACT")), _inv(_tool("get", "EXP"))),
    ),
    (
        "tool trajectory name",
        lambda: ToolTrajectoryCriterion().match(_inv(_tool("ACT", 1)), _inv(_tool("EXP", 1))),
    ),
    (
        "tool trajectory result",
        lambda: ToolTrajectoryCriterion().match(_inv(_tool("get", 1, "ACT")), _inv(_tool("get", 1, "EXP"))),
    ),
    (
        "tool trajectory in order",
        lambda: ToolTrajectoryCriterion(order_sensitive=True).match(
            _inv(_tool("get", "ACT")), _inv(_tool("get", "EXP"))
        ),
    ),
    (
        "tool trajectory count",
        lambda: ToolTrajectoryCriterion().match(
            _inv(_tool("get", 1)), _inv(_tool("get", 1), _tool("get", 1, None, "t2"))
        ),
    ),
    ("adk trajectory name", lambda: AdkToolTrajectoryCriterion().match(_inv(_tool("ACT", 1)), _inv(_tool("EXP", 1)))),
    (
        "adk trajectory arguments",
        lambda: AdkToolTrajectoryCriterion().match(_inv(_tool("get", "ACT")), _inv(_tool("get", "EXP"))),
    ),
    (
        "adk trajectory count",
        lambda: AdkToolTrajectoryCriterion().match(_inv(), _inv(_tool("get", "EXP"))),
    ),
    (
        "final response text",
        lambda: FinalResponseCriterion.model_validate({"text": {}}).match(_inv(text="ACT"), _inv(text="EXP")),
    ),
    (
        "final response json",
        lambda: FinalResponseCriterion.model_validate({"json": {}}).match(
            _inv(text='{"city": "ACT"}'), _inv(text='{"city": "EXP"}')
        ),
    ),
]

# These reasons show one side only (XML checks the actual text) or scores (ROUGE): they must name that side and
# never compare two unlabelled values.
ONE_SIDED: list[tuple[str, Callable[[], MatchResult], str]] = [
    (
        "xml",
        lambda: XMLCriterion.model_validate({"valid": True, "matchStrategy": "skip"}).match("ACT", "<a/>"),
        "actual",
    ),
    ("text length", lambda: TextCriterion.model_validate({"length": {"max": 1}}).match("ACT", "EXP"), "actual"),
    (
        "adk trajectory in order",
        lambda: AdkToolTrajectoryCriterion(match_type=1).match(_inv(_tool("get", "ACT")), _inv(_tool("get", "EXP"))),
        "expected",
    ),
    (
        "adk trajectory any order",
        lambda: AdkToolTrajectoryCriterion(match_type=2).match(_inv(_tool("get", "ACT")), _inv(_tool("get", "EXP"))),
        "expected",
    ),
    ("rouge", lambda: RougeCriterion.model_validate({"threshold": {"f1": 0.9}}).match("EXP words", "ACT"), "f1="),
]


def _unlabelled(reason: str) -> list[str]:
    # Every "!=" must read "actual <a> != expected <b>" (with "actual" somewhere before it in the same clause).
    bad = []
    for clause in reason.split(";"):
        for match in re.finditer(r"!=", clause):
            before, after = clause[: match.start()], clause[match.end() :]
            if "actual" not in before or not after.lstrip().startswith("expected"):
                bad.append(clause.strip())
    return bad


@pytest.mark.parametrize(("label", "run"), CASES, ids=[c[0] for c in CASES])
def test_both_sides_are_labelled(label: str, run: Callable[[], MatchResult]) -> None:
    result = run()
    assert not result.ok, label
    reason = result.reason
    assert "actual" in reason and "expected" in reason, reason
    assert not _unlabelled(reason), reason
    for clause in reason.split(";"):  # the value after "actual" is the actual one, after "expected" the expected one
        for match in re.finditer(r"!=", clause):
            actual_side = clause[clause.rindex("actual", 0, match.start()) : match.start()]
            expected_side = clause[match.end() :]
            assert "EXP" not in actual_side and "ACT" not in expected_side, reason


@pytest.mark.parametrize(("label", "run", "side"), ONE_SIDED, ids=[c[0] for c in ONE_SIDED])
def test_one_sided_reasons_name_their_side(label: str, run: Callable[[], MatchResult], side: str) -> None:
    result = run()
    assert not result.ok, label
    assert side in result.reason and not _unlabelled(result.reason), result.reason


def test_the_issues_example() -> None:
    reason = FinalResponseCriterion.model_validate({"text": {}}).match(
        _inv(text="calc result: 13"), _inv(text="calc result: 42")
    )
    assert reason.reason == "text mismatch: actual 'calc result: 13' != expected 'calc result: 42'"
    city = JSONCriterion().match({"city": "Lyon"}, {"city": "Paris"})
    assert city.reason == "actual 'Lyon' != expected 'Paris' at $.city"
