"""ADK Web's Trace tab: the trace routes it calls answer the spans of the chats and eval runs made through the server
(a google-adk agent's own spans, and the turn span of any agent), in ADK's ``WebUiSpan`` shape."""

from __future__ import annotations

import shutil
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import pytest

pytest.importorskip("google.adk")
pytest.importorskip("opentelemetry.sdk")

from agentgauge.server import ServerConfig, create_app, discover_apps

ROOT = Path(__file__).resolve().parents[2]
ADK_CALCULATOR = ROOT / "tests" / "agents" / "remote" / "calculator_adk"
CALCULATOR = ROOT / "examples" / "calculator"


@pytest.fixture
async def client(tmp_path: Path) -> AsyncIterator[httpx.AsyncClient]:
    """The server with the scripted ADK calculator (``calculator_adk``) and the plain calculator agent."""
    evals = tmp_path / "evals" / "calculator_adk"
    evals.mkdir(parents=True)
    shutil.copy(CALCULATOR / "calculator.evalset.json", evals)
    apps = discover_apps([str(ADK_CALCULATOR), str(CALCULATOR)])
    app = create_app(ServerConfig(data_dir=tmp_path / "data", evals_dir=tmp_path / "evals", agents=apps))
    transport = httpx.ASGITransport(app=app, client=("127.0.0.1", 50000))
    async with httpx.AsyncClient(transport=transport, base_url="http://localhost") as http:
        yield http


async def _chat(http: httpx.AsyncClient, app: str, text: str) -> tuple[str, list[dict[str, Any]]]:
    session = (await http.post(f"/apps/{app}/users/u1/sessions", json={})).json()["id"]
    body = {"appName": app, "userId": "u1", "sessionId": session, "newMessage": {"parts": [{"text": text}]}}
    answer = await http.post("/run", json=body)
    assert answer.status_code == 200, answer.text
    return session, answer.json()


async def test_a_chat_with_an_adk_agent_shows_its_spans(client: httpx.AsyncClient) -> None:
    session, events = await _chat(client, "calculator_adk", "what is 6 times 7?")
    spans = (await client.get(f"/dev/apps/calculator_adk/debug/trace/session/{session}")).json()
    names = [s["name"] for s in spans]
    assert "execute_tool calculator" in names and "invoke_agent calculator_adk" in names
    assert sum(n.startswith("generate_content") for n in names) == 2  # the tool call, then the answer
    by_id = {s["span_id"]: s for s in spans}
    tool = next(s for s in spans if s["name"] == "execute_tool calculator")
    assert len({s["trace_id"] for s in spans}) == 1  # the turn span holds the agent's spans
    assert tool["parent_span_id"] in by_id and tool["start_time"] <= tool["end_time"]
    assert set(spans[0]) == {"name", "start_time", "end_time", "trace_id", "span_id", "parent_span_id", "attributes",
                             "logs"}  # fmt: skip
    # An event of the answer: the attributes of the turn's last model call, as ADK's trace_dict holds them.
    event = (await client.get(f"/dev/apps/calculator_adk/debug/trace/{events[-1]['id']}")).json()
    assert event["gen_ai.usage.input_tokens"] == 50 and event["gen_ai.conversation.id"] == session
    assert event["span_id"] in by_id
    legacy = (await client.get(f"/debug/trace/session/{session}")).json()
    assert [s["span_id"] for s in legacy] == [s["span_id"] for s in spans]


async def test_any_agent_gets_its_turn_span(client: httpx.AsyncClient) -> None:
    session, events = await _chat(client, "calculator", "what is 6 times 7?")
    spans = (await client.get(f"/dev/apps/calculator/debug/trace/session/{session}")).json()
    turn = next(s for s in spans if s["name"] == "invoke_agent calculator")
    assert turn["attributes"]["gen_ai.conversation.id"] == session
    assert turn["attributes"]["gcp.vertex.agent.invocation_id"] == events[0]["invocationId"]
    event = (await client.get(f"/dev/apps/calculator/debug/trace/{events[0]['id']}")).json()
    assert event["span_id"] == turn["span_id"]  # no model span: the turn's own


async def test_the_spans_of_an_eval_run_are_found_by_its_session(client: httpx.AsyncClient) -> None:
    answer = await client.post(
        "/apps/calculator_adk/eval-sets/calculator/run", json={"evalCaseIds": ["calc_natural_multiply"]}
    )
    assert answer.status_code == 200, answer.text
    [result] = answer.json()["runEvalResults"]
    spans = (await client.get(f"/dev/apps/calculator_adk/debug/trace/session/{result['sessionId']}")).json()
    assert any(s["name"] == "execute_tool calculator" for s in spans)


async def test_unknown_sessions_and_events(client: httpx.AsyncClient) -> None:
    assert (await client.get("/dev/apps/calculator/debug/trace/session/nobody")).json() == []
    missing = await client.get("/dev/apps/calculator/debug/trace/e-unknown-final")
    assert (missing.status_code, missing.json()["detail"]) == (404, "Trace not found")


def _span(name: str, trace_id: int, span_id: int, session: str | None = None) -> dict[str, Any]:
    attributes = {"gcp.vertex.agent.session_id": session} if session else {}
    return {"name": name, "trace_id": trace_id, "span_id": span_id, "parent_span_id": None, "attributes": attributes}


def test_the_span_collector_is_bounded_and_places_early_spans_by_trace() -> None:
    from agentgauge.server._adk_trace import SessionSpans

    spans = SessionSpans(max_sessions=2, max_spans=3)
    spans.add(_span("execute_tool t", 1, 10))  # ends before any span naming its session
    spans.add(_span("generate_content m", 1, 11, "a"))
    spans.add(_span("no session, unknown trace", 9, 90))
    assert [s["span_id"] for s in spans.of_session("a")] == [10, 11]
    for span_id in range(12, 16):
        spans.add(_span("generate_content m", 1, span_id, "a"))
    assert [s["span_id"] for s in spans.of_session("a")] == [13, 14, 15]  # the oldest dropped
    spans.add(_span("x", 2, 20, "b"))
    spans.add(_span("x", 3, 30, "c"))
    assert spans.of_session("a") == [] and [s["span_id"] for s in spans.of_session("c")] == [30]
