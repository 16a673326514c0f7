"""``eval --dialect adk|adk-ts`` and ``"dialect": "adk-ts"`` in test_config.json: the same recorded conversation
scored with Google ADK's rules or ADK-TS's, end to end through the command line."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from agentgauge.cli import app


def _turn(answer: str, args: dict[str, Any]) -> dict[str, Any]:
    return {
        "userContent": {"role": "user", "content": "weather?"},
        "finalResponse": {"role": "assistant", "content": answer},
        "tools": [{"name": "get_weather", "arguments": args}],
    }


@pytest.fixture
def recorded(tmp_path: Path) -> Path:
    """One trace case whose scores differ between the dialects: stemming, nested key order."""
    case = {
        "evalId": "weather",
        "evalMode": "trace",
        "conversation": [_turn("It is raining in Paris", {"where": {"city": "Paris", "cc": "FR"}})],
        "actualConversation": [_turn("it rains in paris", {"where": {"cc": "FR", "city": "Paris"}})],
    }
    path = tmp_path / "weather.evalset.json"
    path.write_text(json.dumps({"evalSetId": "weather", "evalCases": [case]}), encoding="utf-8")
    return path


def _scores(path: Path, config: dict[str, Any], *options: str) -> tuple[int, dict[str, Any], str]:
    (path.parent / "test_config.json").write_text(json.dumps(config), encoding="utf-8")
    out = path.parent / "out"
    done = CliRunner().invoke(app, ["eval", str(path), "--output-dir", str(out), "--json", *options])
    if done.exit_code == 2:
        return 2, {}, done.stderr
    case = json.loads(done.stdout)["evalCaseResults"][0]
    return done.exit_code, {m["metricName"]: m.get("score") for m in case["overallEvalMetricResults"]}, done.stderr


CRITERIA = {"criteria": {"tool_trajectory_avg_score": 1.0, "response_match_score": 0.5}}


def test_adk_rules_by_default(recorded: Path) -> None:
    code, scores, _ = _scores(recorded, CRITERIA)
    assert code == 0
    assert scores["tool_trajectory_avg_score"] == 1.0  # Python ==: key order ignored
    assert scores["response_match_score"] > 0.8  # stemmed: raining ~ rains
    assert "token_usage_v1" in scores  # ADK appends its efficiency metrics


@pytest.mark.parametrize("how", ["option", "file"])
def test_adk_ts_rules(recorded: Path, how: str) -> None:
    if how == "option":
        code, scores, _ = _scores(recorded, CRITERIA, "--dialect", "adk-ts")
    else:
        code, scores, _ = _scores(recorded, {**CRITERIA, "dialect": "adk-ts"})
    assert code == 1
    assert scores["tool_trajectory_avg_score"] == 0.0  # JSON.stringify: nested key order matters
    assert scores["response_match_score"] == pytest.approx(
        2 / 3
    )  # {it, in, paris}: 3 of 4 actual, 3 of 5 expected words
    if how == "file":
        assert "token_usage_v1" not in scores  # ADK-TS has no efficiency metrics


def test_option_overrides_the_file(recorded: Path) -> None:
    code, scores, _ = _scores(recorded, {**CRITERIA, "dialect": "adk-ts"}, "--dialect", "adk")
    assert code == 0 and scores["tool_trajectory_avg_score"] == 1.0


@pytest.mark.parametrize(
    ("config", "options", "message"),
    [
        (CRITERIA, ("--dialect", "adk-go"), "--dialect must be one of adk, adk-ts, got 'adk-go'"),
        ({**CRITERIA, "dialect": 3}, (), "test_config.json: dialect: unknown scoring dialect 3"),
        (
            {"criteria": {"tool_trajectory_avg_score": {"threshold": 1, "match_type": "IN_ORDER"}}},
            ("--dialect", "adk-ts"),
            "IN_ORDER is not available in the adk-ts dialect",
        ),
    ],
)
def test_refused(recorded: Path, config: dict[str, Any], options: tuple[str, ...], message: str) -> None:
    code, _, err = _scores(recorded, config, *options)
    assert code == 2
    assert message in " ".join(err.split())


def test_dialect_option_is_in_the_metrics_panel() -> None:
    done = CliRunner().invoke(app, ["eval", "--help"], env={"COLUMNS": "200"})
    assert done.exit_code == 0
    text = done.stdout
    assert "--dialect" in text and "Metrics" in text
