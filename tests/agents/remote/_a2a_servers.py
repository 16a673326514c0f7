"""Loopback A2A servers of the ``a2a+http`` tests and the calculator scoring they share.

- the a2a-sdk calculator server of ``examples/remote/calculator_a2a_server.py`` (streaming or not);
- google-adk's own ``to_a2a(root_agent)`` serving the scripted ADK calculator agent (``calculator_adk``);
- a fault server speaking A2A 1.0 JSON-RPC by hand, misbehaving as the user message says.
"""

from __future__ import annotations

import asyncio
import importlib.util
import json
from collections import Counter
from typing import Any

from _servers import CALCULATOR, HERE, ROOT, require

SECRET_IN_BODY = "sk-a2a-fault-0123456789abcdef"
"""A value the failing routes echo in their bodies: registered as a secret, it must never show."""


def example_server_module() -> Any:
    """``examples/remote/calculator_a2a_server.py`` as a module."""
    require("a2a.server")
    path = ROOT / "examples" / "remote" / "calculator_a2a_server.py"
    spec = importlib.util.spec_from_file_location("calculator_a2a_server", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def adk_a2a_app(url: str) -> Any:
    """google-adk's ``to_a2a`` app of the scripted calculator agent, advertising ``url``."""
    require("google.adk")
    require("a2a.server")
    from calculator_adk.agent import root_agent
    from google.adk.a2a.utils.agent_to_a2a import to_a2a

    host_port = url.split("://")[1].strip("/")
    host, port = host_port.split(":")
    return to_a2a(root_agent, host=host, port=int(port))


def evaluate_calculator(agent: Any, *, parallelism: int = 4) -> Any:
    """The calculator eval set (examples/calculator) run through ``agent``; the EvaluationResult."""
    from agentgauge.formats import load_eval_set, load_metrics
    from agentgauge.run import AgentEvaluator
    from agentgauge.storage import InMemoryEvalResultManager, InMemoryEvalSetManager, InMemoryMetricManager

    sets, metrics = InMemoryEvalSetManager(), InMemoryMetricManager()
    eval_set = load_eval_set(CALCULATOR / "calculator.evalset.json")
    sets.put("app", eval_set)
    metrics.put_all("app", eval_set.eval_set_id, load_metrics(CALCULATOR / "calculator.metrics.json"))
    evaluator = AgentEvaluator(
        "app",
        agent,
        eval_set_manager=sets,
        metric_manager=metrics,
        result_manager=InMemoryEvalResultManager(),
        parallelism=parallelism,
    )
    return evaluator.evaluate_sync(eval_set.eval_set_id)


def per_invocation(result: Any, *, usage: bool = True) -> dict[tuple[str, int], dict[str, Any]]:
    """Each case's invocations as compared across transports: metric scores and statuses, final and intermediate
    responses, tools and (``usage``) token usage without the model name (A2A does not carry it)."""
    table: dict[tuple[str, int], dict[str, Any]] = {}
    for case in result.eval_set_result.eval_case_results:
        assert case.error_message is None, case.error_message
        for index, entry in enumerate(case.eval_metric_result_per_invocation):
            actual = entry.actual_invocation.model_dump(mode="json", by_alias=True, exclude_none=True)
            row: dict[str, Any] = {
                "scores": {m.metric_name: (m.score, m.eval_status.value) for m in entry.eval_metric_results},
                "final": actual.get("finalResponse"),
                "intermediate": actual.get("intermediateResponses", []),
                "tools": actual.get("tools", []),
            }
            if usage:
                row["usage"] = {k: v for k, v in (actual.get("usage") or {}).items() if k not in ("model", "cost")}
            table[(case.eval_id, index)] = row
    return table


def _rpc(request_id: Any, result: dict[str, Any]) -> str:
    return "data: " + json.dumps({"jsonrpc": "2.0", "id": request_id, "result": result}) + "\n\n"


def _status(state: str, text: str | None = None) -> dict[str, Any]:
    status: dict[str, Any] = {"state": state}
    if text is not None:
        status["message"] = {"messageId": f"m-{state}", "role": "ROLE_AGENT", "parts": [{"text": text}]}
    return {"statusUpdate": {"taskId": "t1", "contextId": "c1", "status": status}}


_TASK = {"task": {"id": "t1", "contextId": "c1", "status": {"state": "TASK_STATE_SUBMITTED"}}}
_ANSWER = {
    "artifactUpdate": {"taskId": "t1", "contextId": "c1", "artifact": {"artifactId": "a", "parts": [{"text": "fine"}]}}
}


def fault_app(url: str) -> Any:
    """An A2A 1.0 agent (JSON-RPC, streaming) whose answer misbehaves as the user message says: ``ok``,
    ``status 500`` / ``status 400`` (with a secret in the body), ``flaky KEY`` (503 once, then ok),
    ``truncated``, ``malformed``, ``hang`` (sends nothing), ``stall`` (starts, then sends nothing),
    ``ends early`` (the stream closes while working), ``failed`` (the task fails)."""
    require("starlette")
    from starlette.applications import Starlette
    from starlette.responses import JSONResponse, StreamingResponse

    app = Starlette()
    attempts: Counter[str] = Counter()
    seen: dict[str, str] = {}
    card = {
        "name": "faulty",
        "description": "misbehaves on purpose",
        "version": "1",
        "supportedInterfaces": [{"url": url, "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}],
        "capabilities": {"streaming": True},
        "defaultInputModes": ["text/plain"],
        "defaultOutputModes": ["text/plain"],
        "skills": [],
    }

    async def agent_card(request: Any) -> Any:
        return JSONResponse(card)

    async def rpc(request: Any) -> Any:
        body = await request.json()
        text = body["params"]["message"]["parts"][0]["text"]
        rid = body["id"]
        attempts[text] += 1
        seen["authorization"] = request.headers.get("authorization", "")
        seen["x-user-id"] = request.headers.get("x-user-id", "")
        seen["x-api-key"] = request.headers.get("x-api-key", "")
        if text.startswith("status "):
            detail = {"detail": f"failing on purpose, token={SECRET_IN_BODY}"}
            return JSONResponse(detail, status_code=int(text.split()[1]))
        if text.startswith("flaky ") and attempts[text] == 1:
            return JSONResponse({"detail": "busy"}, status_code=503)
        if text == "hang":
            await asyncio.sleep(3)
        chunks: list[str] = {
            "truncated": [_rpc(rid, _TASK), _rpc(rid, _ANSWER)[:40]],
            "malformed": [_rpc(rid, _TASK), "data: {not json\n\n"],
            "ends early": [_rpc(rid, _TASK), _rpc(rid, _status("TASK_STATE_WORKING"))],
            "failed": [_rpc(rid, _TASK), _rpc(rid, _status("TASK_STATE_FAILED", "the tool broke"))],
            "stall": [_rpc(rid, _TASK)],
        }.get(text, [_rpc(rid, _TASK), _rpc(rid, _ANSWER), _rpc(rid, _status("TASK_STATE_COMPLETED"))])

        async def stream() -> Any:
            for chunk in chunks:
                yield chunk
            if text == "stall":
                await asyncio.sleep(3)

        return StreamingResponse(stream(), media_type="text/event-stream")

    async def count(request: Any) -> Any:
        """How often each message was received, and the last request's headers."""
        return JSONResponse({"attempts": dict(attempts), **seen})

    async def grpc_card(request: Any) -> Any:
        interfaces = [{"url": "127.0.0.1:1", "protocolBinding": "GRPC", "protocolVersion": "1.0"}]
        return JSONResponse({**card, "supportedInterfaces": interfaces})

    async def not_a_card(request: Any) -> Any:
        return JSONResponse([1, 2])

    app.add_route("/.well-known/agent-card.json", agent_card, methods=["GET"])
    app.add_route("/grpc/.well-known/agent-card.json", grpc_card, methods=["GET"])
    app.add_route("/list/.well-known/agent-card.json", not_a_card, methods=["GET"])
    app.add_route("/", rpc, methods=["POST"])
    app.add_route("/seen", count, methods=["GET"])
    _add_legacy_routes(app, url)
    _add_polled_routes(app, url, attempts)

    return app


# trpc-agent-go's streamed answer with a tool call, as its A2A interaction spec (docs/mkdocs/en/a2a-interaction.md,
# "Streaming: SSE Event Sequence with Tool Call") shows it: A2A 0.3 JSON-RPC, `type` part metadata, JSON-string
# arguments and response, answer text as chunks of one artifact id without `append`; the closing empty artifact has
# ``"artifactId": ""`` as trpc-a2a-go's Artifact struct (no omitempty) writes it.
TRPC_STREAM: list[dict[str, Any]] = json.loads((HERE / "_a2a_trpc_stream.json").read_text(encoding="utf-8"))


def _add_legacy_routes(app: Any, url: str) -> None:
    """``/legacy/``: an A2A 0.3 agent (card at the older ``.well-known/agent.json``) answering every message with
    :data:`TRPC_STREAM`."""
    from starlette.responses import JSONResponse, StreamingResponse

    card = {
        "name": "weather",
        "description": "trpc-agent-go style",
        "version": "1",
        "url": f"{url}legacy/",
        "protocolVersion": "0.3.0",
        "preferredTransport": "JSONRPC",
        "capabilities": {"streaming": True},
        "defaultInputModes": ["text"],
        "defaultOutputModes": ["text"],
        "skills": [],
    }

    async def legacy_card(request: Any) -> Any:
        return JSONResponse(card)

    async def legacy_rpc(request: Any) -> Any:
        body = await request.json()
        assert body["method"] == "message/stream", body["method"]
        chunks = [
            "data: " + json.dumps({"jsonrpc": "2.0", "id": body["id"], "result": r}) + "\n\n" for r in TRPC_STREAM
        ]
        return StreamingResponse(iter(chunks), media_type="text/event-stream")

    app.add_route("/legacy/.well-known/agent.json", legacy_card, methods=["GET"])
    app.add_route("/legacy/", legacy_rpc, methods=["POST"])


def _add_polled_routes(app: Any, url: str, attempts: Counter[str]) -> None:
    """``/polled/``: an A2A 1.0 agent without streaming whose ``SendMessage`` returns a task still working; the
    answer is there on the second ``GetTask``."""
    from starlette.responses import JSONResponse

    card = {
        "name": "polled",
        "description": "answers later",
        "version": "1",
        "supportedInterfaces": [{"url": f"{url}polled/", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}],
        "capabilities": {"streaming": False},
        "defaultInputModes": ["text/plain"],
        "defaultOutputModes": ["text/plain"],
        "skills": [],
    }

    async def polled_card(request: Any) -> Any:
        return JSONResponse(card)

    async def polled_rpc(request: Any) -> Any:
        body = await request.json()
        attempts[body["method"]] += 1
        task: dict[str, Any] = {"id": "p1", "contextId": "pc", "status": {"state": "TASK_STATE_WORKING"}}
        if body["method"] == "SendMessage":
            return JSONResponse({"jsonrpc": "2.0", "id": body["id"], "result": {"task": task}})
        assert body["method"] == "GetTask" and body["params"]["id"] == "p1", body
        if attempts["GetTask"] >= 2:
            task["status"] = {"state": "TASK_STATE_COMPLETED"}
            task["artifacts"] = [{"artifactId": "a", "parts": [{"text": "done later"}]}]
        return JSONResponse({"jsonrpc": "2.0", "id": body["id"], "result": task})

    app.add_route("/polled/.well-known/agent-card.json", polled_card, methods=["GET"])
    app.add_route("/polled/", polled_rpc, methods=["POST"])
