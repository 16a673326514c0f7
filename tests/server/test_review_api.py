"""The review routes: case lists, replay with marked differences, span timeline, history and the metric picker."""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from typer.testing import CliRunner

from agentgauge.cli import app as cli
from agentgauge.server import ServerConfig, create_app

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
API = "/api/apps/trace_mode"


@pytest.fixture(scope="module")
def made(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """A folder with the trace-mode and ADK examples and one trace-mode result of ``weather_usage``."""
    root = tmp_path_factory.mktemp("review-api")
    shutil.copytree(EXAMPLES / "trace_mode", root / "evals" / "trace_mode")
    shutil.copytree(EXAMPLES / "home_automation", root / "evals" / "home_automation")
    results = root / "data" / "results" / "trace_mode"
    results.mkdir(parents=True)
    out = root / "out"
    done = CliRunner().invoke(
        cli, ["eval", str(root / "evals" / "trace_mode" / "weather_usage.evalset.json"), "--output-dir", str(out)]
    )
    assert done.exit_code == 1, done.output  # one case fails
    (file,) = out.rglob("*.evalset_result.json")
    shutil.copy(file, results)
    return root, file.name.removesuffix(".evalset_result.json")


@pytest.fixture
def served(made: tuple[Path, str], tmp_path: Path) -> Iterator[tuple[TestClient, Path, str]]:
    """A client of a server over a fresh copy of the folder."""
    root = tmp_path / "root"
    shutil.copytree(made[0], root)
    with TestClient(create_app(ServerConfig(data_dir=root / "data", evals_dir=root / "evals"))) as client:
        yield client, root, made[1]


def _ok(answer: Any) -> Any:
    assert answer.status_code == 200, answer.text
    return answer.json()


def test_set_case_list_has_last_status_and_first_reason(served: tuple[TestClient, Path, str]) -> None:
    client, _, rid = served
    data = _ok(client.get(f"{API}/eval-sets/weather_usage/case-list"))
    assert data["resultId"] == rid
    rows = {r["evalId"]: r for r in data["cases"]}
    assert rows["paris_today"]["status"] == "passed" and rows["paris_today"]["reason"] is None
    assert rows["oslo_fahrenheit"]["status"] == "failed"
    assert rows["oslo_fahrenheit"]["reason"].startswith(
        "tool_trajectory_avg_score (invocation 1): score 0 < threshold 1"
    )
    assert rows["oslo_fahrenheit"]["text"] == "How warm will it get in Oslo today, in Fahrenheit?"
    never = _ok(client.get(f"{API}/eval-sets/calculator_traces/case-list"))
    assert never["resultId"] is None and {r["status"] for r in never["cases"]} == {None}
    assert len(never["cases"]) == 4
    assert client.get(f"{API}/eval-sets/missing/case-list").status_code == 404


def test_replay_marks_the_differences_a_failed_metric_compared(served: tuple[TestClient, Path, str]) -> None:
    client, _, rid = served
    data = _ok(client.get(f"{API}/results/{rid}/cases/oslo_fahrenheit/replay"))
    assert (data["status"], data["runIds"]) == ("failed", [1])
    (turn,) = data["turns"]
    assert turn["status"] == "failed" and turn["user"] == "How warm will it get in Oslo today, in Fahrenheit?"
    assert [e["kind"] for e in turn["events"]] == ["tool_call", "tool_result", "tool_call", "tool_result"]
    assert turn["events"][0]["diff"] is None  # an equal call is not marked
    assert turn["events"][2]["diff"] == [
        {"op": "=", "text": 'celsius_to_fahrenheit({"celsius": '},
        {"op": "+", "text": "12"},
        {"op": "=", "text": "})"},
    ]
    assert turn["expected"]["toolCalls"][1][1] == {"op": "-", "text": "11"}
    # A 'contains' criterion: the expected text is what the answer lacked, not a version to word-diff.
    assert turn["expected"]["responseStrategy"] == "must contain"
    assert turn["expected"]["finalResponse"] == [{"op": "-", "text": "51.8"}]
    assert turn["finalResponseDiff"] is None
    reasons = {m["metricName"]: m["reason"] for m in turn["metrics"]}
    assert "does not contain expected '51.8'" in reasons["final_response_avg_score"]
    assert (turn["duration"], turn["inputTokens"], turn["outputTokens"]) == (2.95, 655, 44)
    passed = _ok(client.get(f"{API}/results/{rid}/cases/paris_today/replay"))["turns"][0]
    assert passed["status"] == "passed" and all(e["diff"] is None for e in passed["events"])
    assert passed["expected"]["toolCalls"] == [[{"op": "=", "text": 'get_weather({"city": "Paris"})'}]]


def test_replay_bad_input_is_a_4xx_naming_the_field(served: tuple[TestClient, Path, str]) -> None:
    client, _, rid = served
    missing = client.get(f"{API}/results/{rid}/cases/nope/replay")
    assert missing.status_code == 404 and "case 'nope' is not in this result" in missing.json()["detail"]
    run = client.get(f"{API}/results/{rid}/cases/paris_today/replay?runId=3")
    assert run.status_code == 400 and run.json()["detail"].startswith("runId: case 'paris_today' has no run 3")
    zero = client.get(f"{API}/results/{rid}/cases/paris_today/timeline?runId=0")
    assert zero.status_code == 422 and zero.json()["detail"].startswith("query.runId:")
    assert client.get(f"{API}/results/nope/cases/paris_today/replay").status_code == 404
    assert client.get(f"{API}/results/{rid}/cases/bad%0Aid/replay").status_code == 400


def test_timeline_from_recorded_invocation_timings(served: tuple[TestClient, Path, str]) -> None:
    client, root, rid = served
    data = _ok(client.get(f"{API}/results/{rid}/cases/oslo_fahrenheit/timeline"))
    assert data["source"] == "invocations" and "No spans were recorded" in data["note"]
    turn, model, tools = data["spans"]
    assert (turn["kind"], turn["duration"], turn["turn"], turn["aggregate"]) == ("agent", 2.95, 1, False)
    assert (model["name"], model["duration"], model["inputTokens"], model["aggregate"]) == (
        "model calls (3)",
        2.71,
        655,
        True,
    )
    assert (tools["name"], tools["duration"]) == ("tools: get_weather, celsius_to_fahrenheit", 0.05)
    assert data["total"] == 2.95
    # A result without any timing (as ADK writes them) has nothing to draw, and says so.
    path = root / "data" / "results" / "trace_mode" / f"{rid}.evalset_result.json"
    document = json.loads(path.read_text())
    for case in document["evalCaseResults"]:
        for per in case["evalMetricResultPerInvocation"]:
            for key in ("duration", "modelDuration", "toolDuration", "usage", "creationTimestamp"):
                per["actualInvocation"].pop(key, None)
    path.write_text(json.dumps(document))
    bare = _ok(client.get(f"{API}/results/{rid}/cases/oslo_fahrenheit/timeline"))
    assert (bare["source"], bare["spans"]) == ("none", [])


def test_timeline_from_recorded_spans_links_each_span_to_its_turn(served: tuple[TestClient, Path, str]) -> None:
    from agentgauge.server._adk_trace import session_spans

    client, root, rid = served
    path = root / "data" / "results" / "trace_mode" / f"{rid}.evalset_result.json"
    document = json.loads(path.read_text())
    case = next(c for c in document["evalCaseResults"] if c["evalId"] == "paris_today")
    case["sessionId"] = "review-spans-session"
    invocation_id = case["evalMetricResultPerInvocation"][0]["actualInvocation"]["invocationId"]
    path.write_text(json.dumps(document))
    base = 1_700_000_000_000_000_000
    spans = [
        ("invoke_agent weather", 1, None, 0, 900, {"gcp.vertex.agent.invocation_id": invocation_id}),
        ("call_llm", 2, 1, 10, 400, {"gen_ai.request.model": "gpt-4o-mini", "gen_ai.usage.input_tokens": 120}),
        ("execute_tool get_weather", 3, 1, 420, 470, {"gen_ai.tool.name": "get_weather"}),
    ]
    for name, span_id, parent, start, end, attributes in spans:
        session_spans().add(
            {
                "name": name,
                "start_time": base + start * 1_000_000,
                "end_time": base + end * 1_000_000,
                "trace_id": 77,
                "span_id": span_id,
                "parent_span_id": parent,
                "attributes": {"gcp.vertex.agent.session_id": "review-spans-session", **attributes},
                "logs": [],
            }
        )
    data = _ok(client.get(f"{API}/results/{rid}/cases/paris_today/timeline"))
    assert data["source"] == "spans"
    bars = [
        (s["name"], s["kind"], s["depth"], s["turn"], round(s["start"], 3), round(s["duration"], 3))
        for s in data["spans"]
    ]
    assert bars == [
        ("invoke_agent weather", "agent", 0, 1, 0.0, 0.9),
        ("call_llm", "model", 1, 1, 0.01, 0.39),
        ("execute_tool get_weather", "tool", 1, 1, 0.42, 0.05),
    ]
    assert data["spans"][1]["inputTokens"] == 120 and data["spans"][1]["model"] == "gpt-4o-mini"


def test_history_has_pass_rates_metric_means_and_the_matrix(served: tuple[TestClient, Path, str]) -> None:
    client, root, rid = served
    folder = root / "data" / "results" / "trace_mode"
    later = json.loads((folder / f"{rid}.evalset_result.json").read_text())
    later["evalSetResultId"] = "later_run"
    later["creationTimestamp"] += 60
    later["evalCaseResults"] = [c for c in later["evalCaseResults"] if c["evalId"] == "paris_today"]
    later.pop("summary", None)
    later["runMetadata"] = {"labels": {"env": "prod"}, "gitCommit": "abcdef1234567890", "gitDirty": True}
    (folder / "later_run.evalset_result.json").write_text(json.dumps(later))
    data = _ok(client.get(f"{API}/eval-sets/weather_usage/history"))
    assert [r["resultId"] for r in data["runs"]] == [rid, "later_run"]  # oldest first
    assert [(r["passRate"], r["passed"], r["total"], r["failedCases"]) for r in data["runs"]] == [
        (0.5, 1, 2, 1),
        (1.0, 1, 1, 0),
    ]
    assert data["runs"][0]["metricMeans"] == {"tool_trajectory_avg_score": 0.5, "final_response_avg_score": 0.5}
    assert (data["cases"], data["matrix"]) == (["paris_today", "oslo_fahrenheit"], ["PF", "P-"])
    metadata = [r["metadata"] for r in data["runs"]]
    assert metadata[1] == {"env": "prod", "git commit": "abcdef123456", "git dirty": "true"}
    assert "env" not in metadata[0] and "agentgauge" in metadata[0]  # the CLI's run: its provenance, no label
    newest = _ok(client.get(f"{API}/eval-sets/weather_usage/history?limit=1"))
    assert ([r["resultId"] for r in newest["runs"]], newest["truncated"]) == (["later_run"], 1)
    bad = client.get(f"{API}/eval-sets/weather_usage/history?limit=0")
    assert bad.status_code == 422 and bad.json()["detail"].startswith("query.limit:")


def test_picker_saves_a_native_file_keeping_each_entrys_options(served: tuple[TestClient, Path, str]) -> None:
    client, root, _ = served
    picker = _ok(client.get(f"{API}/eval-sets/weather_usage/metric-picker"))
    assert (picker["file"], picker["dialect"]) == ("weather_usage.metrics.json", "native")
    chosen = {m["name"]: m for m in picker["metrics"] if m["chosen"]}
    assert set(chosen) == {"tool_trajectory_avg_score", "final_response_avg_score"}
    assert chosen["tool_trajectory_avg_score"]["threshold"] == 1.0
    info = next(m for m in picker["metrics"] if m["name"] == "response_match_score")
    assert (info["defaultThreshold"], info["minValue"], info["maxValue"], info["chosen"]) == (0.8, 0.0, 1.0, False)
    body = {
        "metrics": [
            {"metricName": "tool_trajectory_avg_score", "threshold": 0.5},
            {"metricName": "safety_v1", "threshold": 0.9, "judgeModel": "gpt-4o-mini"},
        ]
    }
    saved = _ok(client.put(f"{API}/eval-sets/weather_usage/metric-picker", json=body))
    assert {m["name"]: m["threshold"] for m in saved["metrics"] if m["chosen"]} == {
        "tool_trajectory_avg_score": 0.5,
        "safety_v1": 0.9,
    }
    written = json.loads((root / "evals" / "trace_mode" / "weather_usage.metrics.json").read_text())
    assert written[0]["metricName"] == "tool_trajectory_avg_score" and written[0]["threshold"] == 0.5
    assert written[0]["criterion"]["toolTrajectory"]["orderSensitive"] is True  # the entry's own options are kept
    assert written[1] == {
        "metricName": "safety_v1",
        "threshold": 0.9,
        "criterion": {"llmJudge": {"judgeModel": {"modelName": "gpt-4o-mini"}}},
    }


def test_picker_never_shows_a_key_value(served: tuple[TestClient, Path, str]) -> None:
    client, root, _ = served
    entry = {
        "metricName": "safety_v1",
        "threshold": 1,
        "criterion": {
            "llmJudge": {
                "judgeModel": {
                    "providerName": "openai",
                    "modelName": "gpt-4o",
                    "apiKey": "sk-very-secret",
                    "apiKeyEnv": "MY_KEY",
                }
            }
        },
    }
    (root / "evals" / "trace_mode" / "weather_usage.metrics.json").write_text(json.dumps([entry]))
    answer = client.get(f"{API}/eval-sets/weather_usage/metric-picker")
    assert "sk-very-secret" not in answer.text
    judge = next(m for m in answer.json()["metrics"] if m["name"] == "safety_v1")["judge"]
    assert judge == {
        "judgeModel.providerName": "openai",
        "judgeModel.modelName": "gpt-4o",
        "judgeModel.apiKey": "(set, hidden)",
        "judgeModel.apiKeyEnv": "MY_KEY",
    }
    kept = client.put(
        f"{API}/eval-sets/weather_usage/metric-picker",
        json={"metrics": [{"metricName": "safety_v1", "threshold": 0.5}]},
    )
    assert kept.status_code == 200 and "sk-very-secret" not in kept.text


@pytest.mark.parametrize(
    ("body", "status", "start"),
    [
        ({"metrics": [{"metricName": "no_such_metric", "threshold": 1}]}, 400, "unknown metric"),
        (
            {"metrics": [{"metricName": "safety_v1", "threshold": 1}] * 2},
            400,
            "metrics: metric 'safety_v1' is chosen twice",
        ),
        ({"metrics": [{"metricName": "safety_v1"}]}, 422, "body.metrics.0.threshold:"),
        ({"metrics": [{"metricName": "safety_v1", "threshold": "high"}]}, 422, "body.metrics.0.threshold:"),
        ({}, 422, "body.metrics:"),
    ],
)
def test_picker_bad_input_names_the_field(
    served: tuple[TestClient, Path, str], body: Any, status: int, start: str
) -> None:
    client, root, _ = served
    before = (root / "evals" / "trace_mode" / "weather_usage.metrics.json").read_bytes()
    answer = client.put(f"{API}/eval-sets/weather_usage/metric-picker", json=body)
    assert answer.status_code == status, answer.text
    assert start.lower() in answer.json()["detail"].lower()
    assert (root / "evals" / "trace_mode" / "weather_usage.metrics.json").read_bytes() == before  # nothing written


def test_picker_keeps_an_adk_test_config_that_google_adk_loads(served: tuple[TestClient, Path, str]) -> None:
    client, root, _ = served
    url = "/api/apps/home_automation/eval-sets/home_automation_agent_light_on_off_set/metric-picker"
    picker = _ok(client.get(url))
    assert (picker["file"], picker["dialect"]) == ("test_config.json", "adk")
    body = {
        "metrics": [
            {"metricName": "tool_trajectory_avg_score", "threshold": 1},
            {"metricName": "response_match_score", "threshold": 0.5},
        ]
    }
    _ok(client.put(url, json=body))
    saved = root / "evals" / "home_automation" / "test_config.json"
    assert json.loads(saved.read_text()) == {
        "criteria": {"tool_trajectory_avg_score": 1.0, "response_match_score": 0.5}
    }
    try:
        from google.adk.evaluation.eval_config import get_evaluation_criteria_or_default
    except ImportError:
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail("CI=true but google-adk is not installed", pytrace=False)
        pytest.skip("needs google-adk")
    loaded = get_evaluation_criteria_or_default(str(saved))
    assert {k: getattr(v, "threshold", v) for k, v in loaded.criteria.items()} == {
        "tool_trajectory_avg_score": 1.0,
        "response_match_score": 0.5,
    }


def test_review_answers_are_in_the_openapi_schema(served: tuple[TestClient, Path, str]) -> None:
    client, _, _ = served
    schemas = _ok(client.get("/openapi.json"))["components"]["schemas"]
    for name in ("CaseListAnswer", "ReplayAnswer", "Timeline", "HistoryAnswer", "PickerAnswer", "PickerSaveBody"):
        assert name in schemas, name


def test_replay_shows_hand_offs_and_intermediate_text(served: tuple[TestClient, Path, str]) -> None:
    client, root, rid = served
    path = root / "data" / "results" / "trace_mode" / f"{rid}.evalset_result.json"
    document = json.loads(path.read_text())
    case = next(c for c in document["evalCaseResults"] if c["evalId"] == "paris_today")
    actual = case["evalMetricResultPerInvocation"][0]["actualInvocation"]
    actual["tools"].insert(0, {"id": "t0", "name": "transfer_to_agent", "arguments": {"agent_name": "weather_agent"}})
    actual["intermediateResponses"] = [
        {"role": "assistant", "content": "Let me ask the weather agent.", "author": "root_agent"},
        {"role": "assistant", "content": "Looking it up.", "author": "weather_agent"},
    ]
    path.write_text(json.dumps(document))
    events = _ok(client.get(f"{API}/results/{rid}/cases/paris_today/replay"))["turns"][0]["events"]
    assert [(e["kind"], e["name"], e["author"], e["text"]) for e in events if e["kind"] != "tool_result"] == [
        ("handoff", "weather_agent", None, None),
        ("tool_call", "get_weather", None, 'get_weather({"city": "Paris"})'),
        ("text", "", "root_agent", "Let me ask the weather agent."),
        ("handoff", "weather_agent", "root_agent", None),
        ("text", "", "weather_agent", "Looking it up."),
    ]
