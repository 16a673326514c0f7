"""The remote agent of the ``remote`` measure, served in its own process over a protocol.

    BENCH_REPLAY=replay.json BENCH_LATENCY=0.05 python benchmarks/remote_server.py MODE PORT

Every mode sleeps ``BENCH_LATENCY`` per turn, then replays the recorded turn (``BENCH_REPLAY`` as for
``replay_agent.py``): its tool calls, their results and its answer.

- ``adk``: an ADK agent (no model) served by google-adk's own HTTP API app (``get_fast_api_app``, app ``bench``, as
  ``adk api_server`` runs it);
- ``adk-lite``: the same events in ADK's JSON form from a minimal HTTP server speaking ADK's HTTP API (session
  creation, ``/run_sse``): what is left is agentgauge's own cost, not google-adk's server's;
- ``a2a``: an ``a2a-sdk`` server (JSON-RPC, streaming) reporting tool calls and results as data parts the way
  google-adk's A2A converter does, then the answer as an artifact;
- ``a2a-lite``: the same A2A 1.0 JSON-RPC events, byte for byte in shape (task, working status updates with the
  data parts, the answer artifact, completed), from a minimal HTTP server: what is left is the client's cost
  (a2a-sdk's client and agentgauge), not a2a-sdk's server's.

The two lite modes answer from a plain ``asyncio.Protocol`` (no framework; ~0.2 ms of CPU per request instead of
~1 ms with Starlette on uvicorn's pure-Python h11 parser), since the server shares the machine's two cores with the
command being measured.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
from collections.abc import AsyncGenerator, Awaitable, Callable
from typing import Any

from google.adk.agents import BaseAgent
from google.adk.agents.invocation_context import InvocationContext
from google.adk.events import Event
from google.genai import types

with open(os.environ["BENCH_REPLAY"], encoding="utf-8") as _fh:
    _SCRIPT: dict[str, Any] = json.load(_fh)
_LATENCY = float(os.environ.get("BENCH_LATENCY", "0.05"))

Handler = Callable[[str, str, bytes], Awaitable[tuple[int, str, list[bytes]]]]
"""A lite mode's answer to ``(method, path, body)``: ``(status, content type, body chunks)``."""
_JSON, _SSE = "application/json", "text/event-stream"
_REASONS = {200: "OK", 404: "Not Found"}


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


async def _adk_lite(method: str, path: str, body: bytes) -> tuple[int, str, list[bytes]]:
    """ADK's HTTP API as ``adk api_server`` answers it: session creation, ``/run_sse``, ``/list-apps``."""
    parts = path.split("/")
    if method == "POST" and path == "/run_sse":
        request = json.loads(body)
        text = "".join(part.get("text", "") for part in request["newMessage"]["parts"])
        await asyncio.sleep(_LATENCY)
        return 200, _SSE, [f"data: {json.dumps(event)}\n\n".encode() for event in _turn_events(text)]
    if method == "POST" and len(parts) == 7 and parts[1] == "apps" and parts[3] == "users" and parts[5] == "sessions":
        return 200, _JSON, [json.dumps({"id": parts[6], "appName": parts[2], "userId": parts[4]}).encode()]
    if method == "GET" and path == "/list-apps":
        return 200, _JSON, [b'["bench"]']
    return 404, _JSON, [b'{"detail": "Not Found"}']


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


def _a2a_lite(url: str) -> Handler:
    """A2A 1.0 over JSON-RPC with streaming, as a2a-sdk's server answers it: the agent card and ``/``."""
    card = json.dumps({
        "name": "bench", "description": "The remote benchmark's replaying agent.", "version": "1.0.0",
        "supportedInterfaces": [{"url": url, "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}],
        "capabilities": {"streaming": True}, "defaultInputModes": ["text/plain"], "defaultOutputModes": ["text/plain"],
    }).encode()  # fmt: skip

    async def answer(method: str, path: str, body: bytes) -> tuple[int, str, list[bytes]]:
        if method == "GET" and path == "/.well-known/agent-card.json":
            return 200, _JSON, [card]
        if method == "POST" and path == "/":
            request = json.loads(body)
            message = request["params"]["message"]
            text = "".join(part.get("text", "") for part in message["parts"])
            await asyncio.sleep(_LATENCY)
            return 200, _SSE, [c.encode() for c in _a2a_lite_events(request["id"], text, message.get("contextId"))]
        return 404, _JSON, [b'{"detail": "Not Found"}']

    return answer


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


class _LiteHttp(asyncio.Protocol):
    """HTTP/1.1 for the lite modes: keep-alive, ``Content-Length`` request bodies (what the clients send), answers
    with ``Content-Length`` (JSON) or chunked, one chunk per event, written at once (event streams)."""

    def __init__(self, handler: Handler) -> None:
        self.handler, self.buffer = handler, b""
        self.transport: asyncio.Transport | None = None
        self.answering: set[asyncio.Task[None]] = set()  # referenced until done (the loop keeps weak references)

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self.transport = transport

    def data_received(self, data: bytes) -> None:
        self.buffer += data
        while (head_end := self.buffer.find(b"\r\n\r\n")) >= 0:
            lines = self.buffer[:head_end].decode("latin-1").split("\r\n")
            method, target, _ = lines[0].split(" ", 2)
            length = 0
            for line in lines[1:]:
                name, _, value = line.partition(":")
                if name.strip().lower() == "content-length":
                    length = int(value)
            end = head_end + 4 + length
            if len(self.buffer) < end:
                return
            body, self.buffer = self.buffer[head_end + 4 : end], self.buffer[end:]
            task = asyncio.ensure_future(self._answer(method, target.split("?", 1)[0], body))
            self.answering.add(task)
            task.add_done_callback(self.answering.discard)

    async def _answer(self, method: str, path: str, body: bytes) -> None:
        status, content_type, chunks = await self.handler(method, path, body)
        head = f"HTTP/1.1 {status} {_REASONS.get(status, 'Error')}\r\ncontent-type: {content_type}\r\n"
        if content_type == _SSE:
            payload = b"".join(b"%x\r\n%s\r\n" % (len(chunk), chunk) for chunk in chunks) + b"0\r\n\r\n"
            head += "transfer-encoding: chunked\r\n\r\n"
        else:
            payload = b"".join(chunks)
            head += f"content-length: {len(payload)}\r\n\r\n"
        if self.transport is not None and not self.transport.is_closing():
            self.transport.write(head.encode("latin-1") + payload)


async def _serve_lite(handler: Handler, port: int) -> None:
    server = await asyncio.get_running_loop().create_server(lambda: _LiteHttp(handler), "127.0.0.1", port, backlog=4096)
    async with server:
        await server.serve_forever()


def main() -> None:
    """Serve the agent on 127.0.0.1:PORT until killed."""
    mode, port = sys.argv[1], int(sys.argv[2])
    if mode in ("adk-lite", "a2a-lite"):
        handler = _adk_lite if mode == "adk-lite" else _a2a_lite(f"http://127.0.0.1:{port}/")
        asyncio.run(_serve_lite(handler, port))
        return
    app = _adk_app(ReplayAdkAgent(name="bench")) if mode == "adk" else _a2a_app(f"http://127.0.0.1:{port}/")
    import uvicorn

    uvicorn.run(app, host="127.0.0.1", port=port, log_level="warning", backlog=4096)


if __name__ == "__main__":
    main()
