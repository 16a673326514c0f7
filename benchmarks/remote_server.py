"""The remote agent of the ``remote`` measure, served in its own process over a protocol.

    BENCH_REPLAY=replay.json BENCH_LATENCY=0.05 python benchmarks/remote_server.py MODE PORT

Every mode sleeps ``BENCH_LATENCY`` per turn, then replays the recorded turn (``BENCH_REPLAY`` as for
``replay_agent.py``): its tool calls, their results and its answer.

- ``adk``: an ADK agent (no model) served by google-adk's own HTTP API app (``get_fast_api_app``, app ``bench``, as
  ``adk api_server`` runs it);
- ``adk-lite``: the same events in ADK's JSON form from a minimal Starlette app speaking ADK's HTTP API (session
  creation, ``/run_sse``): what is left is agentgauge's own cost, not google-adk's server's;
- ``a2a``: an ``a2a-sdk`` server (JSON-RPC, streaming) reporting tool calls and results as data parts the way
  google-adk's A2A converter does, then the answer as an artifact;
- ``a2a-lite``: the same A2A 1.0 JSON-RPC events, byte for byte in shape (task, working status updates with the
  data parts, the answer artifact, completed), from a minimal Starlette app: what is left is the client's cost
  (a2a-sdk's client and agentgauge), not a2a-sdk's server's.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
from collections.abc import AsyncGenerator
from typing import Any

from google.adk.agents import BaseAgent
from google.adk.agents.invocation_context import InvocationContext
from google.adk.events import Event
from google.genai import types

with open(os.environ["BENCH_REPLAY"], encoding="utf-8") as _fh:
    _SCRIPT: dict[str, Any] = json.load(_fh)
_LATENCY = float(os.environ.get("BENCH_LATENCY", "0.05"))


class ReplayAdkAgent(BaseAgent):  # type: ignore[misc]
    """Answers each user text as recorded, after the simulated latency."""

    async def _run_async_impl(self, ctx: InvocationContext) -> AsyncGenerator[Event, None]:
        text = "".join(p.text or "" for p in (ctx.user_content.parts or [])) if ctx.user_content else ""
        turn = _SCRIPT[text]
        await asyncio.sleep(_LATENCY)
        for index, tool in enumerate(turn["tools"]):
            call_id = tool.get("id") or f"call_{index}"
            call = types.FunctionCall(id=call_id, name=tool["name"], args=tool.get("arguments"))
            yield Event(
                author=self.name,
                invocation_id=ctx.invocation_id,
                content=types.Content(role="model", parts=[types.Part(function_call=call)]),
            )
            result = tool.get("result")
            response = types.FunctionResponse(
                id=call_id, name=tool["name"], response=result if isinstance(result, dict) else {"result": result}
            )
            yield Event(
                author=self.name,
                invocation_id=ctx.invocation_id,
                content=types.Content(role="user", parts=[types.Part(function_response=response)]),
            )
        answer = types.Content(role="model", parts=[types.Part(text=turn["answer"])])
        yield Event(author=self.name, invocation_id=ctx.invocation_id, content=answer)


def _adk_app(agent: BaseAgent) -> Any:
    from google.adk.cli.fast_api import get_fast_api_app
    from google.adk.cli.utils.base_agent_loader import BaseAgentLoader

    class Loader(BaseAgentLoader):  # type: ignore[misc]
        def load_agent(self, agent_name: str) -> BaseAgent:
            return agent

        def list_agents(self) -> list[str]:
            return ["bench"]

    return get_fast_api_app(
        agents_dir=".", agent_loader=Loader(), session_service_uri="memory://", web=False, use_local_storage=False
    )


def _turn_events(text: str) -> list[dict[str, Any]]:
    """The ADK events (JSON, camelCase) of the recorded turn answering ``text``."""
    turn = _SCRIPT[text]
    events: list[dict[str, Any]] = []
    for index, tool in enumerate(turn["tools"]):
        call_id = tool.get("id") or f"call_{index}"
        call = {"id": call_id, "name": tool["name"], "args": tool.get("arguments")}
        events.append({"author": "bench", "content": {"role": "model", "parts": [{"functionCall": call}]}})
        result = tool.get("result")
        body = result if isinstance(result, dict) else {"result": result}
        response = {"id": call_id, "name": tool["name"], "response": body}
        events.append({"author": "bench", "content": {"role": "user", "parts": [{"functionResponse": response}]}})
    events.append({"author": "bench", "content": {"role": "model", "parts": [{"text": turn["answer"]}]}})
    return events


def _adk_lite_app() -> Any:
    from starlette.applications import Starlette
    from starlette.requests import Request
    from starlette.responses import JSONResponse, Response, StreamingResponse
    from starlette.routing import Route

    async def create_session(request: Request) -> Response:
        params = request.path_params
        return JSONResponse({"id": params["session"], "appName": params["app"], "userId": params["user"]})

    async def run_sse(request: Request) -> Response:
        body = await request.json()
        text = "".join(part.get("text", "") for part in body["newMessage"]["parts"])
        await asyncio.sleep(_LATENCY)
        chunks = [f"data: {json.dumps(event)}\n\n" for event in _turn_events(text)]

        async def stream() -> AsyncGenerator[str, None]:  # async: a sync iterator would hop to a thread per chunk
            for chunk in chunks:
                yield chunk

        return StreamingResponse(stream(), media_type="text/event-stream")

    async def list_apps(request: Request) -> Response:
        return JSONResponse(["bench"])

    return Starlette(
        routes=[
            Route("/apps/{app}/users/{user}/sessions/{session}", create_session, methods=["POST"]),
            Route("/run_sse", run_sse, methods=["POST"]),
            Route("/list-apps", list_apps),
        ]
    )


def _a2a_lite_events(rid: Any, text: str, context_id: str | None) -> list[str]:
    """The SSE chunks of one streamed A2A 1.0 answer to ``text``, as a2a-sdk's server sends them."""
    import uuid

    task_id, context_id = uuid.uuid4().hex, context_id or uuid.uuid4().hex
    ids = {"taskId": task_id, "contextId": context_id}
    user = {"messageId": uuid.uuid4().hex, **ids, "role": "ROLE_USER", "parts": [{"text": text}]}
    results: list[dict[str, Any]] = [
        {"task": {"id": task_id, "contextId": context_id, "status": {"state": "TASK_STATE_SUBMITTED"},
                  "history": [user]}},
    ]  # fmt: skip
    events = _turn_events(text)
    for event in events[:-1]:
        part = event["content"]["parts"][0]
        kind, data = ("function_call", part["functionCall"]) if "functionCall" in part else (
            "function_response", part["functionResponse"])  # fmt: skip
        message = {"messageId": uuid.uuid4().hex, "role": "ROLE_AGENT",
                   "parts": [{"data": data, "metadata": {"adk_type": kind}}]}  # fmt: skip
        results.append({"statusUpdate": {**ids, "status": {"state": "TASK_STATE_WORKING", "message": message}}})
    answer = {"artifactId": uuid.uuid4().hex, "parts": [{"text": events[-1]["content"]["parts"][0]["text"]}]}
    results.append({"artifactUpdate": {**ids, "artifact": answer, "lastChunk": True}})
    results.append({"statusUpdate": {**ids, "status": {"state": "TASK_STATE_COMPLETED"}}})
    return [f"data: {json.dumps({'result': r, 'id': rid, 'jsonrpc': '2.0'})}\n\n" for r in results]


