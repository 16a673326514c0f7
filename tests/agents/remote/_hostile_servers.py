"""A hostile loopback server for every remote scheme: an asyncio HTTP/1.1 server in a thread (byte-level control, no
framework) that speaks just enough of each protocol to answer one turn with ``fine``, and misbehaves as the first
two segments of the path say:

- ``/to-away/STATUS/REST``: a ``STATUS`` redirect to ``http://AWAY/REST`` (AWAY: the other hostile server);
- ``/card-away/0/...``: an A2A agent card whose interface URL is AWAY's;
- ``/huge/N/...``: every ``POST`` answered with ``N`` bytes (``/huge-get/N/``: every ``GET``), generated as sent,
  without ``Content-Length``;
- ``/deep/N/...``: ``POST`` answers nesting JSON arrays ``N`` deep;
- ``/endless/0/...``: ``POST`` answers that never end (JSON whitespace, or event-stream comments, 20 a second);
- ``/drip/head/...`` and ``/drip/body/...``: ``POST`` answers sent one byte every 0.2 s, from the status line on or
  after the headers.

Protocol routes (after the mode): ADK's ``GET /list-apps``, ``POST /apps/hostile/users/U/sessions/S`` and
``POST /run_sse``; A2A's ``GET /.well-known/agent-card.json`` and ``POST /`` (JSON-RPC, streamed); AG-UI's
``POST /agui``; a plain JSON service's ``POST /chat`` (``{"answer": "fine"}``); the tRPC-Agent API's
``GET /trpc-agent/v1/apps/hostile/structure`` and ``POST /trpc-agent/v1/apps/hostile/runs``. Every request is
recorded in ``seen`` with its headers, so tests can check what reached which server.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import threading
import uuid
from collections.abc import AsyncIterator, Iterator
from typing import Any

_JSON, _SSE = "application/json", "text/event-stream"
_PIECE = 1 << 16
_MODES = frozenset({"to-away", "card-away", "huge", "huge-get", "deep", "endless", "drip"})

PLAIN_CONFIG: dict[str, Any] = {
    "request": {"path": "", "body": {"q": "{{message}}"}},
    "response": {"finalResponse": "$.answer"},
}
"""The ``--agent-config`` of the plain service (``POST`` the message, read ``$.answer``)."""


def _sse(*events: Any) -> bytes:
    return b"".join(f"data: {json.dumps(event)}\n\n".encode() for event in events)


def _a2a_events(request: dict[str, Any]) -> bytes:
    rid, message = request.get("id"), request["params"]["message"]
    task, context = uuid.uuid4().hex, message.get("contextId") or uuid.uuid4().hex
    ids = {"taskId": task, "contextId": context}
    results = [
        {"task": {"id": task, "contextId": context, "status": {"state": "TASK_STATE_SUBMITTED"}}},
        {"artifactUpdate": {**ids, "artifact": {"artifactId": "a", "parts": [{"text": "fine"}]}, "lastChunk": True}},
        {"statusUpdate": {**ids, "status": {"state": "TASK_STATE_COMPLETED"}}},
    ]
    return _sse(*({"jsonrpc": "2.0", "id": rid, "result": result} for result in results))


_AGUI = _sse(
    {"type": "RUN_STARTED", "threadId": "t", "runId": "r"},
    {"type": "TEXT_MESSAGE_CHUNK", "messageId": "m", "delta": "fine"},
    {"type": "RUN_FINISHED", "threadId": "t", "runId": "r"},
)
_ADK = _sse({"author": "hostile", "content": {"role": "model", "parts": [{"text": "fine"}]}})
_TRPC = "/trpc-agent/v1/apps/hostile"


def _trpc_run(request: dict[str, Any]) -> bytes:
    rid = request["runOptions"]["requestID"]
    final = {"index": 0, "message": {"role": "assistant", "content": "fine"}}
    events = [
        {"requestID": rid, "invocationId": "i", "author": "hostile", "done": True, "choices": [final]},
        {"requestID": rid, "invocationId": "i", "author": "hostile", "done": True, "object": "runner.completion"},
    ]
    return json.dumps({"status": "completed", "events": events}).encode()


class HostileServer:
    """The server; :meth:`start` returns ``HOST:PORT``; ``away`` is the other server's ``HOST:PORT``."""

    def __init__(self) -> None:
        self.seen: list[tuple[str, str, dict[str, str]]] = []
        self.away = ""
        self.address = ""
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, daemon=True)
        self._server: asyncio.Server | None = None

    def start(self) -> str:
        """Listen on 127.0.0.1 and a free port."""
        self._thread.start()
        made = asyncio.run_coroutine_threadsafe(asyncio.start_server(self._connection, "127.0.0.1", 0), self._loop)
        self._server = made.result(10)
        self.address = f"127.0.0.1:{self._server.sockets[0].getsockname()[1]}"
        return self.address

    def stop(self) -> None:
        """Close the server and every connection, stop the thread."""

        async def close() -> None:
            assert self._server is not None
            self._server.close()
            for task in asyncio.all_tasks():
                if task is not asyncio.current_task():
                    task.cancel()

        asyncio.run_coroutine_threadsafe(close(), self._loop).result(10)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(10)

    def headers_seen(self) -> list[dict[str, str]]:
        """The headers of every request received so far."""
        return [headers for _, _, headers in self.seen]

    async def _connection(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        with contextlib.suppress(ConnectionError, asyncio.IncompleteReadError, asyncio.LimitOverrunError):
            head = (await reader.readuntil(b"\r\n\r\n")).decode("latin-1").split("\r\n")
            method, target, _ = head[0].split(" ", 2)
            headers = {}
            for line in head[1:]:
                name, _, value = line.partition(":")
                if name:
                    headers[name.strip().lower()] = value.strip()
            body = await reader.readexactly(int(headers.get("content-length", "0")))
            path = target.split("?", 1)[0]
            self.seen.append((method, path, headers))
            await self._answer(method, path, body, writer)
        writer.close()

    async def _answer(self, method: str, path: str, body: bytes, writer: asyncio.StreamWriter) -> None:
        parts = path.split("/", 3)
        mode, arg, rest = ("ok", "", path)
        if len(parts) >= 3 and parts[1] in _MODES:
            mode, arg, rest = parts[1], parts[2], "/" + (parts[3] if len(parts) > 3 else "")
        if mode == "to-away":
            await self._send(writer, int(arg), _JSON, [b"{}"], extra=f"location: http://{self.away}{rest}\r\n")
            return
        prefix = path[: len(path) - len(rest)] if mode != "ok" else ""
        status, kind, answer = self._protocol(method, rest, body, prefix, mode)
        hostile = mode in ("huge-get",) if method == "GET" else mode in ("huge", "deep", "endless", "drip")
        if status != 200 or not hostile:
            await self._send(writer, status, kind, [answer])
        elif mode in ("huge", "huge-get"):
            await self._send(writer, 200, kind, _huge(int(arg), kind))
        elif mode == "deep":
            deep = b"[" * int(arg) + b"]" * int(arg)
            await self._send(writer, 200, kind, [b"data: " + deep + b"\n\n" if kind == _SSE else deep])
        elif mode == "endless":
            await self._send(writer, 200, kind, _endless(kind))
        else:
            await self._drip(writer, kind, answer, head=arg == "head")

    def _protocol(self, method: str, path: str, body: bytes, prefix: str, mode: str) -> tuple[int, str, bytes]:
        """The normal answer of a protocol route (``prefix``: the mode's part of the path, kept in card URLs)."""
        if method == "GET" and path == "/list-apps":
            return 200, _JSON, b'["hostile"]'
        if method == "POST" and path.startswith("/apps/hostile/users/") and "/sessions/" in path:
            return 200, _JSON, json.dumps({"id": path.rsplit("/", 1)[1]}).encode()
        if method == "POST" and path == "/run_sse":
            return 200, _SSE, _ADK
        if method == "GET" and path == "/.well-known/agent-card.json":
            base = f"http://{self.away}/" if mode == "card-away" else f"http://{self.address}{prefix}/"
            return 200, _JSON, _card(base)
        if method == "POST" and path == "/":
            return 200, _SSE, _a2a_events(json.loads(body))
        if method == "POST" and path == "/agui":
            return 200, _SSE, _AGUI
        if method == "POST" and path == "/chat":
            return 200, _JSON, b'{"answer": "fine"}'
        if method == "GET" and path == f"{_TRPC}/structure":
            return 200, _JSON, b'{"structure": {"StructureID": "hostile", "Nodes": []}}'
        if method == "POST" and path == f"{_TRPC}/runs":
            return 200, _JSON, _trpc_run(json.loads(body))
        return (405 if path in ("/agui", "/chat", f"{_TRPC}/runs") else 404), _JSON, b'{"detail": "Not Found"}'

    @staticmethod
    async def _send(writer: asyncio.StreamWriter, status: int, kind: str, chunks: Any, *, extra: str = "") -> None:
        """Status, headers, then the chunks until they end (the connection closes: no ``Content-Length``)."""
        writer.write(f"HTTP/1.1 {status} X\r\ncontent-type: {kind}\r\nconnection: close\r\n{extra}\r\n".encode())
        if isinstance(chunks, list):
            for chunk in chunks:
                writer.write(chunk)
            await writer.drain()
            return
        async for chunk in chunks:
            writer.write(chunk)
            await writer.drain()

    @staticmethod
    async def _drip(writer: asyncio.StreamWriter, kind: str, answer: bytes, *, head: bool) -> None:
        start = f"HTTP/1.1 200 OK\r\ncontent-type: {kind}\r\ncontent-length: {len(answer)}\r\n\r\n".encode()
        if not head:
            writer.write(start)
        for byte in start + answer if head else answer:
            writer.write(bytes([byte]))
            await writer.drain()
            await asyncio.sleep(0.2)


def _card(url: str) -> bytes:
    interface = {"url": url, "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}
    card = {"name": "hostile", "description": "A hostile agent.", "version": "1.0.0"}
    card["capabilities"] = {"streaming": True}
    modes = {"defaultInputModes": ["text/plain"], "defaultOutputModes": ["text/plain"]}
    return json.dumps({**card, "supportedInterfaces": [interface], **modes}).encode()


async def _huge(size: int, kind: str) -> AsyncIterator[bytes]:
    """``size`` bytes of one JSON string (or one event-stream line), made as they are sent."""
    yield b'data: {"pad": "' if kind == _SSE else b'{"pad": "'
    piece = b"x" * _PIECE
    for _ in range(size // _PIECE):
        yield piece
    yield b'"}\n\n' if kind == _SSE else b'"}'


async def _endless(kind: str) -> AsyncIterator[bytes]:
    if kind != _SSE:
        yield b"["
    while True:
        yield b": still here\n\n" if kind == _SSE else b" "
        await asyncio.sleep(0.05)


@contextlib.contextmanager
def hostile_pair() -> Iterator[tuple[HostileServer, HostileServer]]:
    """Two hostile servers, ``home`` and ``away``, each the other's AWAY."""
    home, away = HostileServer(), HostileServer()
    home.start()
    away.start()
    home.away, away.away = away.address, home.address
    try:
        yield home, away
    finally:
        home.stop()
        away.stop()
