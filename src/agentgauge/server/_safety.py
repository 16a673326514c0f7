"""Request guards: allowed host names, bearer token, same-site writes, loopback-only writes, request size, security
headers; and what of a result may leave the server."""

from __future__ import annotations

import hmac
import ipaddress
import json
import os
from collections.abc import Awaitable, Callable, MutableMapping
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qsl, urlencode

from ._headers import ADK_WEB_POLICY, DEFAULT_POLICY
from ._hosts import HostAllowList

if TYPE_CHECKING:  # pragma: no cover
    from ..model import EvalSetResult

__all__ = ["TOKEN_COOKIE", "UI_PAGES", "SafetyMiddleware", "is_loopback", "public_result"]

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

TOKEN_COOKIE = "agentgauge_token"
UI_PAGES = frozenset({"/", "/dev-ui", "/dev-ui/"})
"""The pages a browser opens from a link: only there may ``?token=`` set the token cookie."""
_WRITE_METHODS = frozenset({"POST", "PUT", "PATCH", "DELETE"})
_REMOTE_ENV = "ADK_ALLOW_REMOTE_AGENT_BUILDER"
# POSTs that change nothing, so a remote caller may use them like any read.
_READ_ONLY_POSTS = ("/api/validate/",)
# Starlette's TestClient calls the app in-process with this peer; no network (so no rebinding) is involved.
_IN_PROCESS_PEER = "testclient"
_BASE_HEADERS = ((b"x-content-type-options", b"nosniff"), (b"referrer-policy", b"no-referrer"))


def is_loopback(host: str | None) -> bool:
    """Whether the peer address is a loopback address (``testclient`` counts: it is in-process)."""
    if not host:
        return False
    if host in ("localhost", _IN_PROCESS_PEER):
        return True
    try:
        return ipaddress.ip_address(host.strip("[]").split("%")[0]).is_loopback
    except ValueError:
        return False


def public_result(result: EvalSetResult, debug: bool) -> EvalSetResult:
    """``result`` as it may be sent over HTTP: agents' tracebacks (which show the server's files) are dropped,
    their error messages kept; with ``debug`` the result is returned whole."""
    if debug or not any(c.error_traceback or _traceback_keys(c.model_extra) for c in result.eval_case_results):
        return result
    cases = []
    for case in result.eval_case_results:
        copy = case.model_copy(update={"error_traceback": None})
        for key in _traceback_keys(copy.model_extra):
            del copy.model_extra[key]  # type: ignore[union-attr]
        cases.append(copy)
    return result.model_copy(update={"eval_case_results": cases})


def _traceback_keys(extra: dict[str, Any] | None) -> list[str]:
    return [k for k in extra or {} if k.replace("_", "").lower() == "errortraceback"]


def _header(scope: Scope, name: bytes) -> bytes | None:
    for key, value in scope.get("headers", []):
        if key == name:
            return bytes(value)
    return None


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


def _with_security_headers(scope: Scope, send: Send) -> Send:
    """``send`` adding the security headers a response lacks (a page's route sets its own policy)."""
    policy = ADK_WEB_POLICY if scope.get("path", "").startswith("/dev-ui") else DEFAULT_POLICY

    async def sending(message: Message) -> None:
        if message["type"] == "http.response.start":
            headers = list(message.get("headers", []))
            present = {bytes(name).lower() for name, _ in headers}
            extra = [(n, v) for n, v in _BASE_HEADERS if n not in present]
            if b"x-frame-options" not in present:
                extra.append((b"x-frame-options", b"DENY"))
            if b"content-security-policy" not in present:
                extra.append((b"content-security-policy", policy.encode()))
            message = {**message, "headers": headers + extra}
        await send(message)

    return sending


