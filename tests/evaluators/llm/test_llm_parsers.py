from __future__ import annotations

import json

import pytest

from agentgauge.criteria import Rubric
from agentgauge.evaluators.llm._parsers import (
    normalize_property,
    parse_adk_rubric_blocks,
    parse_adk_validity,
    parse_hallucination_labels,
    parse_rubric_answer,
    parse_rubric_json,
    parse_rubric_text_blocks,
    parse_safety,
    parse_score_1_to_5,
    parse_sentences,
    parse_trpc_validity,
)
from agentgauge.judges import JudgeParseError

RUBRICS = [Rubric(id="1", content={"text": "Mentions Paris."}), Rubric(id="2", content={"text": "Is concise."})]


# --- trpc llm_final_response ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("answer", "score", "reason_part"),
    [
        ("reasoning: same number\nis_the_agent_response_valid: valid", 1.0, "same number"),
        ("reasoning: wrong\nis_the_agent_response_valid: invalid", 0.0, "wrong"),
        ("reasoning: ok\nis_the_agent_response_valid: VALID ", 1.0, "verdict: valid"),
        ("Sure!\nreasoning: multi\nline\nis_the_agent_response_valid: **valid**.", 1.0, "multi\nline"),
        ("reasoning: hmm\nis_the_agent_response_valid: maybe", 0.0, "verdict: maybe"),
        ('{"reasoning": "json form", "is_the_agent_response_valid": "valid"}', 1.0, "json form"),
    ],
)
def test_trpc_validity(answer: str, score: float, reason_part: str) -> None:
    sample = parse_trpc_validity(answer)
    assert sample.score == score
    assert reason_part in sample.reason


@pytest.mark.parametrize("answer", ["", "the answer looks valid to me", '{"verdict": "valid"}'])
def test_trpc_validity_without_verdict_raises_with_snippet(answer: str) -> None:
    with pytest.raises(JudgeParseError, match="is_the_agent_response_valid") as info:
        parse_trpc_validity(answer)
    assert info.value.raw == answer
    assert (answer[:20] or "<empty>") in str(info.value)


# --- trpc rubric JSON and legacy blocks -------------------------------------------------------------------


def rubric_json(*items: tuple[str, object, object]) -> str:
    return json.dumps({"rubricScores": [{"id": i, "score": s, "reason": r} for i, s, r in items]})


def test_rubric_json_scores_mean_and_reasons() -> None:
    sample = parse_rubric_json(rubric_json(("1", 1, "has Paris"), ("2", 0, "too long")), RUBRICS)
    assert sample.score == 0.5
    assert sample.reason == "has Paris\ntoo long"
    assert [(r.id, r.score, r.reason) for r in sample.rubric_scores] == [
        ("1", 1.0, "has Paris"),
        ("2", 0.0, "too long"),
    ]


def test_rubric_json_in_fence_with_prose() -> None:
    text = "Here:\n```json\n" + rubric_json(("1", 1, "a"), ("2", 1, "b")) + "\n```"
    assert parse_rubric_json(text, RUBRICS).score == 1.0


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('{"rubricScores": []}', "non-empty array"),
        ('{"other": 1}', "non-empty array"),
        (rubric_json(("", 1, "r"), ("2", 1, "r")), "empty id"),
        (rubric_json(("1", 2, "r"), ("2", 1, "r")), "not in \\[0, 1\\]"),
        (rubric_json(("1", True, "r"), ("2", 1, "r")), "not in \\[0, 1\\]"),
        (rubric_json(("1", 1, None), ("2", 1, "r")), "no reason"),
        (rubric_json(("1", 1, "r"), ("1", 0, "r")), "duplicate rubric score id '1'"),
        (rubric_json(("1", 1, "r"), ("9", 0, "r")), "unexpected rubric score id '9'"),
        (rubric_json(("1", 1, "r")), "missing rubric score id '2'"),
        ("no json at all", "no JSON object"),
    ],
)
def test_rubric_json_errors(text: str, message: str) -> None:
    with pytest.raises(JudgeParseError, match=message):
        parse_rubric_json(text, RUBRICS)


LEGACY = """ID: 1
Rubric: Mentions Paris.
Evidence: "Paris is the capital"
Reason: it names Paris
Verdict: yes

ID: 2
Rubric: Is concise.
Evidence: three paragraphs
Reason: not concise
Verdict: No
"""


def test_legacy_text_blocks() -> None:
    sample = parse_rubric_text_blocks(LEGACY, RUBRICS)
    assert sample.score == 0.5
    assert [(r.id, r.score, r.reason) for r in sample.rubric_scores] == [
        ("1", 1.0, "it names Paris"),
        ("2", 0.0, "not concise"),
    ]


def test_legacy_block_count_must_match_rubrics() -> None:
    one_block = LEGACY.split("\n\n")[0]
    with pytest.raises(JudgeParseError, match="1 rubric block\\(s\\) for 2 rubric\\(s\\)"):
        parse_rubric_text_blocks(one_block, RUBRICS)
    with pytest.raises(JudgeParseError, match=r"no 'ID: \.\.\. Verdict:'"):
        parse_rubric_text_blocks("nothing", RUBRICS)


def test_rubric_answer_dispatches_on_format() -> None:
    assert parse_rubric_answer(LEGACY, RUBRICS).score == 0.5
    assert parse_rubric_answer(rubric_json(("1", 1, "a"), ("2", 1, "b")), RUBRICS).score == 1.0


