"""``Registry.validate_metrics`` as the one check of metrics on every path: did-you-mean for metric names, the JSON
path of the file's layout, thresholds within each metric's value range, and the unknown keys of a metric, its
criterion and its criterion blocks (warnings, with their paths), without false alarms on keys agentgauge reads."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest

from agentgauge.errors import InputError
from agentgauge.evaluators import MetricInfo, Registry
from agentgauge.formats import InputReport, MetricPaths, parse_metrics
from agentgauge.model import UNSAVED_KEY, Criterion, EvalMetric

ROOT = Path(__file__).resolve().parents[2]


def _refused(metrics: list[EvalMetric], paths: MetricPaths) -> InputError:
    with pytest.raises(InputError) as info:
        Registry().validate_metrics(metrics, file="f", paths=paths)
    return info.value


@pytest.mark.parametrize(
    ("paths", "location"),
    [
        (MetricPaths("test_config"), "criteria.response_match"),
        (MetricPaths(), "[1].metricName"),
        (MetricPaths(prefix="metrics"), "metrics[1].metricName"),
        (MetricPaths("agentevals"), "evaluators[1].name"),
    ],
    ids=["test_config.json", "metrics array", "request body", "eval_config.yaml"],
)
def test_a_metric_name_typo_gets_its_paths_and_the_closest_name(paths: MetricPaths, location: str) -> None:
    metrics = [EvalMetric(metric_name="tool_trajectory_avg_score"), EvalMetric(metric_name="response_match")]
    error = _refused(metrics, paths)
    assert error.location == location
    assert error.message.startswith("unknown metric 'response_match' (did you mean 'response_match_score'?); ")
    assert "valid metrics: final_response_avg_score, " in error.message


def test_a_name_close_to_nothing_lists_the_names_only() -> None:
    error = _refused([EvalMetric(metric_name="zzzzzzzz")], MetricPaths())
    assert error.message.startswith("unknown metric 'zzzzzzzz'; valid metrics: ")


@pytest.mark.parametrize(
    ("name", "threshold", "criterion", "refused"),
    [
        ("response_match_score", 80.0, Criterion(adk={"threshold": 80}), True),
        ("response_match_score", 1.0, Criterion(adk={"threshold": 1}), False),
        ("response_match_score", -0.1, Criterion(adk={"threshold": -0.1}), True),
        ("response_match_score", math.nan, Criterion(adk={"threshold": math.nan}), True),
        ("response_evaluation_score", 4.0, Criterion(adk={"threshold": 4}), False),  # ADK's 1-5 coherence score
        ("response_evaluation_score", 6.0, Criterion(adk={"threshold": 6}), True),
        ("tool_call_count_v1", 0.0, None, False),  # informational, range [0, inf)
        ("final_response_avg_score", 80.0, Criterion(final_response={"text": {}}), True),
    ],
)
def test_thresholds_outside_the_metrics_range_are_refused(
    name: str, threshold: float, criterion: Criterion | None, refused: bool
) -> None:
    metric = EvalMetric(metric_name=name, threshold=threshold, criterion=criterion)
    if not refused:
        Registry().validate_metrics([metric], paths=MetricPaths("test_config"))
        return
    error = _refused([metric], MetricPaths("test_config"))
    info = Registry().info(name)
    assert error.location == f"criteria.{name}"
    assert error.message == (
        f"threshold {threshold:g} is outside the range of {name}'s scores, [{info.min_value:g}, {info.max_value:g}]"
    )


def test_a_plugin_metric_declares_its_own_range() -> None:
    registry = Registry()
    registry.register(
        Registry().get("response_match_score"), name="percent", info=MetricInfo("percent", "", False, False, 0, 100)
    )
    registry.validate_metrics([EvalMetric(metric_name="percent", threshold=80)])
    with pytest.raises(InputError, match=r"threshold 101 is outside the range of percent's scores, \[0, 100\]"):
        registry.validate_metrics([EvalMetric(metric_name="percent", threshold=101)])


def _warnings(doc: Any, paths: MetricPaths | None = None) -> list[tuple[str, str | None]]:
    report = InputReport()
    metrics = parse_metrics(json.dumps(doc), source="m.json", report=report)
    layout = paths or (MetricPaths("test_config") if isinstance(doc, dict) else MetricPaths())
    Registry().validate_metrics(metrics, file="m.json", report=report, paths=layout)
    assert all(p.file == "m.json" for p in report.problems)
    return [(p.path, p.suggestion) for p in report.problems]


# (id, document, [(JSON path, did-you-mean)])
KEY_CASES: list[tuple[str, Any, list[tuple[str, str | None]]]] = [
    (
        "metric key",
        [{"metricName": "response_match_score", "threshold": 0.5, "treshold": 1}],
        [("[0].treshold", "threshold")],
    ),
    (
        "criterion block",
        [{"metricName": "tool_trajectory_avg_score", "criterion": {"toolTrajectroy": {}}}],
        [("[0].criterion.toolTrajectroy", "toolTrajectory")],
    ),
    (
        "tool trajectory, nested",
        [
            {
                "metricName": "tool_trajectory_avg_score",
                "threshold": 1,
                "criterion": {
                    "toolTrajectory": {
                        "orderSensitve": True,
                        "defaultStrategy": {"argumnets": {}, "name": {"matchStrategy": "exact", "ignroe": True}},
                        "toolStrategy": {"lookup": {"result": {"onlyTre": {}}}},
                    }
                },
            }
        ],
        [
            ("[0].criterion.toolTrajectory.orderSensitve", "orderSensitive"),
            ("[0].criterion.toolTrajectory.defaultStrategy.argumnets", "arguments"),
            ("[0].criterion.toolTrajectory.defaultStrategy.name.ignroe", "ignore"),
            ("[0].criterion.toolTrajectory.toolStrategy.lookup.result.onlyTre", "onlyTree"),
        ],
    ),
    (
        "final response",
        [{"metricName": "final_response_avg_score", "criterion": {"finalResponse": {"text": {}, "rogue": {}}}}],
        [("[0].criterion.finalResponse.rogue", "rouge")],
    ),
    (
        "judge block",
        [
            {
                "metricName": "llm_rubric_response",
                "criterion": {
                    "llmJudge": {
                        "rubrics": [{"id": "1", "content": {"text": "t"}, "descripton": "d"}],
                        "judgeModel": {"modelName": "m", "numSampels": 2, "timeout": 10},
                        "template": {"prompt": "p"},
                    }
                },
            }
        ],
        [
            ("[0].criterion.llmJudge.rubrics[0].descripton", "description"),
            ("[0].criterion.llmJudge.judgeModel.numSampels", "numSamples"),
        ],
    ),
    (
        "test_config criterion ADK keeps",
        {"criteria": {"tool_trajectory_avg_score": {"threshold": 1, "ignore_arg": True}}},
        [("criteria.tool_trajectory_avg_score.ignore_arg", "ignore_args")],
    ),
    (
        "test_config rubric ADK refuses",
        {
            "criteria": {
                "rubric_based_final_response_quality_v1": {
                    "threshold": 0.5,
                    "rubrics": [{"rubric_id": "r", "rubric_content": {"text_propery": "x"}}],
                }
            }
        },
        [("criteria.rubric_based_final_response_quality_v1.rubrics[0].rubric_content.text_propery", "text_property")],
    ),
    (
        "test_config custom metric",
        {
            "criteria": {"mine": 0.5},
            "custom_metrics": {"mine": {"code_config": {"name": "m.f", "nme": 1}, "descripton": "d"}},
        },
        [("custom_metrics.mine.descripton", "description"), ("custom_metrics.mine.code_config.nme", "name")],
    ),
]


@pytest.mark.parametrize(("doc", "expected"), [c[1:] for c in KEY_CASES], ids=[c[0] for c in KEY_CASES])
def test_unknown_metric_keys_are_named_with_their_paths(doc: Any, expected: list[tuple[str, str | None]]) -> None:
    registry_skip = isinstance(doc, dict) and "custom_metrics" in doc
    if registry_skip:  # a custom metric's code is imported when it is checked: its keys come from the reader
        report = InputReport()
        parse_metrics(json.dumps(doc), source="m.json", report=report)
        assert sorted((p.path, p.suggestion) for p in report.problems) == sorted(expected)
        assert [p.severity for p in report.problems if "code_config" in p.path] == ["error"]
        return
    assert _warnings(doc) == expected


def test_keys_agentgauge_reads_or_writes_are_known() -> None:
    criterion = {
        "finalResponse": {"text": {"matchStrategy": "contains"}, UNSAVED_KEY: "Python compare functions ..."},
        "assertion": {"tools": ["x"]},
    }
    doc = [
        {"metricName": "final_response_avg_score", "threshold": 1, "reducer": "median", "criterion": criterion},
        {
            "metricName": "llm_rubric_response",
            "criterion": {"llmJudge": {"judgeModel": {"modelName": "m"}, "evaluateIntermediateNlResponses": True}},
        },
    ]
    assert _warnings(doc) == []


_REFUSED = {"adk_ts_guardrails.test_config.json"}  # ADK-TS's sample, kept to show that its metric names are refused


@pytest.mark.parametrize(
    "path",
    sorted(
        p
        for p in [*ROOT.glob("examples/**/*.json"), *ROOT.glob("tests/**/data/**/*.json")]
        if p.name.endswith((".metrics.json", "test_config.json")) and p.name not in _REFUSED
    ),
    ids=lambda p: str(p.relative_to(ROOT)),
)
def test_the_shipped_metrics_files_have_no_unknown_keys(path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from agentgauge.formats import load_metrics

    monkeypatch.syspath_prepend(str(ROOT))
    registry = Registry()
    registry.load_plugins(["examples.plugins.length_plugin"], start=ROOT)
    report = InputReport()
    metrics = load_metrics(path, expand=False, report=report)
    custom = [m.metric_name for m in metrics if isinstance(m.extension, dict) and "custom_metric" in m.extension]
    registry.validate_metrics(metrics, file=str(path), report=report, skip=custom, checking_file=True)
    assert [p.line() for p in report.problems if "judgeModel is not set" not in p.message] == []


def test_a_metric_without_a_threshold_is_not_refused_for_its_range() -> None:
    Registry().validate_metrics([EvalMetric(metric_name="response_evaluation_score")])  # range 1-5, default 0
    with pytest.raises(InputError, match=r"threshold 0 is outside the range of response_evaluation_score's scores"):
        Registry().validate_metrics([EvalMetric(metric_name="response_evaluation_score", threshold=0)])
