"""FinalResponseCriterion and RougeCriterion rules (trpc reference §3.4)."""

from __future__ import annotations

from typing import Any

import pytest

from agentgauge.criteria import CompareRegistry, CriterionError, FinalResponseCriterion, MatchResult, RougeCriterion
from agentgauge.model import Invocation, Message


def inv(text: str | None) -> Invocation:
    return Invocation(
        user_content=Message(content="q"),
        final_response=None if text is None else Message(role="assistant", content=text),
    )


@pytest.mark.parametrize(
    ("config", "actual", "expected", "reason"),
    [
        ({"text": {}}, "hello", "hello", ""),
        ({"text": {}}, "hello", "bye", "text mismatch: actual 'hello' != expected 'bye'"),
        ({"text": {"matchStrategy": "contains"}}, "well hello there", "hello", ""),
        ({"json": {}}, '{"a": 1, "b": 2}', '{"b": 2, "a": 1}', ""),
        ({"json": {}}, '{"a": 1}', '{"a": 2}', "json mismatch: actual 1 != expected 2 at $.a (tolerance 1e-06)"),
        ({"json": {}}, "plain text", '{"a": 1}', "json mismatch: parse actual raw json: Expecting value"),
        # json runs before text; every failure is reported, joined with "; ".
        (
            {"text": {}, "json": {}},
            '{"a": 1}',
            '{"a": 2}',
            "json mismatch: actual 1 != expected 2 at $.a (tolerance 1e-06); "
            "text mismatch: actual '{\"a\": 1}' != expected '{\"a\": 2}'",
        ),
        ({"text": {"ignore": True}, "json": {}}, '{"a":1}', '{"a": 1}', ""),
        ({"text": {}}, None, None, ""),
        ({"text": {}}, None, "x", "actual final response is missing"),
        ({"text": {}}, "", None, ""),  # a missing expected response is empty text
        ({"text": {}}, "x", None, "text mismatch: actual 'x' != expected ''"),
        ({"rouge": {"rougeType": "rouge1", "threshold": {"f1": 0.5}}}, "the cat sat", "the cat sat", ""),
        (
            {"rouge": {"rougeType": "rouge1", "threshold": {"f1": 0.9}}},
            "the cat sat",
            "the dog sat",
            "rouge mismatch: rouge1 f1=0.666667 precision=0.666667 recall=0.666667 f1=0.666667",
        ),
    ],
)
def test_final_response_rules(config: dict[str, Any], actual: str | None, expected: str | None, reason: str) -> None:
    result = FinalResponseCriterion.model_validate(config).match(inv(actual), inv(expected))
    assert result.ok is (reason == "")
    if reason:
        assert result.reason.startswith(reason)


def test_final_response_needs_a_part() -> None:
    with pytest.raises(CriterionError, match="finalResponse must configure text, json, rouge, or xml"):
        FinalResponseCriterion.model_validate({})


def test_final_response_compare_name() -> None:
    compares = CompareRegistry()
    compares.register_final_response("nonempty", lambda a, e: bool(a.final_response and a.final_response.content))
    crit = FinalResponseCriterion.model_validate({"compareName": "nonempty"}).resolve(compares)
    assert crit.match(inv("x"), inv("y")).ok
    assert crit.match(inv(""), inv("y")) == MatchResult(False, "custom compare (final response) returned false")


def test_final_response_serialises_json_key() -> None:
    crit = FinalResponseCriterion.model_validate({"json": {"ignoreTree": {"id": True}}, "text": {"ignore": True}})
    dumped = crit.model_dump()
    assert dumped["json"]["ignoreTree"] == {"id": True}
    assert FinalResponseCriterion.model_validate(dumped) == crit


