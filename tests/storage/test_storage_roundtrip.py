"""Property test: whatever is stored through a manager comes back unchanged."""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "formats"))
from fmt_strategies import eval_sets

from agentgauge.model import EvalMetric, EvalSet, EvalSetResult
from agentgauge.storage import (
    InMemoryEvalResultManager,
    InMemoryEvalSetManager,
    InMemoryMetricManager,
    LocalEvalResultManager,
    LocalEvalSetManager,
    LocalMetricManager,
)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(eval_sets)
def test_eval_sets_survive_every_manager(eval_set: EvalSet) -> None:
    expected = eval_set.model_dump(mode="json")
    with tempfile.TemporaryDirectory() as tmp:
        for manager in (LocalEvalSetManager(tmp), InMemoryEvalSetManager()):
            manager.put("app", eval_set)
            assert manager.get("app", eval_set.eval_set_id).model_dump(mode="json") == expected
            for case in eval_set.eval_cases:
                got = manager.get_case("app", eval_set.eval_set_id, case.eval_id)
                assert got.model_dump(mode="json") == case.model_dump(mode="json")


@settings(max_examples=20, deadline=None)
@given(eval_sets)
def test_metrics_and_results_survive_every_manager(eval_set: EvalSet) -> None:
    metrics = [
        EvalMetric(metric_name=f"m{i}", threshold=i / 3, extension={"case": c.eval_id})
        for i, c in enumerate(eval_set.eval_cases)
    ]
    result = EvalSetResult(
        eval_set_id=eval_set.eval_set_id, eval_set_result_id="r", creation_timestamp=1.5, eval_case_results=[]
    )
    with tempfile.TemporaryDirectory() as tmp:
        for mm in (LocalMetricManager(tmp), InMemoryMetricManager()):
            mm.put_all("app", eval_set.eval_set_id, metrics)
            assert [m.model_dump(mode="json") for m in mm.get_all("app", eval_set.eval_set_id)] == [
                m.model_dump(mode="json") for m in metrics
            ]
        for rm in (LocalEvalResultManager(tmp), InMemoryEvalResultManager()):
            rm.save("app", result)
            assert rm.get("app", "r").model_dump(mode="json") == result.model_dump(mode="json")
