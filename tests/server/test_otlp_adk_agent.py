"""A real google-adk agent with telemetry on, exporting over OTLP/HTTP to ``serve --otlp`` (ADK's own exporter set-up
from the standard environment variables): its per-turn traces become one live session, the message content it puts
in log records is merged into the spans, and the session scores and saves like any other."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

pytest.importorskip("google.adk")
pytest.importorskip("opentelemetry.exporter.otlp.proto.http")

from agentgauge.server import ServerConfig, create_app

ROOT = Path(__file__).resolve().parents[2]
CALCULATOR_SET = ROOT / "examples" / "calculator" / "calculator.evalset.json"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Path]]:
    from _browser import running_server

    root = tmp_path_factory.mktemp("adk-otlp")
    (root / "evals" / "calculator").mkdir(parents=True)
    (root / "evals" / "calculator" / CALCULATOR_SET.name).write_bytes(CALCULATOR_SET.read_bytes())
    app = create_app(ServerConfig(data_dir=root / "data", evals_dir=root / "evals", otlp=True))
    with running_server(app) as url:
        yield url, root


@pytest.mark.parametrize("capture", ["EVENT_ONLY", "SPAN_ONLY"])
def test_an_adk_agent_exports_a_live_session(server: tuple[str, Path], capture: str) -> None:
    url, root = server
    session = f"adk-{capture.lower()}"
    env = {
        **os.environ,
        "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": f"{url}/v1/traces",
        "OTEL_EXPORTER_OTLP_LOGS_ENDPOINT": f"{url}/v1/logs",
        "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT": capture,
        "OTEL_SERVICE_NAME": "calculator_adk",
    }
    env.pop("OTEL_EXPORTER_OTLP_ENDPOINT", None)
    done = subprocess.run(
        [sys.executable, str(Path(__file__).with_name("_adk_exporter_agent.py")), session],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    detail = httpx.get(f"{url}/api/live/sessions/{session}").json()
    assert len(detail["traceIds"]) == 2 and detail["ended"]  # one trace per turn, grouped by the session id
    assert [t["user"] for t in detail["turns"]] == ["calc add 2 3", "Now multiply that by 4"]
    assert [t["response"] for t in detail["turns"]] == ["calc result: 5", "calc result: 20"]
    assert [[c["arguments"] for c in t["tools"]] for t in detail["turns"]] == [
        [{"operation": "add", "a": 2, "b": 3}],
        [{"operation": "mul", "a": 5, "b": 4}],
    ]
    assert detail["inputTokens"] == 200 and detail["outputTokens"] == 20  # 50 + 5 per model call, 2 calls a turn
    body = {"appName": "calculator", "evalSetId": "calculator"}
    ambiguous = httpx.post(f"{url}/api/live/sessions/{session}/score", json=body)
    assert ambiguous.status_code == 400  # calc_add starts with the same message: the case must be named
    assert "matches several cases (calc_add, calc_multi_turn" in ambiguous.json()["detail"]
    scored = httpx.post(f"{url}/api/live/sessions/{session}/score", json={**body, "caseId": "calc_multi_turn"}).json()
    assert scored.get("matches") == [{"caseId": "calc_multi_turn", "by": "user text"}], scored
    metrics = {m["name"]: m["status"] for m in scored["cases"][0]["metrics"]}
    assert metrics["tool_trajectory_avg_score"] == "passed" and metrics["response_match_score"] == "passed", scored
    saved = httpx.post(
        f"{url}/api/live/sessions/{session}/save",
        json={"appName": "calculator", "evalSetId": "calculator", "evalId": f"live_{capture.lower()}"},
    )
    assert saved.status_code == 200, saved.text
    stored = (root / "evals" / "calculator" / CALCULATOR_SET.name).read_text()
    assert f"live_{capture.lower()}" in stored
