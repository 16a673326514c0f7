"""The final-response criterion (with its XML rules) and the judge criteria load on first use: a run whose metrics
use neither does not import them, and the registry's final-response metric behaves as the evaluator itself."""

from __future__ import annotations

import subprocess
import sys

import agentgauge.criteria as criteria
import agentgauge.evaluators as evaluators
from agentgauge.model import EvalMetric, Invocation, Message


def test_every_exported_name_resolves_and_is_listed() -> None:
    for module in (criteria, evaluators):
        for name in module.__all__:
            assert getattr(module, name) is not None, (module.__name__, name)
        assert set(module.__all__) <= set(dir(module))


def test_a_registry_without_final_response_metrics_leaves_those_modules_unloaded() -> None:
    code = (
        "import sys\n"
        "from agentgauge.evaluators import Registry\n"
        "from agentgauge.model import EvalMetric\n"
        "registry = Registry()\n"
        "registry.validate_metrics([EvalMetric(metric_name='tool_trajectory_avg_score', threshold=1.0)])\n"
        "print(sorted(m for m in sys.modules if m.startswith(('agentgauge.criteria.', 'agentgauge.evaluators.'))))\n"
    )
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    for lazy in ("criteria._final_response", "criteria._xml", "criteria._llm", "evaluators._final_response"):
        assert f"agentgauge.{lazy}'" not in loaded, loaded


async def test_the_final_response_metric_loads_and_scores_on_first_use() -> None:
    registry = evaluators.Registry()
    metric = EvalMetric.model_validate(
        {"metricName": "final_response_avg_score", "threshold": 1, "criterion": {"finalResponse": {"text": {}}}}
    )
    evaluator = registry.resolve(metric)
    assert evaluator.name == "final_response_avg_score"
    same = Invocation(
        user_content=Message(role="user", content="q"), final_response=Message(role="assistant", content="a")
    )
    result = await evaluator.evaluate([same], [same], metric)
    assert result.overall_score == 1.0
    assert type(evaluator.criterion(metric)).__name__ == "FinalResponseCriterion"  # type: ignore[attr-defined]
