"""The native model: key styles, preserved unknown keys, statuses, compact output, secret redaction."""

from __future__ import annotations

import json

import pytest
from pydantic import ValidationError

from agentgauge.model import (
    Criterion,
    EvalCase,
    EvalMetric,
    EvalMetricResult,
    EvalSet,
    EvalStatus,
    Invocation,
    Message,
    Tool,
    parse_status,
    status_for_score,
    summarize_statuses,
)


@pytest.mark.parametrize(
    "doc",
    [
        {"evalSetId": "s", "evalCases": [{"evalId": "c", "sessionInput": {"appName": "a"}}]},
        {"eval_set_id": "s", "eval_cases": [{"eval_id": "c", "session_input": {"app_name": "a"}}]},
        {"evalSetId": "s", "eval_cases": [{"eval_id": "c", "sessionInput": {"app_name": "a"}}]},
    ],
    ids=["camel", "snake", "mixed"],
)
def test_key_styles(doc: dict[str, object]) -> None:
    es = EvalSet.model_validate(doc)
    assert es.eval_cases[0].session_input is not None and es.eval_cases[0].session_input.app_name == "a"
    assert es.model_dump(mode="json") == {
        "evalSetId": "s",
        "evalCases": [{"evalId": "c", "sessionInput": {"appName": "a"}}],
    }


def test_unknown_keys_round_trip() -> None:
    doc = {
        "evalSetId": "s",
        "futureTop": {"a": 1},
        "evalCases": [
            {
                "evalId": "c",
                "expectedRunnerEnabled": True,
                "conversation": [
                    {
                        "userContent": {"role": "user", "content": "x", "tool_calls": [1]},
                        "toolMock": {"actual": [{"name": "w", "result": 1, "future": True}]},
                        "tools": [{"id": "t", "name": "n", "arguments": [1], "result": "s", "meta": 2}],
                    }
                ],
            }
        ],
    }
    again = json.loads(EvalSet.model_validate(doc).model_dump_json())
    assert again["futureTop"] == {"a": 1}
    case = again["evalCases"][0]
    assert case["expectedRunnerEnabled"] is True
    inv = case["conversation"][0]
    assert inv["userContent"]["tool_calls"] == [1] and inv["toolMock"] == {
        "actual": [{"name": "w", "result": 1, "future": True}]
    }
    assert inv["tools"][0] == {"id": "t", "name": "n", "arguments": [1], "result": "s", "meta": 2}


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("passed", EvalStatus.PASSED),
        ("FAILED", EvalStatus.FAILED),
        ("EvalStatus.NOT_EVALUATED", EvalStatus.NOT_EVALUATED),
        ("not-evaluated", EvalStatus.NOT_EVALUATED),
        (1, EvalStatus.PASSED),
        (2, EvalStatus.FAILED),
        (3, EvalStatus.NOT_EVALUATED),
        (4, EvalStatus.INFORMATIONAL),
        ("4", EvalStatus.INFORMATIONAL),
    ],
)
def test_status_spellings(value: object, expected: EvalStatus) -> None:
    assert parse_status(value) is expected
    assert EvalMetricResult.model_validate({"metricName": "m", "evalStatus": value}).eval_status is expected


@pytest.mark.parametrize("value", [0, 5, True, "great", None, 1.5])
def test_bad_statuses(value: object) -> None:
    with pytest.raises(ValueError, match="unknown status"):
        parse_status(value)
    with pytest.raises(ValidationError):
        EvalMetricResult.model_validate({"metricName": "m", "evalStatus": value})


def test_status_rules() -> None:
    assert status_for_score(0.8, 0.8) is EvalStatus.PASSED
    assert status_for_score(0.79, 0.8) is EvalStatus.FAILED
    assert status_for_score(None, 0.8) is EvalStatus.NOT_EVALUATED
    assert summarize_statuses([EvalStatus.PASSED, EvalStatus.FAILED]) is EvalStatus.FAILED
    assert summarize_statuses([EvalStatus.INFORMATIONAL, EvalStatus.PASSED]) is EvalStatus.PASSED
    assert summarize_statuses([]) is EvalStatus.NOT_EVALUATED


def test_omit_empty_output() -> None:
    inv = Invocation(user_content=Message(content=""), final_response=None, tools=[], creation_timestamp=None)
    assert inv.model_dump(mode="json") == {"userContent": {"role": "user", "content": ""}}
    result = EvalMetricResult(metric_name="m")
    assert result.model_dump(mode="json") == {
        "metricName": "m",
        "score": None,
        "evalStatus": "not_evaluated",
        "threshold": 0.0,
    }
    assert EvalCase(eval_id="c").model_dump(mode="json") == {"evalId": "c"}


def test_tool_ids_are_generated_when_absent() -> None:
    a, b = Tool(name="x"), Tool(name="x")
    assert a.id.startswith("call_") and a.id != b.id
    assert Tool(name="x", id="given").id == "given"


def test_api_key_is_redacted_whenever_a_criterion_is_serialised() -> None:
    metric = EvalMetric(
        metric_name="llm",
        criterion=Criterion(llm_judge={"judgeModel": {"apiKey": "sk-secret", "nested": [{"api_key": "k"}]}}),
    )
    text = metric.model_dump_json()
    assert "sk-secret" not in text and '"k"' not in text
    assert metric.criterion is not None and metric.criterion.llm_judge is not None
    assert metric.criterion.llm_judge["judgeModel"]["apiKey"] == "sk-secret"  # in memory it stays usable
    dumped = EvalMetricResult(metric_name="llm", criterion=metric.criterion).model_dump(mode="json")
    assert dumped["criterion"]["llmJudge"]["judgeModel"]["apiKey"] == ""
