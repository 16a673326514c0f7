"""A scripted OpenAI-compatible chat-completions server on 127.0.0.1 for judge tests.

Replies are queued (status, body, headers) and served in arrival order; every request is recorded with its
headers and JSON body. When the queue is empty, ``responder(request_json)`` answers (default: HTTP 500).
``HANG`` as a reply never answers (until the server stops); a ``str`` body is sent as is, with ``content_type``.
"""

from __future__ import annotations

import json
import threading
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class Reply:
    status: int = 200
    body: Any = None
    headers: dict[str, str] = field(default_factory=dict)
    content_type: str = "application/json"


HANG = Reply(0)
"""A reply that never comes: the request is held open until the server stops."""


@dataclass
class Recorded:
    path: str
    headers: dict[str, str]
    body: dict[str, Any]

    @property
    def prompt(self) -> str:
        return "\n".join(m.get("content", "") for m in self.body.get("messages", []))


def completion(content: str, *, model: str = "judge-model") -> dict[str, Any]:
    """A chat.completion body whose single choice says ``content``."""
    return {
        "id": "chatcmpl-test",
        "object": "chat.completion",
        "created": 0,
        "model": model,
        "choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
    }


def ok(content: str) -> Reply:
    return Reply(200, completion(content))


def error(status: int, message: str = "scripted error", headers: dict[str, str] | None = None) -> Reply:
    return Reply(status, {"error": {"message": message, "type": "server_error"}}, headers or {})


class ChatServer:
    def __init__(self) -> None:
        self.requests: list[Recorded] = []
        self.replies: deque[Reply] = deque()
        self.responder: Callable[[dict[str, Any]], Reply] | None = None
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: Any) -> None:  # keep test output clean
                pass

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length", "0"))
                raw = self.rfile.read(length)
                body = json.loads(raw or b"{}")
                reply = server._next(Recorded(self.path, {k.lower(): v for k, v in self.headers.items()}, body))
                if reply is HANG:
                    server._stopping.wait(60)
                    return
                payload = reply.body if isinstance(reply.body, str) else json.dumps(reply.body)
                data = payload.encode()
                self.send_response(reply.status)
                self.send_header("Content-Type", reply.content_type)
                self.send_header("Content-Length", str(len(data)))
                for k, v in reply.headers.items():
                    self.send_header(k, v)
                self.end_headers()
                self.wfile.write(data)

        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._thread = threading.Thread(target=self._httpd.serve_forever, daemon=True)

    def _next(self, request: Recorded) -> Reply:
        with self._lock:
            self.requests.append(request)
            if self.replies:
                return self.replies.popleft()
        if self.responder is not None:
            return self.responder(request.body)
        return error(500, "no scripted reply left")

    def queue(self, *replies: Reply) -> None:
        with self._lock:
            self.replies.extend(replies)

    @property
    def base_url(self) -> str:
        host, port = self._httpd.server_address[:2]
        return f"http://{host!s}:{port}/v1"

    def start(self) -> ChatServer:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stopping.set()
        self._httpd.shutdown()
        self._httpd.server_close()
        self._thread.join(timeout=5)