def _a2a_lite_app(url: str) -> Any:
    from starlette.applications import Starlette
    from starlette.requests import Request
    from starlette.responses import JSONResponse, Response, StreamingResponse
    from starlette.routing import Route

    card = {
        "name": "bench", "description": "The remote benchmark's replaying agent.", "version": "1.0.0",
        "supportedInterfaces": [{"url": url, "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}],
        "capabilities": {"streaming": True}, "defaultInputModes": ["text/plain"], "defaultOutputModes": ["text/plain"],
    }  # fmt: skip

    async def agent_card(request: Request) -> Response:
        return JSONResponse(card)

    async def rpc(request: Request) -> Response:
        body = await request.json()
        message = body["params"]["message"]
        text = "".join(part.get("text", "") for part in message["parts"])
        await asyncio.sleep(_LATENCY)
        chunks = _a2a_lite_events(body["id"], text, message.get("contextId"))

        async def stream() -> AsyncGenerator[str, None]:
            for chunk in chunks:
                yield chunk

        return StreamingResponse(stream(), media_type="text/event-stream")

    return Starlette(routes=[Route("/.well-known/agent-card.json", agent_card), Route("/", rpc, methods=["POST"])])


def _a2a_app(url: str) -> Any:
    import uuid

    from a2a.helpers.proto_helpers import new_task_from_user_message
    from a2a.server.agent_execution import AgentExecutor, RequestContext
    from a2a.server.events import EventQueue
    from a2a.server.request_handlers import DefaultRequestHandler
    from a2a.server.routes import create_agent_card_routes, create_jsonrpc_routes
    from a2a.server.tasks import InMemoryTaskStore, TaskUpdater
    from a2a.types import AgentCapabilities, AgentCard, AgentInterface, Message, Part, Role, TaskState
    from google.protobuf.struct_pb2 import Struct, Value
    from starlette.applications import Starlette

    def data_part(data: dict[str, Any], kind: str) -> Part:
        value, metadata = Value(), Struct()
        value.struct_value.update(data)
        metadata.update({"adk_type": kind})
        return Part(data=value, metadata=metadata)

    class ReplayExecutor(AgentExecutor):  # type: ignore[misc]
        async def execute(self, context: RequestContext, event_queue: EventQueue) -> None:
            if context.current_task is None:
                await event_queue.enqueue_event(new_task_from_user_message(context.message))
            await asyncio.sleep(_LATENCY)
            updater = TaskUpdater(event_queue, context.task_id, context.context_id)
            events = _turn_events(context.get_user_input())
            for event in events[:-1]:
                part = event["content"]["parts"][0]
                kind, data = ("function_call", part["functionCall"]) if "functionCall" in part else (
                    "function_response", part["functionResponse"])  # fmt: skip
                message = Message(message_id=uuid.uuid4().hex, role=Role.ROLE_AGENT, parts=[data_part(data, kind)])
                await updater.update_status(TaskState.TASK_STATE_WORKING, message)
            await updater.add_artifact([Part(text=events[-1]["content"]["parts"][0]["text"])], last_chunk=True)
            await updater.complete()

        async def cancel(self, context: RequestContext, event_queue: EventQueue) -> None:
            raise NotImplementedError

    card = AgentCard(
        name="bench", description="The remote benchmark's replaying agent.", version="1.0.0",
        supported_interfaces=[AgentInterface(url=url, protocol_binding="JSONRPC", protocol_version="1.0")],
        capabilities=AgentCapabilities(streaming=True), default_input_modes=["text/plain"],
        default_output_modes=["text/plain"],
    )  # fmt: skip
    handler = DefaultRequestHandler(agent_executor=ReplayExecutor(), task_store=InMemoryTaskStore(), agent_card=card)
    return Starlette(routes=[*create_agent_card_routes(card), *create_jsonrpc_routes(handler, "/")])


def main() -> None:
    """Serve the agent on 127.0.0.1:PORT until killed."""
    import uvicorn

    mode, port = sys.argv[1], int(sys.argv[2])
    if mode == "adk":
        app = _adk_app(ReplayAdkAgent(name="bench"))
    elif mode == "adk-lite":
        app = _adk_lite_app()
    elif mode == "a2a-lite":
        app = _a2a_lite_app(f"http://127.0.0.1:{port}/")
    else:
        app = _a2a_app(f"http://127.0.0.1:{port}/")
    uvicorn.run(app, host="127.0.0.1", port=port, log_level="warning", backlog=4096)


if __name__ == "__main__":
    main()
