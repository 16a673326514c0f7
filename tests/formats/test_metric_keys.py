"""The rules behind the input checks, held against google-adk 2.13's own models: which objects refuse unknown keys
(``extra="forbid"``), which keys each ADK criterion and config object reads; and where a metric sits in each layout
of metrics file."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentgauge.formats import MetricPaths
from agentgauge.formats import _metric_keys as keys
from agentgauge.formats._unknown import _ADK_CLASSES, _SCHEMA
from agentgauge.model import Criterion, EvalMetric

adk_case = pytest.importorskip("google.adk.evaluation.eval_case")
adk_set = pytest.importorskip("google.adk.evaluation.eval_set")
adk_metrics = pytest.importorskip("google.adk.evaluation.eval_metrics")
adk_config = pytest.importorskip("google.adk.evaluation.eval_config")
adk_rubrics = pytest.importorskip("google.adk.evaluation.eval_rubrics")
adk_scenarios = pytest.importorskip("google.adk.evaluation.conversation_scenarios")
genai = pytest.importorskip("google.genai.types")

_ADK_MODELS = {
    "EvalSet": adk_set.EvalSet,
    "EvalCase": adk_set.EvalCase,
    "SessionInput": adk_case.SessionInput,
    "InvocationEvent": adk_case.InvocationEvent,
    "Invocation": adk_case.Invocation,
    "IntermediateData": adk_case.IntermediateData,
    "ConversationScenario": adk_case.ConversationScenario,
    "ConversationScenarios": adk_scenarios.ConversationScenarios,
    "Rubric": adk_rubrics.Rubric,
    "RubricContent": adk_rubrics.RubricContent,
    "Content": genai.Content,
    "Part": genai.Part,
    "FunctionCall": genai.FunctionCall,
    "FunctionResponse": genai.FunctionResponse,
}


@pytest.mark.parametrize(("kind", "rule"), sorted(_ADK_CLASSES.items()), ids=sorted(_ADK_CLASSES))
def test_an_adk_object_is_an_error_exactly_when_its_model_forbids_extra_keys(kind: str, rule: tuple[str, bool]) -> None:
    name, refuses = rule
    model = _ADK_MODELS[name]
    assert (model.model_config.get("extra") == "forbid") is refuses
    # every field ADK's model reads is a known key of the object (ADK's are snake_case, genai's too)
    assert set(model.model_fields) <= set(_SCHEMA[kind].known)


@pytest.mark.parametrize(("metric", "spec"), sorted(keys.adk_criterion_fields().items()))
def test_each_adk_criterion_reads_the_keys_of_its_adk_class(metric: str, spec: tuple[str, tuple[str, ...]]) -> None:
    cls, extra = spec
    model = getattr(adk_metrics, cls)
    assert model.model_config.get("extra") == "allow"  # kept: unknown keys are warnings
    assert set(model.model_fields) == {"threshold", "include_intermediate_responses_in_final", *extra}


@pytest.mark.parametrize(
    ("model", "known", "forbids"),
    [
        (adk_metrics.JudgeModelOptions, keys._JUDGE_OPTIONS, True),
        (adk_rubrics.Rubric, keys._RUBRIC, True),
        (adk_rubrics.RubricContent, keys._RUBRIC_CONTENT, True),
        (adk_config.EvalConfig, keys._TEST_CONFIG, False),
        (adk_config.CustomMetricConfig, keys._CUSTOM_METRIC, False),
        (adk_config.CodeConfig, ("name",), True),
        (adk_metrics.MetricInfo, keys._METRIC_INFO, True),
        (adk_metrics.Interval, keys._INTERVAL, True),
    ],
    ids=lambda v: getattr(v, "__name__", ""),
)
def test_the_config_objects_read_adks_keys(model: type, known: tuple[str, ...], forbids: bool) -> None:
    assert set(model.model_fields) <= set(known)  # type: ignore[attr-defined]
    assert (model.model_config.get("extra") == "forbid") is forbids  # type: ignore[attr-defined]


_METRIC = EvalMetric(metric_name="m", threshold=0.5, criterion=Criterion(adk={"threshold": 0.5, "match_type": 1}))


@pytest.mark.parametrize(
    ("paths", "name", "threshold", "criterion"),
    [
        (MetricPaths(), "[2].metricName", "[2].threshold", "[2].criterion"),
        (MetricPaths(prefix="metrics"), "metrics[2].metricName", "metrics[2].threshold", "metrics[2].criterion"),
        (MetricPaths("test_config"), "criteria.m", "criteria.m.threshold", "criteria.m"),
        (MetricPaths("agentevals"), "evaluators[2].name", "evaluators[2].threshold", "evaluators[2]"),
    ],
)
def test_metric_paths_of_each_layout(paths: MetricPaths, name: str, threshold: str, criterion: str) -> None:
    assert (paths.name(2, _METRIC), paths.threshold(2, _METRIC), paths.criterion(2, _METRIC)) == (
        name,
        threshold,
        criterion,
    )
    number = EvalMetric(metric_name="m", threshold=0.5, criterion=Criterion(adk={"threshold": 0.5}))
    assert MetricPaths("test_config").threshold(0, number) == "criteria.m"  # "m": 0.5


@pytest.mark.parametrize(
    ("name", "content", "layout"),
    [
        ("eval_config.yaml", "evaluators: []", MetricPaths("agentevals")),
        ("test_config.json", '\ufeff \n {"criteria": {}}', MetricPaths("test_config")),
        ("x.metrics.json", '  [{"metricName": "m"}]', MetricPaths()),
        ("missing.json", None, MetricPaths(prefix="metrics")),
    ],
)
def test_the_layout_is_read_from_the_file(tmp_path: Path, name: str, content: str | None, layout: MetricPaths) -> None:
    path = tmp_path / name
    if content is not None:
        path.write_text(content, encoding="utf-8")
    assert MetricPaths.of_file(path) == layout
    assert MetricPaths.of_file(None) == MetricPaths(prefix="metrics")