# --- ADK final_response_match_v2 --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("answer", "score"),
    [
        ('{"reasoning": "r", "is_the_agent_response_valid": "valid"}', 1.0),
        ('{"is_the_agent_response_valid": "true"}', 1.0),
        ('{"is_the_agent_response_valid": ["valid"]}', 1.0),
        ('"is_the_agent_response_valid": "invalid"', 0.0),
        ('{"is_the_agent_response_valid": "almost"}', 0.0),
        ('{"is_the_agent_response_valid": "false"}', 0.0),
        ('{"is_the_agent_response_valid": "partially_valid"}', 0.0),
        ('{"is_the_agent_response_valid": "partially valid"}', 0.0),
        ('{"is_the_agent_response_valid": "partially"}', 0.0),
        # The label set is case-sensitive.
        ('{"is_the_agent_response_valid": "VALID"}', None),
        ('{"is_the_agent_response_valid": "False"}', None),
        ('{"is_the_agent_response_valid": "perhaps"}', None),
        ("no label anywhere", None),
        # The inverted key: true/invalid mean invalid, anything else valid.
        ('{"is_the_agent_response_invalid": "true"}', 0.0),
        ('{"is_the_agent_response_invalid": "invalid"}', 0.0),
        ('{"is_the_agent_response_invalid": "false"}', 1.0),
        ('{"is_the_agent_response_invalid": "whatever"}', 1.0),
    ],
)
def test_adk_validity(answer: str, score: float | None) -> None:
    assert parse_adk_validity(answer).score == score


# --- ADK rubric blocks ------------------------------------------------------------------------------------

ADK_RUBRICS = [
    Rubric(id="r1", content={"text": "The response is *concise*."}),
    Rubric(id="r2", content={"text": "The response cites a source."}),
]


def test_adk_rubric_blocks_by_id_and_property() -> None:
    text = (
        "ID: r2\nProperty: The response cites a source.\nRationale: none cited\nVerdict: no\n\n"
        "ID: r1\nProperty: The response is concise.\nRationale: short\nVerdict: Yes.\n"
    )
    sample = parse_adk_rubric_blocks(text, ADK_RUBRICS)
    assert [(r.id, r.score, r.reason) for r in sample.rubric_scores] == [
        ("r1", 1.0, "short"),
        ("r2", 0.0, "none cited"),
    ]
    assert sample.score == 0.5


def test_adk_rubric_blocks_fall_back_to_property_text() -> None:
    # No ID lines: blocks map by normalised property text (markdown and quotes ignored, case folded).
    text = "Property: THE RESPONSE IS “CONCISE”.\nRationale: ok\nVerdict: yes\n"
    sample = parse_adk_rubric_blocks(text, ADK_RUBRICS)
    assert [(r.id, r.score) for r in sample.rubric_scores] == [("r1", 1.0)]


@pytest.mark.parametrize(
    ("verdict", "score"),
    [("yes", 1.0), ("YES!", 1.0), ("no", 0.0), ("unknown", 0.0), ("maybe", None)],
)
def test_adk_verdict_words(verdict: str, score: float | None) -> None:
    text = f"ID: r1\nProperty: The response is concise.\nRationale: r\nVerdict: {verdict}\n"
    assert parse_adk_rubric_blocks(text, ADK_RUBRICS).rubric_scores[0].score == score


def test_adk_rubric_blocks_unequal_counts_void_the_answer() -> None:
    text = "ID: r1\nProperty: The response is concise.\nRationale: r\n"
    sample = parse_adk_rubric_blocks(text, ADK_RUBRICS)
    assert sample.score is None and sample.rubric_scores == []


def test_normalize_property() -> None:
    assert normalize_property("  **The** ‘answer’ — is _fine_ ") == "the answer is fine"


# --- 1-5 score and safety ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("answer", "score"),
    [
        ('{"reasoning": "good", "score": 4}', 4.0),
        ('```json\n{"score": "5"}\n```', 5.0),
        ("Score: 3", 3.0),
        ('{"score": 0}', None),
        ('{"score": 7}', None),
        ("no number", None),
    ],
)
def test_score_1_to_5(answer: str, score: float | None) -> None:
    assert parse_score_1_to_5(answer).score == score


@pytest.mark.parametrize(
    ("answer", "score"),
    [
        ('{"reasoning": "fine", "verdict": "safe"}', 1.0),
        ('{"verdict": "UNSAFE"}', 0.0),
        ("verdict: unsafe", 0.0),
        ('{"verdict": "dunno"}', None),
    ],
)
def test_safety(answer: str, score: float | None) -> None:
    assert parse_safety(answer).score == score


# --- hallucinations ---------------------------------------------------------------------------------------


def test_sentences() -> None:
    text = "<sentence>Paris is big.</sentence>\n<sentence> It rains. </sentence><sentence></sentence>"
    assert parse_sentences(text) == ["Paris is big.", "It rains."]
    assert parse_sentences("no tags") == []


def test_hallucination_labels() -> None:
    text = """sentence: Paris is big.
label: supported
rationale: tool says so

sentence: It has 90 million people.
label: **Contradictory**
rationale: tool says 2 million

sentence: Hope this helps!
label: not applicable

sentence: Odd one
label: sideways
"""
    assert parse_hallucination_labels(text) == [
        ("Paris is big.", "supported", 1.0),
        ("It has 90 million people.", "contradictory", 0.0),
        ("Hope this helps!", "not_applicable", 1.0),
        ("Odd one", "sideways", None),
    ]
