"""API keys in criteria never leave the process: not in JSON, not in repr()."""

from __future__ import annotations

import pytest

from agentgauge.model import EvalMetric, EvalMetricResult


@pytest.mark.parametrize(
    "criterion",
    [
        {"llmJudge": {"judgeModel": {"apiKey": "sk-secret-123", "modelName": "m"}}},
        {"adk": {"threshold": 0.5, "judge_model_options": {"api_key": "sk-secret-123"}}},
    ],
)
def test_api_key_is_blanked_in_json_and_repr_but_kept_in_memory(criterion: dict[str, object]) -> None:
    metric = EvalMetric.model_validate({"metricName": "m", "threshold": 0.5, "criterion": criterion})
    result = EvalMetricResult(metric_name="m", criterion=metric.criterion)
    for text in (metric.model_dump_json(), result.model_dump_json(), repr(metric), repr(result), str(metric)):
        assert "sk-secret-123" not in text
    assert metric.criterion is not None
    block = metric.criterion.llm_judge or metric.criterion.adk
    assert "sk-secret-123" in repr(block)  # the judge still gets the real key


def test_api_keys_anywhere_in_a_metric_are_blanked_on_output() -> None:
    # Custom evaluators read keys from ``extension`` or from criterion blocks agentgauge does not know.
    metric = EvalMetric.model_validate(
        {
            "metricName": "custom",
            "threshold": 0.5,
            "apiKey": "sk-top-1",
            "extension": {"client": {"apiKey": "sk-ext-2"}},
            "criterion": {"finalResponse": {"api_key": "sk-fr-3"}, "myJudge": {"apiKey": "sk-extra-4"}},
        }
    )
    result = EvalMetricResult(metric_name="custom", criterion=metric.criterion)
    texts = [metric.model_dump_json(), result.model_dump_json(), repr(metric), repr(result), str(metric.criterion)]
    texts += [str(metric.model_dump()), str(metric.model_dump(mode="json")), str(result.model_dump(by_alias=False))]
    for text in texts:
        for secret in ("sk-top-1", "sk-ext-2", "sk-fr-3", "sk-extra-4"):
            assert secret not in text
    dumped = metric.model_dump(mode="json")
    assert dumped["apiKey"] == "" and dumped["extension"] == {"client": {"apiKey": ""}}
    assert dumped["criterion"] == {"finalResponse": {"api_key": ""}, "myJudge": {"apiKey": ""}}
    assert metric.extension == {"client": {"apiKey": "sk-ext-2"}}  # in memory the evaluator still gets the key
    assert EvalMetric.model_validate_json(metric.model_dump_json()).metric_name == "custom"
