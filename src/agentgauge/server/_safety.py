"""Request guards: bearer token, loopback-only writes, request size limit."""

from __future__ import annotations

import hmac
import ipaddress
import json
import os
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any
from urllib.parse import parse_qs

__all__ = ["TOKEN_COOKIE", "SafetyMiddleware", "is_loopback"]

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

TOKEN_COOKIE = "agentgauge_token"
_WRITE_METHODS = frozenset({"POST", "PUT", "PATCH", "DELETE"})
_REMOTE_ENV = "ADK_ALLOW_REMOTE_AGENT_BUILDER"
# POSTs that change nothing, so a remote caller may use them like any read.
_READ_ONLY_POSTS = ("/api/validate/",)


def is_loopback(host: str | None) -> bool:
    """Whether the peer address is a loopback address (``testclient`` counts: it is in-process)."""
    if not host:
        return False
    if host in ("localhost", "testclient"):
        return True
    try:
        return ipaddress.ip_address(host.split("%")[0]).is_loopback
    except ValueError:
        return False


async def _reply(send: Send, status: int, detail: str, headers: list[tuple[bytes, bytes]] | None = None) -> None:
    body = json.dumps({"detail": detail, "error": detail}).encode()
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
            + (headers or []),
        }
    )
    await send({"type": "http.response.body", "body": body})


class SafetyMiddleware:
    """Checks every HTTP request before the app sees it.

    - With a ``token``: ``Authorization: Bearer <token>`` or the UI's cookie, else 401. ``GET /?token=<token>``
      sets the cookie, so a browser can open the UI from a link.
    - Writes (POST/PUT/PATCH/DELETE) from a non-loopback peer: 403 unless ``allow_remote_writes`` or ADK's
      ``ADK_ALLOW_REMOTE_AGENT_BUILDER=1`` (as ADK's dev server) or a token is configured (its holder is trusted).
    - Writes whose ``Origin`` is neither this server nor one of ``allowed_origins``: 403 (cross-site requests).
    - Bodies over ``max_body`` bytes: 413, whether announced by ``Content-Length`` or streamed.
    """

    def __init__(
        self,
        app: ASGIApp,
        *,
        token: str | None,
        allow_remote_writes: bool,
        max_body: int,
        allowed_origins: list[str] | None = None,
    ) -> None:
        self.app = app
        self.token = token
        # A caller who holds the token is trusted like a local one; without a token only an explicit opt-in lets
        # remote clients write.
        self.allow_remote_writes = (
            allow_remote_writes
            or token is not None
            or os.environ.get(_REMOTE_ENV, "").lower()
            in (
                "1",
                "true",
                "yes",
            )
        )
        self.max_body = max_body
        self.allowed_origins = {o.rstrip("/") for o in allowed_origins or []}

    def _authorized(self, scope: Scope) -> tuple[bool, bool]:
        """(authorized, came with ``?token=``)."""
        assert self.token is not None
        expected = self.token.encode()
        for name, value in scope.get("headers", []):
            if (
                name == b"authorization"
                and value.startswith(b"Bearer ")
                and hmac.compare_digest(value[7:].strip(), expected)
            ):
                return True, False
            if name == b"cookie":
                for part in value.split(b";"):
                    key, _, val = part.strip().partition(b"=")
                    if key == TOKEN_COOKIE.encode() and hmac.compare_digest(val, expected):
                        return True, False
        query = parse_qs(scope.get("query_string", b"").decode("latin-1"))
        given = query.get("token", [""])[0].encode()
        if given and hmac.compare_digest(given, expected):
            return True, True
        return False, False

    def _same_origin(self, scope: Scope) -> bool:
        """No ``Origin`` header (not a browser), the server's own origin, or one allowed with ``--cors``."""
        headers = dict(scope.get("headers", []))
        origin = headers.get(b"origin")
        if origin is None:
            return True
        text = origin.decode("latin-1").rstrip("/")
        if text in self.allowed_origins:
            return True
        host = headers.get(b"host", b"").decode("latin-1")
        return text.partition("://")[2] == host and bool(host)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        method = scope.get("method", "GET")
        path = scope.get("path", "")
        if self.token is not None and method != "OPTIONS":
            ok, from_query = self._authorized(scope)
            if not ok:
                await _reply(send, 401, "missing or wrong bearer token", [(b"www-authenticate", b"Bearer")])
                return
            if from_query and method == "GET":
                cookie = f"{TOKEN_COOKIE}={self.token}; HttpOnly; SameSite=Strict; Path=/".encode()
                await send({"type": "http.response.start", "status": 303,
                            "headers": [(b"location", path.encode() or b"/"), (b"set-cookie", cookie),
                                        (b"content-length", b"0")]})  # fmt: skip
                await send({"type": "http.response.body", "body": b""})
                return
        if method in _WRITE_METHODS and not self._same_origin(scope):
            # A page of another site must not make the user's browser change files or run agents here (a form
            # POST needs no CORS preflight); ADK's dev server refuses these too.
            await _reply(send, 403, "cross-origin request refused: start the server with --cors ORIGIN to allow it")
            return
        client = scope.get("client")
        peer = client[0] if client else None
        if (
            method in _WRITE_METHODS
            and not self.allow_remote_writes
            and not is_loopback(peer)
            and not path.startswith(_READ_ONLY_POSTS)
        ):
            await _reply(
                send,
                403,
                "this route changes files or runs agents and is only served to local clients; start the server "
                f"with --allow-remote-writes (or {_REMOTE_ENV}=1) to allow remote access",
            )
            return
        announced: int | None = None
        for name, value in scope.get("headers", []):
            if name == b"content-length":
                try:
                    announced = int(value)
                except ValueError:
                    announced = None
        if announced is not None and announced > self.max_body:
            await _reply(send, 413, f"request body too large: limit is {self.max_body} bytes")
            return
        if announced is None and method in _WRITE_METHODS:
            # A streamed body of unknown length is read here, up to the limit, then handed over whole: frameworks
            # turn errors raised while they read a body into 400s, so the limit must be enforced before.
            chunks: list[bytes] = []
            size = 0
            while True:
                message = await receive()
                if message["type"] != "http.request":
                    break
                size += len(message.get("body", b""))
                if size > self.max_body:
                    await _reply(send, 413, f"request body too large: limit is {self.max_body} bytes")
                    return
                chunks.append(message.get("body", b""))
                if not message.get("more_body", False):
                    break
            replay: list[Message] = [{"type": "http.request", "body": b"".join(chunks), "more_body": False}]

            async def replayed() -> Message:
                return replay.pop() if replay else await receive()

            await self.app(scope, replayed, send)
            return
        await self.app(scope, receive, send)
