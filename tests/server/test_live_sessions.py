"""``/api/live``: received sessions scored as ``eval --traces`` scores them, saved as golden cases in the eval set's
own format (an ADK set stays loadable by google-adk), and streamed as server-sent events while they arrive."""

from __future__ import annotations

import json
import shutil
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from agentgauge.server import ServerConfig, create_app

ROOT = Path(__file__).resolve().parents[2]
ADK_WEATHER = ROOT / "examples" / "traces" / "adk_weather.otlp.jsonl"
PER_TURN = ROOT / "tests" / "traces" / "data" / "recorded" / "adk_per_turn.otlp.jsonl"
WEATHER_SET = ROOT / "examples" / "traces" / "weather.evalset.json"
ADK_SET = ROOT / "examples" / "home_automation" / "home_automation_agent_light_on_off_set.evalset.json"
JSON_TYPE = {"Content-Type": "application/json"}


async def _send(http: httpx.AsyncClient, path: Path) -> None:
    for line in path.read_bytes().splitlines():
        answer = await http.post("/v1/traces", content=line, headers=JSON_TYPE)
        assert answer.status_code == 200, answer.text


@pytest.fixture
async def live(tmp_path: Path) -> AsyncIterator[httpx.AsyncClient]:
    """A receiving server whose app ``weather`` holds the weather eval set (native) and an ADK eval set."""
    evals = tmp_path / "evals" / "weather"
    evals.mkdir(parents=True)
    shutil.copy(WEATHER_SET, evals / WEATHER_SET.name)
    shutil.copy(ADK_SET, evals / "adk_golden.evalset.json")
    cases = [
        {"evalId": name, "conversation": [{"userContent": {"role": "user", "content": text}}]}
        for name, text in (("lights", "Turn the lights on"), ("alarm", "Set an alarm"))
    ]
    (evals / "home.evalset.json").write_text(json.dumps({"evalSetId": "home", "evalCases": cases}))
    app = create_app(ServerConfig(data_dir=tmp_path / "data", evals_dir=tmp_path / "evals", otlp=True))
    transport = httpx.ASGITransport(app=app, client=("127.0.0.1", 50000))
    async with httpx.AsyncClient(transport=transport, base_url="http://localhost") as http:
        yield http


async def _only_key(http: httpx.AsyncClient) -> str:
    [row] = (await http.get("/api/live/sessions")).json()["sessions"]
    return str(row["key"])


async def test_a_session_is_scored_against_the_case_its_trace_names(live: httpx.AsyncClient) -> None:
    await _send(live, ADK_WEATHER)
    key = await _only_key(live)
    answer = await live.post(f"/api/live/sessions/{key}/score", json={"appName": "weather", "evalSetId": "weather"})
    assert answer.status_code == 200, answer.text
    data = answer.json()
    assert data["matches"] == [{"caseId": "weather_two_cities", "by": "eval id attribute"}]
    [case] = data["cases"]
    scores = {m["name"]: (m["score"], m["status"]) for m in case["metrics"]}
    assert case["status"] == "passed" and data["status"] == "passed"
    assert scores["tool_trajectory_avg_score"] == (1.0, "passed")
    assert scores["response_match_score"] == (1.0, "passed")
    listed = (await live.get("/api/apps/weather/results")).json()
    assert data["resultId"] in json.dumps(listed)  # saved with the server's other results


async def test_a_session_without_an_eval_id_needs_the_case_named(live: httpx.AsyncClient) -> None:
    await _send(live, PER_TURN)
    key = await _only_key(live)
    body: dict[str, Any] = {"appName": "weather", "evalSetId": "home"}
    unmatched = await live.post(f"/api/live/sessions/{key}/score", json=body)
    assert unmatched.status_code == 400
    # The message of eval --traces: the eval set (named as the server keeps it), the trace, why, and what to do.
    assert unmatched.json()["detail"].startswith("weather/home.evalset.json: 1 trace(s) match no case: trace ")
    assert "Name the case (caseId)" in unmatched.json()["detail"]
    assert "no case starts with its first user message 'What is the weather in Paris?'" in unmatched.json()["detail"]
    named = await live.post(f"/api/live/sessions/{key}/score", json={**body, "caseId": "lights"})
    assert named.status_code == 200, named.text
    assert named.json()["matches"] == [{"caseId": "lights", "by": "selected case"}]
    assert named.json()["cases"][0]["status"] == "failed"  # the lights case is not this weather conversation


async def test_reference_free_scoring(live: httpx.AsyncClient) -> None:
    await _send(live, ADK_WEATHER)
    key = await _only_key(live)
    missing = await live.post(f"/api/live/sessions/{key}/score", json={})
    assert missing.status_code == 400 and "reference-free metrics" in missing.json()["detail"]
    needs_expected = await live.post(
        f"/api/live/sessions/{key}/score", json={"metrics": [{"metricName": "response_match_score", "threshold": 0.5}]}
    )
    assert needs_expected.status_code == 400
    assert "response_match_score compare with expected data" in needs_expected.json()["detail"]
    counted = await live.post(
        f"/api/live/sessions/{key}/score", json={"metrics": [{"metricName": "tool_call_count_v1"}]}
    )
    assert counted.status_code == 200, counted.text
    [case] = counted.json()["cases"]
    assert case["evalId"] == "weather_two_cities"
    assert [(m["name"], m["score"]) for m in case["metrics"]] == [("tool_call_count_v1", 1.0)]
    assert counted.json()["appName"] == "weather_agent"


