"""The HTTP layer every remote agent scheme shares: one pooled client per event loop, bounded retries with
back-off, error messages that name the endpoint without leaking secrets, and a Server-Sent Events reader.

``httpx`` is imported here only, so loading a local agent never pays for it.
"""

from __future__ import annotations

import asyncio
import contextlib
import email.utils
import os
import random
import re
import socket
import time
import weakref
from collections.abc import AsyncIterator, Awaitable, Callable, Collection, Mapping
from typing import Any, TypeVar
from urllib.parse import urlsplit, urlunsplit

import httpx

from ..._util.redact import redact, register_secret
from ...errors import AgentError, InputError, printable
from ._pool import PER_POOL, ShardedTransport
from ._settings import RemoteAgentSettings

__all__ = ["RETRYABLE_STATUS", "RemoteEndpoint", "expand_headers", "public_url"]

T = TypeVar("T")

RETRYABLE_STATUS = frozenset({429, 500, 502, 503, 504})
"""Statuses worth another attempt: rate limited, or a server error that may be transient."""

_MAX_RETRY_AFTER = 30.0  # seconds: a server asking for longer fails the case rather than stalling the run
_BODY_SHOWN = 200  # bytes of an error body quoted in a message
_ENV_REFERENCE = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")
# Header names whose values are credentials even when written literally on the command line.
_SECRET_HEADER = re.compile(r"auth|key|token|secret|cookie|password|session", re.IGNORECASE)
# Errors where the request never reached the agent (or a kept-alive connection had been closed by the server
# before it was reused), so sending it again cannot make the agent act twice.
_RETRYABLE_ERRORS: tuple[type[Exception], ...] = (httpx.ConnectError, httpx.ConnectTimeout, httpx.PoolTimeout)


def expand_headers(headers: Mapping[str, str]) -> dict[str, str]:
    """``headers`` with ``${NAME}`` replaced by environment variables; the values are registered as secrets.

    A variable that is not set is an :class:`InputError` naming the header. Values that came from the
    environment, and every value of a credential-like header (``Authorization``, ``X-Api-Key``, ...), are masked
    in every later output (:mod:`agentgauge._util.redact`).
    """
    expanded: dict[str, str] = {}
    for name, template in headers.items():

        def substitute(match: re.Match[str], header: str = name) -> str:
            value = os.environ.get(match[1])
            if value is None:
                raise InputError(f"header {header!r}: environment variable {match[1]} is not set")
            register_secret(value)
            return value

        value = _ENV_REFERENCE.sub(substitute, template)
        if value != template or _SECRET_HEADER.search(name):
            register_secret(value)
            # "Bearer <token>": the token alone may also appear in an echoed body.
            for word in value.split():
                register_secret(word)
        expanded[name] = value
    return expanded


def public_url(url: str) -> str:
    """``url`` as shown in messages: without user name, password, query or fragment (they may hold tokens)."""
    parts = urlsplit(url)
    host = parts.hostname or ""
    if ":" in host:
        host = f"[{host}]"
    netloc = f"{host}:{parts.port}" if parts.port else host
    return urlunsplit((parts.scheme, netloc, parts.path, "", ""))


def _retry_after(response: httpx.Response) -> float | None:
    value = response.headers.get("retry-after")
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())


def _describe_error(error: BaseException) -> str:
    if isinstance(error, httpx.ReadTimeout):
        return "no answer within the read timeout"
    if isinstance(error, httpx.ConnectTimeout):
        return "connection timed out"
    if isinstance(error, httpx.ConnectError):
        return f"cannot connect ({error or 'connection refused'})"
    if isinstance(error, httpx.RemoteProtocolError | httpx.ReadError | httpx.WriteError):
        return f"the connection broke ({error or type(error).__name__})"
    return f"{type(error).__name__}: {error}" if str(error) else type(error).__name__


