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
