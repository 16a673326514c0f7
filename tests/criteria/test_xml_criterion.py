"""XMLCriterion (trpc's ``xml`` final-response part) and every failing part reported in trpc's order."""

from __future__ import annotations

from typing import Any

import pytest

from agentgauge.criteria import CompareRegistry, CriterionError, FinalResponseCriterion, XMLCriterion, check_xml
from agentgauge.model import Invocation, Message


def inv(text: str) -> Invocation:
    return Invocation(user_content=Message(content="q"), final_response=Message(role="assistant", content=text))


@pytest.mark.parametrize(
    ("content", "reason"),
    [
        ("<a/>", ""),
        ("<a><b x='1'>t &amp; u</b></a>", ""),
        ('<?xml version="1.0"?>\n<!-- c -->\n<root><x/></root>\n', ""),
        ("<!DOCTYPE html><html/>", ""),
        ("", "xml content is empty"),
        ("  \n ", "xml content is empty"),
        ("<a/><b/>", "xml content must contain a single root element"),
        ("<a/>tail", "xml content has non-whitespace text outside the root element"),
        ("lead <a/>", "xml content has non-whitespace text outside the root element"),
        ("<!-- only a comment -->", "xml content must contain a root element"),
        ("<a><b></b>", "xml content has unclosed elements"),
        ("<a>&nbsp;</a>", "xml content is not well-formed: undefined entity: line 1, column 3"),
        ('<!DOCTYPE a [<!ENTITY x "y">]><a>&x;</a>', "xml content declares entities (refused for safety)"),
        (
            '<!DOCTYPE a [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;">]><a>&lol2;</a>',
            "xml content declares entities (refused for safety)",
        ),
        ('<!DOCTYPE a [<!ENTITY e SYSTEM "file:///etc/passwd">]><a>&e;</a>', "xml content declares entities"),
    ],
)
def test_check_xml(content: str, reason: str) -> None:
    result = check_xml(content)
    assert result.ok is (reason == "")
    assert result.reason.startswith(reason)
    if reason:
        assert result.reason


@pytest.mark.parametrize(
    ("config", "message"),
    [
        ({"valid": True}, "xml match strategy is empty"),
        ({"valid": True, "matchStrategy": ""}, "xml match strategy is empty"),
        ({"valid": True, "matchStrategy": "exact"}, "invalid match strategy 'exact': xml supports only 'skip'"),
    ],
)
def test_bad_xml_config_is_a_criterion_error(config: dict[str, Any], message: str) -> None:
    with pytest.raises(CriterionError, match=message):
        FinalResponseCriterion.model_validate({"xml": config})


def test_ignored_xml_needs_no_strategy_and_always_matches() -> None:
    crit = FinalResponseCriterion.model_validate({"xml": {"ignore": True}})
    assert crit.match(inv("not xml"), inv("")).ok


def test_xml_without_valid_matches_anything() -> None:
    crit = FinalResponseCriterion.model_validate({"xml": {"matchStrategy": "skip"}})
    assert crit.match(inv("not xml"), inv("")).ok


def test_xml_valid_part_of_final_response() -> None:
    crit = FinalResponseCriterion.model_validate({"xml": {"valid": True, "matchStrategy": "skip"}})
    assert crit.match(inv("<answer>42</answer>"), inv("ignored")).ok
    result = crit.match(inv("<a/><b/>"), inv(""))
    assert result.reason == "xml mismatch: actual xml content must contain a single root element"


def test_every_failing_part_is_reported_in_trpc_order() -> None:
    crit = FinalResponseCriterion.model_validate(
        {
            "xml": {"valid": True, "matchStrategy": "skip"},
            "rouge": {"rougeType": "rouge1", "threshold": {"f1": 0.9}},
            "text": {"matchStrategy": "exact"},
            "json": {},
        }
    )
    result = crit.match(inv("<a>x</a> tail"), inv('{"k": "other words"}'))
    parts = [p.split(":")[0] for p in result.reason.split("; ")]
    assert parts == ["json mismatch", "text mismatch", "rouge mismatch", "xml mismatch"]
    assert result.reason.endswith("xml mismatch: actual xml content has non-whitespace text outside the root element")


def test_xml_compare_name_is_resolved_from_the_registry() -> None:
    compares = CompareRegistry()
    compares.register_text("same_root", lambda a, e: a.split(">")[0] == e.split(">")[0])
    crit = FinalResponseCriterion.model_validate(
        {"xml": {"matchStrategy": "skip", "compareName": "same_root"}}
    ).resolve(compares)
    assert crit.match(inv("<r>1</r>"), inv("<r>2</r>")).ok
    assert crit.match(inv("<s>1</s>"), inv("<r>2</r>")).reason == "xml mismatch: custom compare (xml) returned false"


def test_xml_criterion_round_trips_as_data() -> None:
    crit = XMLCriterion.model_validate({"valid": True, "matchStrategy": "skip"})
    assert crit.model_dump(by_alias=True, exclude_none=True) == {
        "ignore": False,
        "valid": True,
        "matchStrategy": "skip",
    }