class RemoteEndpoint:
    """One remote agent's HTTP endpoint: ``scheme_label`` (``adk+http``, ...) names it in messages, ``url`` is the
    plain ``http(s)`` base URL, ``settings`` gives headers, timeouts, retries and TLS verification.

    Headers are expanded when the endpoint is built, so a missing variable fails before any case runs.
    """

    def __init__(self, scheme_label: str, url: str, settings: RemoteAgentSettings | None = None) -> None:
        self.scheme_label = scheme_label
        self.url = url.rstrip("/")
        self.settings = settings or RemoteAgentSettings()
        self.headers = expand_headers(self.settings.headers)
        # The client of the current event loop: httpx's connections belong to the loop that opened them, and
        # evaluate_sync starts a loop per call. A weak reference, so a closed loop's id reused by a new loop is
        # never mistaken for it.
        self._client: tuple[weakref.ref[asyncio.AbstractEventLoop], httpx.AsyncClient] | None = None

    def __repr__(self) -> str:
        return f"RemoteEndpoint({self.scheme_label!r}, {public_url(self.url)!r})"

    def __getstate__(self) -> dict[str, Any]:
        # Picklable (Ray ships remote agents to its workers): a worker opens its own connections.
        return {**self.__dict__, "_client": None}

    def client(self) -> httpx.AsyncClient:
        """The pooled keep-alive client of the running event loop (created on first use)."""
        loop = asyncio.get_running_loop()
        if self._client is not None and self._client[0]() is loop:
            return self._client[1]
        settings = self.settings
        timeout = httpx.Timeout(
            connect=settings.connect_timeout, read=settings.read_timeout, write=settings.read_timeout, pool=None
        )
        # No connection cap: --parallelism bounds the requests in flight, and a cap below it would queue them.
        # Several small pools instead of one large one: see _pool.
        # Idle connections are dropped after 1.5 s, before servers drop them (uvicorn and Node after 5 s, gunicorn
        # after 2 s): reusing one the server is closing would fail a request it may already have read.
        limits = httpx.Limits(max_connections=None, max_keepalive_connections=PER_POOL, keepalive_expiry=1.5)
        # TCP_NODELAY: a request's headers and body go out as separate writes, which Nagle's algorithm would hold
        # back until the server's (delayed) acknowledgement.
        nodelay = [(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)]
        # One TLS context for every pool: building one reads the CA bundle (~50 ms).
        tls = httpx.create_ssl_context(verify=settings.verify_tls)
        transport = ShardedTransport(
            lambda: httpx.AsyncHTTPTransport(verify=tls, limits=limits, socket_options=nodelay)
        )
        client = httpx.AsyncClient(headers=self.headers, timeout=timeout, transport=transport, follow_redirects=True)
        self._client = (weakref.ref(loop), client)
        return client

    async def aclose(self) -> None:
        """Close the current loop's client (tests and long-lived servers call this; runs may simply exit)."""
        if self._client is not None:
            client, self._client = self._client[1], None
            with contextlib.suppress(Exception):
                await client.aclose()

    def resolve(self, path_or_url: str) -> str:
        """An absolute URL: ``path_or_url`` itself when absolute, else appended to the endpoint's URL."""
        if path_or_url.startswith(("http://", "https://")):
            return path_or_url
        return f"{self.url}/{path_or_url.lstrip('/')}"

    def failure(
        self,
        method: str,
        url: str,
        *,
        status: int | None = None,
        body: bytes | str = b"",
        error: BaseException | str | None = None,
    ) -> AgentError:
        """An :class:`AgentError` naming the scheme, method, endpoint, status and the first bytes of the body, with
        every registered secret masked."""
        text = body.decode("utf-8", "replace") if isinstance(body, bytes) else body
        parts = [f"{self.scheme_label} agent: {method} {public_url(self.resolve(url))}"]
        if status is not None:
            parts.append(f"HTTP {status}")
        if error is not None:
            parts.append(error if isinstance(error, str) else _describe_error(error))
        snippet = " ".join(text.split())
        if snippet:
            cut = snippet[:_BODY_SHOWN] + ("…" if len(snippet) > _BODY_SHOWN else "")
            parts.append(f"body: {cut!r}")
        return AgentError(printable(redact(": ".join(parts)), lines=False))

    def _delay(self, attempt: int, response: httpx.Response | None) -> float:
        advised = _retry_after(response) if response is not None else None
        if advised is not None:
            return min(advised, _MAX_RETRY_AFTER)
        # Exponential back-off with jitter, so many cases failing together do not retry in lockstep.
        wait: float = self.settings.backoff * 2**attempt * random.uniform(0.75, 1.25)
        return min(wait, _MAX_RETRY_AFTER)

    async def request(self, method: str, url: str, *, accept: Collection[int] = (), **kwargs: Any) -> httpx.Response:
        """Send a request (``url`` absolute or relative to the endpoint) and return its response, read whole.

        Connection errors, 429 and 5xx are retried ``settings.retries`` times with back-off; a response that is
        neither 2xx nor in ``accept`` raises :meth:`failure`, as does a transport error after the last attempt.
        """
        target = self.resolve(url)
        attempt = 0
        while True:
            try:
                response = await self.client().request(method, target, **kwargs)
            except _RETRYABLE_ERRORS as exc:
                if attempt >= self.settings.retries:
                    raise self.failure(method, url, error=self._after_attempts(exc, attempt)) from None
                await asyncio.sleep(self._delay(attempt, None))
            except httpx.HTTPError as exc:
                raise self.failure(method, url, error=exc) from None
            else:
                if response.is_success or response.status_code in accept:
                    return response
                if response.status_code not in RETRYABLE_STATUS or attempt >= self.settings.retries:
                    raise self.failure(method, url, status=response.status_code, body=response.content)
                await asyncio.sleep(self._delay(attempt, response))
            attempt += 1

    @contextlib.asynccontextmanager
    async def stream(
        self, method: str, url: str, *, accept: Collection[int] = (), **kwargs: Any
    ) -> AsyncIterator[httpx.Response]:
        """Like :meth:`request`, but the body is not read: the response is yielded for streaming (e.g. with
        :meth:`iter_sse`). Retries happen before any byte of a successful answer is consumed."""
        target = self.resolve(url)
        attempt = 0
        while True:
            async with contextlib.AsyncExitStack() as stack:
                try:
                    response = await stack.enter_async_context(self.client().stream(method, target, **kwargs))
                except _RETRYABLE_ERRORS as exc:
                    if attempt >= self.settings.retries:
                        raise self.failure(method, url, error=self._after_attempts(exc, attempt)) from None
                    response = None
                except httpx.HTTPError as exc:
                    raise self.failure(method, url, error=exc) from None
                if response is not None:
                    if response.is_success or response.status_code in accept:
                        yield response
                        return
                    body = await self._read_some(response)
                    if response.status_code not in RETRYABLE_STATUS or attempt >= self.settings.retries:
                        raise self.failure(method, url, status=response.status_code, body=body)
            await asyncio.sleep(self._delay(attempt, response))
            attempt += 1

    async def with_retries(
        self, call: Callable[[], Awaitable[T]], *, retryable: Callable[[BaseException], bool] | None = None
    ) -> T:
        """``await call()``, again after a retryable failure (at most ``settings.retries`` more times, with
        back-off): for clients (A2A) that send through another library. By default connection errors and
        exceptions carrying a 429/5xx ``status_code`` (or an ``httpx.HTTPStatusError`` with one) are retryable;
        the last exception is re-raised unchanged."""
        is_retryable = retryable or _default_retryable
        attempt = 0
        while True:
            try:
                return await call()
            except Exception as exc:
                if attempt >= self.settings.retries or not is_retryable(exc):
                    raise
                await asyncio.sleep(self._delay(attempt, None))
            attempt += 1

    def _after_attempts(self, error: BaseException, attempt: int) -> str:
        tries = f" (after {attempt + 1} attempts)" if attempt else ""
        return _describe_error(error) + tries

    @staticmethod
    async def _read_some(response: httpx.Response) -> bytes:
        """The start of an error response's body (enough to quote), without waiting for an endless one."""
        chunks: list[bytes] = []
        size = 0
        with contextlib.suppress(httpx.HTTPError):
            async for chunk in response.aiter_bytes():
                chunks.append(chunk)
                size += len(chunk)
                if size > 4 * _BODY_SHOWN:
                    break
        return b"".join(chunks)

    async def iter_sse(self, response: httpx.Response, method: str = "POST") -> AsyncIterator[tuple[str, str]]:
        """The Server-Sent Events of ``response`` as ``(event name, data)`` (name ``"message"`` when unnamed).

        Comments and ``id``/``retry`` fields are skipped; multi-line data is joined with newlines. A stream that
        breaks, stops sending for the read timeout, or ends in the middle of an event raises :meth:`failure`.
        """
        url = str(response.request.url)
        name, pending = "message", False
        data: list[str] = []
        try:
            async for line in _sse_lines(response):
                if not line:
                    if pending:
                        yield name, "\n".join(data)
                    name, data, pending = "message", [], False
                    continue
                if line.startswith(":"):
                    continue
                field, _, value = line.partition(":")
                value = value.removeprefix(" ")
                if field == "data":
                    data.append(value)
                    pending = True
                elif field == "event":
                    name, pending = value, True
                elif field not in ("id", "retry"):
                    raise self.failure(
                        method, url, status=response.status_code, error=f"malformed event stream line {line[:80]!r}"
                    )
        except httpx.HTTPError as exc:
            raise self.failure(
                method, url, status=response.status_code, error=f"event stream broke: {_describe_error(exc)}"
            ) from None
        if pending:
            raise self.failure(
                method, url, status=response.status_code, error="event stream ended in the middle of an event"
            )