class SafetyMiddleware:
    """Checks every HTTP request before the app sees it, and adds security headers to every response.

    - ``Host`` must name this server: ``localhost``, a loopback address, ``host`` or one of ``allowed_hosts``; else
      403 on every route, pages and static files included (DNS rebinding).
    - With a ``token``: ``Authorization: Bearer <token>`` (any case of ``Bearer``) or the UI's HttpOnly cookie,
      else 401. ``GET /?token=<token>`` (a UI page only) sets the cookie and redirects to the page without it.
    - Writes (POST/PUT/PATCH/DELETE) whose ``Origin`` names a host outside the same allow-list (and is not one of
      ``allowed_origins``): 403, so another site's page cannot make the user's browser change files or run agents.
    - Writes from a non-loopback peer: 403 unless ``allow_remote_writes`` or ADK's
      ``ADK_ALLOW_REMOTE_AGENT_BUILDER=1`` (as ADK's dev server) or a token is configured (its holder is trusted).
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
        host: str | None = "127.0.0.1",
        allowed_hosts: list[str] | None = None,
    ) -> None:
        self.app = app
        self.token = token
        # A caller who holds the token is trusted like a local one; without a token only an explicit opt-in lets
        # remote clients write.
        self.allow_remote_writes = (
            allow_remote_writes or token is not None or os.environ.get(_REMOTE_ENV, "").lower() in ("1", "true", "yes")
        )
        self.max_body = max_body
        self.allowed_origins = {o.rstrip("/") for o in allowed_origins or []}
        self.hosts = HostAllowList(host, allowed_hosts)

    def _authorized(self, scope: Scope) -> bool:
        """Whether the request carries the token in ``Authorization`` or in the cookie."""
        assert self.token is not None
        expected = self.token.encode()
        for name, value in scope.get("headers", []):
            if name == b"authorization":
                scheme, _, given = bytes(value).strip().partition(b" ")
                if scheme.lower() == b"bearer" and hmac.compare_digest(given.strip(), expected):
                    return True
            elif name == b"cookie":
                for part in bytes(value).split(b";"):
                    key, _, val = part.strip().partition(b"=")
                    if key == TOKEN_COOKIE.encode() and hmac.compare_digest(val.strip(), expected):
                        return True
        return False

    async def _token_link(self, scope: Scope, send: Send) -> bool:
        """A GET of a UI page with the right ``?token=``: set the cookie and redirect to the page without it."""
        assert self.token is not None
        if scope.get("method") != "GET" or scope.get("path") not in UI_PAGES:
            return False
        query = parse_qsl(scope.get("query_string", b"").decode("latin-1"), keep_blank_values=True)
        given = [v for k, v in query if k == "token"]
        if len(given) != 1 or not hmac.compare_digest(given[0].encode(), self.token.encode()):
            return False
        rest = urlencode([(k, v) for k, v in query if k != "token"])
        location = str(scope["path"]) + (f"?{rest}" if rest else "")
        cookie = f"{TOKEN_COOKIE}={self.token}; HttpOnly; SameSite=Strict; Path=/"
        await send({"type": "http.response.start", "status": 303,
                    "headers": [(b"location", location.encode()), (b"set-cookie", cookie.encode()),
                                (b"cache-control", b"no-store"), (b"content-length", b"0")]})  # fmt: skip
        await send({"type": "http.response.body", "body": b""})
        return True

    def _same_site(self, scope: Scope) -> bool:
        """No ``Origin`` header (not a browser), an origin naming an allowed host, or one allowed with ``--cors``.
        The request's own ``Host`` is never the reference: a rebinding page controls both."""
        origin = _header(scope, b"origin")
        if origin is None:
            return True
        text = origin.decode("latin-1").strip().rstrip("/")
        if text in self.allowed_origins:
            return True
        host = _header(scope, b"host")
        return self.hosts.origin_allowed(text, host.decode("latin-1") if host is not None else None)

    def _remote_write(self, scope: Scope) -> bool:
        client = scope.get("client")
        peer = client[0] if client else None
        return (
            scope.get("method") in _WRITE_METHODS
            and not self.allow_remote_writes
            and not is_loopback(peer)
            and not str(scope.get("path", "")).startswith(_READ_ONLY_POSTS)
        )

    def _host_refusal(self, scope: Scope) -> str | None:
        client = scope.get("client")
        if client and client[0] == _IN_PROCESS_PEER:
            return None
        return self.hosts.refusal(list(scope.get("headers", [])))

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "websocket" and self._host_refusal(scope) is not None:
            await receive()  # the connect event; closing before accepting answers the handshake with 403
            await send({"type": "websocket.close", "code": 1008})
            return
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        send = _with_security_headers(scope, send)
        refusal = self._host_refusal(scope)
        if refusal is not None:
            await _reply(send, 403, refusal)
            return
        method = scope.get("method", "GET")
        if self.token is not None and method != "OPTIONS":
            # A link with the token sets the cookie, then the token leaves the address bar (and the history).
            if await self._token_link(scope, send):
                return
            if not self._authorized(scope):
                await _reply(send, 401, "missing or wrong bearer token", [(b"www-authenticate", b"Bearer")])
                return
        if method in _WRITE_METHODS and not self._same_site(scope):
            # A page of another site must not make the user's browser change files or run agents here (a form
            # POST needs no CORS preflight); ADK's dev server refuses these too.
            await _reply(send, 403, "cross-origin request refused: start the server with --cors ORIGIN to allow it")
            return
        if self._remote_write(scope):
            await _reply(
                send,
                403,
                "this route changes files or runs agents and is only served to local clients; start the server "
                f"with --allow-remote-writes (or {_REMOTE_ENV}=1) to allow remote access",
            )
            return
        await self._limited(scope, receive, send)

    async def _limited(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Hand the request over, its body limited to ``max_body`` bytes (413 beyond)."""
        announced: int | None = None
        length = _header(scope, b"content-length")
        if length is not None:
            try:
                announced = int(length)
            except ValueError:
                announced = None
        if announced is not None and announced > self.max_body:
            await _reply(send, 413, f"request body too large: limit is {self.max_body} bytes")
            return
        if announced is not None or scope.get("method") not in _WRITE_METHODS:
            await self.app(scope, receive, send)
            return
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
