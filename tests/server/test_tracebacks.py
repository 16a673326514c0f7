"""No server internals over HTTP: an agent's traceback (which shows the server's files) is dropped from every result
and report the server sends, its error message kept; ``--debug`` keeps it. The result file keeps it either way."""

from __future__ import annotations

import json
from pathlib import Path

import httpx
import pytest

import agentgauge
from agentgauge.server import ServerConfig, create_app

BOOM_AGENT = """
def _deep(text):
    raise ValueError("the agent broke on " + text)


def root_agent(request):
    return _deep(request.user_content.content)
"""
MESSAGE = "the agent broke on hello"
SERVER_FILES = str(Path(agentgauge.__file__).resolve().parent)


@pytest.fixture
def boom(tmp_path: Path) -> ServerConfig:
    """An app ``boom`` whose agent raises, with a one-case eval set."""
    app_dir = tmp_path / "boom"
    app_dir.mkdir()
    (app_dir / "agent.py").write_text(BOOM_AGENT)
    case = {"evalId": "c1", "conversation": [{"userContent": {"content": "hello"}}]}
    (app_dir / "s.evalset.json").write_text(json.dumps({"evalSetId": "s", "evalCases": [case]}))
    return ServerConfig(data_dir=tmp_path, agents={"boom": str(app_dir / "agent.py")})


def _internals(text: str, agent_dir: Path) -> list[str]:
    return [marker for marker in ("Traceback", 'File "', SERVER_FILES, str(agent_dir)) if marker in text]


async def _run_everything(config: ServerConfig) -> tuple[list[httpx.Response], str]:
    """Every way the server hands out the failed case: run events, result JSON, report, ADK routes, the ADK run
    route's answer. Returns the responses and the result id of the background run."""
    transport = httpx.ASGITransport(app=create_app(config), client=("127.0.0.1", 1))
    responses: list[httpx.Response] = []
    async with httpx.AsyncClient(transport=transport, base_url="http://localhost") as client:
        started = await client.post("/api/apps/boom/eval-sets/s/runs", json={"metrics": []})
        events = await client.get(f"/api/runs/{started.json()['runId']}/events")
        last = json.loads([x for x in events.text.splitlines() if x.startswith("data: ")][-1][6:])
        result_id = last["resultId"]
        responses += [started, events, await client.get(f"/api/runs/{started.json()['runId']}")]
        for path in (
            f"/api/apps/boom/results/{result_id}",
            f"/api/apps/boom/results/{result_id}/report.html",
            "/api/apps/boom/results",
            f"/dev/apps/boom/eval-results/{result_id}",
            f"/apps/boom/eval_results/{result_id}",
        ):
            responses.append(await client.get(path))
        for path in ("/dev/apps/boom/eval-sets/s/run", "/apps/boom/eval_sets/s/run_eval"):
            responses.append(await client.post(path, json={"evalMetrics": []}))
    assert all(r.status_code < 400 for r in responses), [(r.url, r.status_code) for r in responses]
    return responses, result_id


async def test_tracebacks_are_not_served(boom: ServerConfig) -> None:
    responses, result_id = await _run_everything(boom)
    agent_dir = boom.data_dir / "boom"
    leaks = {str(r.url): _internals(r.text, agent_dir) for r in responses if _internals(r.text, agent_dir)}
    assert leaks == {}
    result = next(r for r in responses if r.url.path.endswith(result_id)).json()
    (case,) = result["evalCaseResults"]
    assert MESSAGE in case["errorMessage"] and "errorTraceback" not in case
    report = next(r for r in responses if r.url.path.endswith("report.html"))
    assert MESSAGE in report.text
    for adk in responses[-4:-2]:  # ADK's stored results (its run route's answer has no error field)
        assert MESSAGE in adk.text, adk.url
    # What is on disk (what `agentgauge eval` would write) keeps the traceback.
    (stored,) = [p for p in boom.data_dir.rglob("*.json") if result_id in p.name]
    assert "Traceback" in stored.read_text()


async def test_debug_keeps_tracebacks(boom: ServerConfig) -> None:
    boom.debug = True
    responses, result_id = await _run_everything(boom)
    result = next(r for r in responses if r.url.path.endswith(result_id)).json()
    assert "Traceback" in result["evalCaseResults"][0]["errorTraceback"]
    report = next(r for r in responses if r.url.path.endswith("report.html"))
    assert "Traceback" in report.text


def test_public_result_copies_and_drops_every_spelling() -> None:
    from agentgauge.model import EvalCaseResult, EvalSetResult
    from agentgauge.server._safety import public_result

    case = EvalCaseResult.model_validate(
        {"evalId": "a", "errorMessage": "m", "errorTraceback": "Traceback 1", "Error_Traceback": "Traceback 2"}
    )
    result = EvalSetResult(eval_set_result_id="r", eval_set_id="s", eval_case_results=[case])
    shown = public_result(result, debug=False).eval_case_results[0].model_dump(mode="json", by_alias=True)
    assert shown["errorMessage"] == "m" and "Traceback" not in json.dumps(shown)
    assert case.error_traceback == "Traceback 1" and case.model_extra == {"Error_Traceback": "Traceback 2"}
    assert public_result(result, debug=True) is result