async def test_saving_into_an_adk_set_keeps_it_loadable_by_google_adk(live: httpx.AsyncClient, tmp_path: Path) -> None:
    adk = pytest.importorskip("google.adk.evaluation.eval_set")
    await _send(live, ADK_WEATHER)
    key = await _only_key(live)
    target = tmp_path / "evals" / "weather" / "adk_golden.evalset.json"
    before = json.loads(target.read_text())
    saved = await live.post(
        f"/api/live/sessions/{key}/save", json={"appName": "weather", "evalSetId": "adk_golden", "evalId": "live_1"}
    )
    assert saved.status_code == 200, saved.text
    assert saved.json() == {"appName": "weather", "evalSetId": "adk_golden", "evalId": "live_1", "turns": 2}
    loaded = adk.EvalSet.model_validate_json(target.read_bytes())
    case = next(c for c in loaded.eval_cases if c.eval_id == "live_1")
    assert [inv.user_content.parts[0].text for inv in case.conversation] == [
        "What is the weather in Paris?",
        "And in Tokyo?",
    ]
    after = json.loads(target.read_text())
    assert after["eval_cases"][: len(before["eval_cases"])] == before["eval_cases"]  # the other cases untouched
    again = await live.post(
        f"/api/live/sessions/{key}/save", json={"appName": "weather", "evalSetId": "adk_golden", "evalId": "live_1"}
    )
    assert again.status_code == 400 and "already exists" in again.json()["detail"]


async def test_saving_into_a_native_set_and_a_new_set(live: httpx.AsyncClient, tmp_path: Path) -> None:
    await _send(live, PER_TURN)
    key = await _only_key(live)
    native = await live.post(f"/api/live/sessions/{key}/save", json={"appName": "weather", "evalSetId": "weather"})
    assert native.status_code == 200, native.text
    data = json.loads((tmp_path / "evals" / "weather" / "weather.evalset.json").read_text())
    assert "evalCases" in data and data["evalCases"][-1]["evalId"] == native.json()["evalId"]
    assert native.json()["evalId"].startswith("trace_")
    # Saved again without an id: the default is taken now, so the next free one is used (never a failing click).
    twice = await live.post(f"/api/live/sessions/{key}/save", json={"appName": "weather", "evalSetId": "weather"})
    assert twice.status_code == 200 and twice.json()["evalId"] == f"{native.json()['evalId']}_2"
    fresh = await live.post(f"/api/live/sessions/{key}/save", json={"appName": "weather", "evalSetId": "recorded"})
    assert fresh.status_code == 200
    listed = (await live.get("/apps/weather/eval_sets")).json()
    assert "recorded" in listed
    bad = await live.post(
        f"/api/live/sessions/{key}/save", json={"appName": "weather", "evalSetId": "x", "evalId": "a\u0007"}
    )
    assert bad.status_code == 400 and "eval case id" in bad.json()["detail"]
    bad_set = await live.post(f"/api/live/sessions/{key}/save", json={"appName": "weather", "evalSetId": "../x"})
    assert bad_set.status_code == 400 and "eval set id" in bad_set.json()["detail"]


@pytest.mark.parametrize("eval_id", ["..", ".", "../../x", "/tmp/x", "~/x", "a/b", "a\\b"])
async def test_saving_refuses_a_case_id_that_is_not_one_path_segment(
    live: httpx.AsyncClient, tmp_path: Path, eval_id: str
) -> None:
    await _send(live, PER_TURN)
    key = await _only_key(live)
    body = {"appName": "weather", "evalSetId": "weather", "evalId": eval_id}
    answer = await live.post(f"/api/live/sessions/{key}/save", json=body)
    assert answer.status_code == 400 and "invalid eval case id" in answer.json()["detail"], answer.text
    saved = json.loads((tmp_path / "evals" / "weather" / "weather.evalset.json").read_text())
    assert eval_id not in [c["evalId"] for c in saved["evalCases"]]


async def test_unknown_sessions_are_404(live: httpx.AsyncClient) -> None:
    answer = await live.get("/api/live/sessions/nope")
    assert answer.status_code == 404 and "live session 'nope' not found" in answer.json()["detail"]
    score = await live.post("/api/live/sessions/nope/score", json={})
    assert score.status_code == 404


def test_sessions_stream_as_server_sent_events(tmp_path: Path) -> None:
    from _browser import running_server

    app = create_app(ServerConfig(data_dir=tmp_path, otlp=True))
    lines = PER_TURN.read_bytes().splitlines()
    with running_server(app) as url, httpx.Client(base_url=url, timeout=20) as http:
        http.post("/v1/traces", content=lines[0], headers=JSON_TYPE)
        with http.stream("GET", "/api/live/events") as stream:
            events = _events(stream.iter_lines())
            first = next(events)  # what was received before the stream opened
            assert first["spanCount"] == 1
            for line in lines[1:]:
                http.post("/v1/traces", content=line, headers=JSON_TYPE)
            seen, removed = first, []
            while seen.get("spanCount", 0) < len(lines):
                seen = next(events)
                if seen.get("removed"):
                    removed.append(seen["key"])
            # The first span named no session: its trace was a session of its own until a later span named one.
            assert first["key"] in removed and set(removed) <= set(seen["traceIds"])
            assert seen["key"] == seen["sessionId"] != first["key"]
            assert seen["turnCount"] == 2


def _events(lines: Any) -> Any:
    kind = None
    for line in lines:
        if line.startswith("event: "):
            kind = line[len("event: ") :]
        elif line.startswith("data: ") and kind == "session":
            yield json.loads(line[len("data: ") :])
        elif line.startswith("data: ") and kind == "removed":
            yield {**json.loads(line[len("data: ") :]), "removed": True}
