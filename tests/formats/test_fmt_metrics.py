"""Native metrics arrays (with judgeModel env expansion) and ADK test_config.json."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agentgauge.formats import (
    ADK_EFFICIENCY_METRICS,
    default_adk_metrics,
    dump_metrics,
    expand_env,
    load_metrics,
    parse_metrics,
    to_test_config,
)

ENV = {"K": "secret", "P": "openai", "EMPTY": ""}


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("${K}", "secret"),
        ("$K", "secret"),
        ("prefix-${K}-suffix", "prefix-secret-suffix"),
        ("$P/$K", "openai/secret"),
        ("${UNDEFINED}", ""),
        ("$UNDEFINED-x", "-x"),
        ("plain", "plain"),
        ("cost $", "cost $"),
    ],
)
def test_expand_env(text: str, expected: str) -> None:
    assert expand_env(text, ENV) == expected


def test_only_judge_model_fields_are_expanded(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("JUDGE_KEY", "sk-123")
    monkeypatch.setenv("JUDGE_MODEL", "gpt-x")
    monkeypatch.delenv("NOPE", raising=False)
    doc = [
        {
            "metricName": "llm_final_response",
            "threshold": 0.9,
            "criterion": {
                "llmJudge": {
                    "judgeModel": {
                        "providerName": "${NOPE}openai",
                        "modelName": "$JUDGE_MODEL",
                        "variant": "v-${JUDGE_MODEL}",
                        "baseURL": "http://${NOPE}host",
                        "apiKey": "${JUDGE_KEY}",
                        "extraFields": {"x": "${JUDGE_KEY}"},
                        "numSamples": 3,
                    },
                    "rubrics": [{"id": "r", "content": {"text": "$JUDGE_KEY"}}],
                }
            },
        }
    ]
    [metric] = parse_metrics(json.dumps(doc))
    assert metric.criterion is not None and metric.criterion.llm_judge is not None
    judge = metric.criterion.llm_judge["judgeModel"]
    assert judge["providerName"] == "openai"
    assert judge["modelName"] == "gpt-x"
    assert judge["variant"] == "v-gpt-x"
    assert judge["baseURL"] == "http://host"
    assert judge["apiKey"] == "sk-123"
    assert judge["extraFields"] == {"x": "${JUDGE_KEY}"}
    assert metric.criterion.llm_judge["rubrics"][0]["content"]["text"] == "$JUDGE_KEY"
    written = dump_metrics([metric]).decode()
    assert "sk-123" not in written and '"apiKey": ""' in written
    raw = parse_metrics(json.dumps(doc), expand=False)[0]
    assert raw.criterion is not None and raw.criterion.llm_judge is not None
    assert raw.criterion.llm_judge["judgeModel"]["apiKey"] == "${JUDGE_KEY}"


def test_test_config_numbers_objects_and_custom_metrics() -> None:
    config = {
        "criteria": {
            "tool_trajectory_avg_score": {"threshold": 1.0, "match_type": "IN_ORDER", "ignore_args": False},
            "response_match_score": 0.8,
            "safety_v1": 1,
            "my_metric": {"threshold": "0.5"},
        },
        "custom_metrics": {"my_metric": {"code_config": {"name": "pkg.mod.fn"}}},
        "user_simulator_config": {"type": "llm_backed"},
        "anything": 1,
    }
    metrics = parse_metrics(json.dumps(config))
    assert [(m.metric_name, m.threshold) for m in metrics] == [
        ("tool_trajectory_avg_score", 1.0),
        ("response_match_score", 0.8),
        ("safety_v1", 1.0),
        ("my_metric", 0.5),
        # appended as ADK 2.x's get_eval_metrics_from_config appends them, without a criterion
        *((name, 0.0) for name in ADK_EFFICIENCY_METRICS),
    ]
    assert all(m.criterion is None for m in metrics[4:])
    assert metrics[0].criterion is not None
    assert metrics[0].criterion.adk == {"threshold": 1.0, "match_type": "IN_ORDER", "ignore_args": False}
    assert metrics[1].criterion is not None and metrics[1].criterion.adk == {"threshold": 0.8}
    assert metrics[3].extension == {"custom_metric": {"code_config": {"name": "pkg.mod.fn"}}}
    assert metrics[0].extension is None
    back = to_test_config(metrics)
    assert back["criteria"]["response_match_score"] == 0.8
    assert back["criteria"]["tool_trajectory_avg_score"]["match_type"] == "IN_ORDER"
    assert back["custom_metrics"] == {"my_metric": {"code_config": {"name": "pkg.mod.fn"}}}
    assert list(back["criteria"]) == list(config["criteria"])  # the appended metrics are not written back
    assert [m.metric_name for m in parse_metrics('{"criteria": {}}')] == list(ADK_EFFICIENCY_METRICS)
    named = parse_metrics('{"criteria": {"token_usage_v1": 5}}')
    assert [m.metric_name for m in named].count("token_usage_v1") == 1


def test_default_adk_metrics() -> None:
    metrics = default_adk_metrics()
    assert [(m.metric_name, m.threshold, m.criterion.adk if m.criterion else None) for m in metrics] == [
        ("tool_trajectory_avg_score", 1.0, {"threshold": 1.0}),
        ("response_match_score", 0.8, {"threshold": 0.8}),
        *((name, 0.0, None) for name in ADK_EFFICIENCY_METRICS),
    ]


def test_native_metrics_have_no_test_config_form() -> None:
    from agentgauge.errors import InputError

    metrics = parse_metrics('[{"metricName": "m", "threshold": 1, "criterion": {"toolTrajectory": {}}}]')
    with pytest.raises(InputError, match="uses a native criterion"):
        to_test_config(metrics)


def test_test_config_output_never_holds_an_api_key(tmp_path: Path) -> None:
    config = {
        "criteria": {
            "final_response_match_v2": {
                "threshold": 0.5,
                "judge_model_options": {"judge_model": "gemini-2.5-flash", "api_key": "sk-clear-123"},
            },
            "my_metric": {"threshold": 0.5},
        },
        "custom_metrics": {"my_metric": {"code_config": {"name": "m.f"}, "apiKey": "sk-custom-456"}},
    }
    source = tmp_path / "test_config.json"
    source.write_text(json.dumps(config))
    metrics = load_metrics(source)
    for fmt in ("adk", "native"):
        text = dump_metrics(metrics, fmt=fmt).decode()
        assert "sk-clear-123" not in text and "sk-custom-456" not in text
    doc = to_test_config(metrics)
    assert doc["criteria"]["final_response_match_v2"]["judge_model_options"]["api_key"] == ""
    assert doc["custom_metrics"]["my_metric"]["apiKey"] == ""
    judge = metrics[0].criterion.adk if metrics[0].criterion is not None else None
    assert judge is not None and judge["judge_model_options"]["api_key"] == "sk-clear-123"  # kept in memory

    from typer.testing import CliRunner

    from agentgauge.cli import app

    out = tmp_path / "out.json"
    res = CliRunner().invoke(app, ["convert", str(source), str(out), "--to", "adk"])
    assert res.exit_code == 0, res.output
    assert "sk-" not in out.read_text()
    assert json.loads(out.read_text())["criteria"]["final_response_match_v2"]["threshold"] == 0.5
