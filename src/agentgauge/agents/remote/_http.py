"""The HTTP layer every remote agent scheme shares: one pooled ``aiohttp`` session per event loop, bounded retries
with back-off, error messages that name the endpoint without leaking secrets, and Server-Sent Events.

The schemes' own requests go through ``aiohttp``: on the remote benchmark (600 exchanges at ``--parallelism 200``)
it spends about a quarter of httpx's CPU per exchange. a2a-sdk's client needs an ``httpx`` client: it gets one
that sends through the same session (:mod:`._httpx_bridge`). Nothing here is imported until a remote agent is loaded.
"""

from __future__ import annotations

import asyncio
import contextlib
import email.utils
import os
import random
import re
import time
import weakref
from collections.abc import AsyncIterator, Awaitable, Callable, Collection, Mapping
from typing import TYPE_CHECKING, Any, TypeVar
from urllib.parse import urlsplit, urlunsplit

import aiohttp

from ..._util.redact import redact, register_secret
from ...errors import AgentError, InputError, printable
from ._response import CONNECT_ERRORS, TRANSPORT_ERRORS, RemoteResponse, describe_error
from ._settings import RemoteAgentSettings
from ._sse import MalformedEventStream, TruncatedEventStream, sse_events

if TYPE_CHECKING:
    import httpx

__all__ = ["RETRYABLE_STATUS", "RemoteEndpoint", "RemoteResponse", "expand_headers", "public_url"]

T = TypeVar("T")

RETRYABLE_STATUS = frozenset({429, 500, 502, 503, 504})
"""Statuses worth another attempt: rate limited, or a server error that may be transient."""

_MAX_RETRY_AFTER = 30.0  # seconds: a server asking for longer fails the case rather than stalling the run
_BODY_SHOWN = 200  # bytes of an error body quoted in a message
_KEEP_ALIVE = 1.5  # seconds: idle connections are dropped before servers drop them (uvicorn, Node 5 s; gunicorn 2 s)
_ENV_REFERENCE = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")
# Header names whose values are credentials even when written literally on the command line.
_SECRET_HEADER = re.compile(r"auth|key|token|secret|cookie|password|session", re.IGNORECASE)


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


def _retry_after(response: RemoteResponse) -> float | None:
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