@pytest.mark.parametrize(
    ("config", "target", "prediction", "p", "r", "f"),
    [
        ({"rougeType": "rouge1"}, "the cat sat on the mat", "the cat sat", 1.0, 0.5, 2 / 3),
        ({"rougeType": "rouge2"}, "the cat sat on the mat", "the cat sat", 1.0, 0.4, 4 / 7),
        ({"rougeType": "rougeL"}, "a b c d", "a c b d", 0.75, 0.75, 0.75),
        ({"rougeType": "rouge1"}, "running dogs", "run dog", 0.0, 0.0, 0.0),
        ({"rougeType": "rouge1", "useStemmer": True}, "running dogs", "run dog", 1.0, 1.0, 1.0),
        ({"rougeType": "rouge1"}, "東京 タワー", "東京", 0.0, 0.0, 0.0),  # default tokenizer drops non-ASCII
        ({"rougeType": "rouge1", "tokenizer": "unicode"}, "東京 タワー", "東京", 1.0, 0.4, 4 / 7),
        ({"rougeType": "rougeLsum"}, "a b\nc d", "c d\na b", 1.0, 1.0, 1.0),
        ({"rougeType": "rougeLsum", "splitSummaries": True}, "a b. c d.", "c d. a b.", 1.0, 1.0, 1.0),
    ],
)
def test_rouge_scores(config: dict[str, Any], target: str, prediction: str, p: float, r: float, f: float) -> None:
    s = RougeCriterion.model_validate(config).score(target, prediction)
    assert (s.precision, s.recall, s.fmeasure) == pytest.approx((p, r, f), abs=1e-12)


def test_rouge_matches_rouge_score_library() -> None:
    from rouge_score import rouge_scorer

    target = "The quick brown foxes were jumping over lazy dogs.\nThey ran away quickly."
    prediction = "A quick brown fox jumped over the lazy dog.\nIt ran quickly away."
    for rouge_type in ("rouge1", "rouge2", "rouge3", "rougeL", "rougeLsum"):
        for stem in (False, True):
            ours = RougeCriterion(rouge_type=rouge_type, use_stemmer=stem).score(target, prediction)
            theirs = rouge_scorer.RougeScorer([rouge_type], use_stemmer=stem).score(target, prediction)[rouge_type]
            assert (ours.precision, ours.recall, ours.fmeasure) == (theirs.precision, theirs.recall, theirs.fmeasure)


@pytest.mark.parametrize(
    ("threshold", "ok"),
    [({}, True), ({"precision": 1.0}, True), ({"recall": 0.6}, False), ({"f1": 0.66}, True), ({"f1": 0.67}, False)],
)
def test_rouge_thresholds_all_must_pass(threshold: dict[str, float], ok: bool) -> None:
    crit = RougeCriterion.model_validate({"rougeType": "rouge1", "threshold": threshold})
    result = crit.match("the cat sat on the mat", "the cat sat")  # P=1, R=0.5, F=0.667
    assert result.ok is ok
    assert result.reason.startswith("rouge1 f1=0.666667 precision=1.000000 recall=0.500000 f1=0.666667")


def test_rouge_measure_selects_the_headline_value() -> None:
    result = RougeCriterion(measure="recall").match("the cat sat on the mat", "the cat sat")
    assert result.reason.startswith("rouge1 recall=0.500000")


@pytest.mark.parametrize(
    ("config", "message"),
    [
        ({"rougeType": "rouge0"}, "invalid rougeType 'rouge0'"),
        ({"rougeType": "rougeX"}, "invalid rougeType 'rougeX'"),
        ({"measure": "accuracy"}, "measure"),
        ({"tokenizer": "jieba"}, "tokenizer"),
    ],
)
def test_rouge_bad_configuration(config: dict[str, Any], message: str) -> None:
    with pytest.raises(CriterionError) as info:
        RougeCriterion.model_validate(config)
    assert message in str(info.value)


def test_rouge_ignore_always_passes() -> None:
    assert RougeCriterion(ignore=True, threshold={"f1": 1.0}).match("a", "b").ok  # type: ignore[arg-type]