_LINE_BREAK = re.compile(rb"\r\n|\r|\n")


async def _sse_lines(response: httpx.Response) -> AsyncIterator[str]:
    """The lines of an event stream, split at CR, LF or CRLF only (``aiter_lines`` also splits at Unicode line
    separators, which JSON strings may hold raw); a final line without a break is yielded too."""
    pending = b""
    async for chunk in response.aiter_bytes():
        pending += chunk
        # A CR at the end may be the first half of a CRLF: keep it until the next chunk says.
        cut = len(pending) - 1 if pending.endswith(b"\r") else len(pending)
        *lines, rest = _LINE_BREAK.split(pending[:cut])
        pending = rest + pending[cut:]
        for line in lines:
            yield line.decode("utf-8", "replace")
    if pending:
        lines = _LINE_BREAK.split(pending)
        if not lines[-1]:
            lines.pop()  # the stream ended with a line break, not with an empty line
        for line in lines:
            yield line.decode("utf-8", "replace")


def _default_retryable(error: BaseException) -> bool:
    if isinstance(error, _RETRYABLE_ERRORS):
        return True
    if isinstance(error, httpx.HTTPStatusError):
        return error.response.status_code in RETRYABLE_STATUS
    status = getattr(error, "status_code", None)
    return isinstance(status, int) and status in RETRYABLE_STATUS