async def _close_when_the_loop_ends(session: aiohttp.ClientSession) -> None:
    """Wait until cancelled, then close ``session``: ``asyncio.run`` (and uvicorn, Ray's workers, pytest's loops)
    cancel the tasks left when their main coroutine returns, so a run never exits with open connections."""
    try:
        await asyncio.Event().wait()
    finally:
        await session.close()


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
        # The session of the current event loop (connections belong to the loop that opened them, and
        # evaluate_sync starts a loop per call), with the task that closes it when the loop ends. A weak reference,
        # so a closed loop's id reused by a new loop is never mistaken for it.
        self._session: tuple[weakref.ref[asyncio.AbstractEventLoop], aiohttp.ClientSession, asyncio.Task[None]] | None
        self._session = None
        self._httpx: tuple[weakref.ref[asyncio.AbstractEventLoop], aiohttp.ClientSession, httpx.AsyncClient] | None
        self._httpx = None

    def __repr__(self) -> str:
        return f"RemoteEndpoint({self.scheme_label!r}, {public_url(self.url)!r})"

    def __getstate__(self) -> dict[str, Any]:
        # Picklable (Ray ships remote agents to its workers): a worker opens its own connections.
        return {**self.__dict__, "_session": None, "_httpx": None}

    def client(self) -> aiohttp.ClientSession:
        """The pooled keep-alive session of the running event loop (created on first use)."""
        loop = asyncio.get_running_loop()
        if self._session is not None and self._session[0]() is loop and not self._session[1].closed:
            return self._session[1]
        settings = self.settings
        # No connection cap: --parallelism bounds the requests in flight, and a cap below it would queue them.
        connector = aiohttp.TCPConnector(limit=0, keepalive_timeout=_KEEP_ALIVE, ssl=settings.verify_tls)
        timeout = aiohttp.ClientTimeout(
            total=None, sock_connect=settings.connect_timeout, sock_read=settings.read_timeout
        )
        session = aiohttp.ClientSession(headers=self.headers, timeout=timeout, connector=connector)
        self._session = (weakref.ref(loop), session, loop.create_task(_close_when_the_loop_ends(session)))
        return session

    def httpx_client(self) -> httpx.AsyncClient:
        """An ``httpx`` client of the running event loop that sends through :meth:`client`'s session, for libraries
        that need one (a2a-sdk's client)."""
        from ._httpx_bridge import bridged_client

        loop = asyncio.get_running_loop()
        session = self.client()
        if self._httpx is not None and self._httpx[0]() is loop and self._httpx[1] is session:
            return self._httpx[2]
        client = bridged_client(session, self.settings, self.headers)
        self._httpx = (weakref.ref(loop), session, client)
        return client

    async def aclose(self) -> None:
        """Close the current loop's connections (tests and long-lived servers call this; runs may simply exit)."""
        session, self._session = self._session, None
        if session is not None:
            session[2].cancel()
            with contextlib.suppress(Exception):
                await session[1].close()
        self._httpx = None  # it sends through the session: nothing of its own to close

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
            parts.append(error if isinstance(error, str) else describe_error(error))
        snippet = " ".join(text.split())
        if snippet:
            cut = snippet[:_BODY_SHOWN] + ("…" if len(snippet) > _BODY_SHOWN else "")
            parts.append(f"body: {cut!r}")
        return AgentError(printable(redact(": ".join(parts)), lines=False))

    def _delay(self, attempt: int, response: RemoteResponse | None) -> float:
        advised = _retry_after(response) if response is not None else None
        if advised is not None:
            return min(advised, _MAX_RETRY_AFTER)
        # Exponential back-off with jitter, so many cases failing together do not retry in lockstep.
        wait: float = self.settings.backoff * 2**attempt * random.uniform(0.75, 1.25)
        return min(wait, _MAX_RETRY_AFTER)

    async def request(self, method: str, url: str, *, accept: Collection[int] = (), **kwargs: Any) -> RemoteResponse:
        """Send a request (``url`` absolute or relative to the endpoint) and return its response, read whole.

        Connection errors, 429 and 5xx are retried ``settings.retries`` times with back-off; a response that is
        neither 2xx nor in ``accept`` raises :meth:`failure`, as does a transport error after the last attempt.
        """
        async with self.stream(method, url, accept=accept, **kwargs) as response:
            try:
                await response.aread()
            except TRANSPORT_ERRORS as exc:
                raise self.failure(method, url, status=response.status_code, error=exc) from None
            return response

    @contextlib.asynccontextmanager
    async def stream(
        self, method: str, url: str, *, accept: Collection[int] = (), **kwargs: Any
    ) -> AsyncIterator[RemoteResponse]:
        """Like :meth:`request`, but the body is not read: the response is yielded for streaming (e.g. with
        :meth:`iter_sse`). Retries happen before any byte of a successful answer is consumed."""
        target = self.resolve(url)
        attempt = 0
        while True:
            response: RemoteResponse | None = None
            try:
                raw = await self.client().request(method, target, **kwargs)
            except CONNECT_ERRORS as exc:
                if attempt >= self.settings.retries:
                    raise self.failure(method, url, error=self._after_attempts(exc, attempt)) from None
            except TRANSPORT_ERRORS as exc:
                raise self.failure(method, url, error=exc) from None
            else:
                try:
                    response = RemoteResponse(raw)
                    if response.is_success or response.status_code in accept:
                        yield response
                        return
                    body = await self._read_some(response)
                finally:
                    raw.release()  # back to the pool, or closed when the body was not read to its end
                if response.status_code not in RETRYABLE_STATUS or attempt >= self.settings.retries:
                    raise self.failure(method, url, status=response.status_code, body=body)
            await asyncio.sleep(self._delay(attempt, response))
            attempt += 1

    async def with_retries(
        self, call: Callable[[], Awaitable[T]], *, retryable: Callable[[BaseException], bool] | None = None
    ) -> T:
        """``await call()``, again after a retryable failure (at most ``settings.retries`` more times, with
        back-off): for clients (A2A) that send through another library. By default connection errors and
        exceptions carrying a 429/5xx ``status_code`` (or a ``response`` with one) are retryable; the last
        exception is re-raised unchanged."""
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
        return describe_error(error) + tries

    @staticmethod
    async def _read_some(response: RemoteResponse) -> bytes:
        """The start of an error response's body (enough to quote), without waiting for an endless one."""
        chunks: list[bytes] = []
        size = 0
        with contextlib.suppress(*TRANSPORT_ERRORS):
            async for chunk in response.aiter_bytes():
                chunks.append(chunk)
                size += len(chunk)
                if size > 4 * _BODY_SHOWN:
                    break
        return b"".join(chunks)

    async def iter_sse(self, response: RemoteResponse, method: str = "POST") -> AsyncIterator[tuple[str, str]]:
        """The Server-Sent Events of ``response`` as ``(event name, data)`` (name ``"message"`` when unnamed).

        Comments and ``id``/``retry`` fields are skipped; multi-line data is joined with newlines. A stream that
        breaks, stops sending for the read timeout, or ends in the middle of an event raises :meth:`failure`.
        """
        url, status = response.url, response.status_code
        try:
            async for event in sse_events(response.aiter_bytes()):
                yield event
        except (MalformedEventStream, TruncatedEventStream) as exc:
            raise self.failure(method, url, status=status, error=str(exc)) from None
        except TRANSPORT_ERRORS as exc:
            raise self.failure(method, url, status=status, error=f"event stream broke: {describe_error(exc)}") from None


def _default_retryable(error: BaseException) -> bool:
    if isinstance(error, CONNECT_ERRORS):
        return True
    status = getattr(error, "status_code", None)
    if status is None:
        status = getattr(getattr(error, "response", None), "status_code", None)
    return isinstance(status, int) and status in RETRYABLE_STATUS
