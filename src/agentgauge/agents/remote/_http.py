"""The HTTP layer every remote agent scheme shares: one pooled ``aiohttp`` session per event loop, the redirect and
origin policy (:mod:`._origin`), answers bounded in size (:mod:`._response`) and each turn in time, the retry
policy of every outgoing call (:mod:`agentgauge._util.retry`), error messages that name the endpoint without leaking
secrets, and Server-Sent Events.

The schemes' own requests go through ``aiohttp``: on the remote benchmark (600 exchanges at ``--parallelism 200``)
it spends about a quarter of httpx's CPU per exchange. a2a-sdk's client needs an ``httpx`` client: it gets one
that sends through the same session, under the same policies (:mod:`._httpx_bridge`). Nothing here is imported
until a remote agent is loaded.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import os
import re
import weakref
from collections.abc import AsyncIterator, Awaitable, Callable, Collection, Mapping
from typing import TYPE_CHECKING, Any, TypeVar

import aiohttp

from ..._util.redact import redact, register_secret
from ..._util.retry import parse_retry_after, retryable_status
from ...errors import AgentError, InputError, printable
from ._origin import MAX_REDIRECTS, OriginPolicy, OriginRefused, public_url, redirect_target, too_many_redirects
from ._response import CONNECT_ERRORS, TRANSPORT_ERRORS, RemoteResponse, describe_error, size_limit_text
from ._settings import RemoteAgentSettings
from ._sse import MalformedEventStream, TruncatedEventStream, sse_events

if TYPE_CHECKING:
    import httpx

__all__ = ["RemoteEndpoint", "RemoteResponse", "expand_headers", "public_url"]

T = TypeVar("T")

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


async def _close_when_the_loop_ends(session: aiohttp.ClientSession) -> None:
    """Wait until cancelled, then close ``session``: ``asyncio.run`` (and uvicorn, Ray's workers, pytest's loops)
    cancel the tasks left when their main coroutine returns, so a run never exits with open connections."""
    try:
        await asyncio.Event().wait()
    finally:
        await session.close()


class RemoteEndpoint:
    """One remote agent's HTTP endpoint: ``scheme_label`` (``adk+http``, ...) names it in messages, ``url`` is the
    plain ``http(s)`` base URL, ``settings`` gives headers, timeouts, size limit, redirects, retries and TLS.

    Headers are expanded when the endpoint is built, so a missing variable fails before any case runs; they are
    sent to the agent's origin only (:class:`~._origin.OriginPolicy`).
    """

    def __init__(self, scheme_label: str, url: str, settings: RemoteAgentSettings | None = None) -> None:
        self.scheme_label = scheme_label
        self.url = url.rstrip("/")
        self.settings = settings or RemoteAgentSettings()
        self.headers = expand_headers(self.settings.headers)
        self.origin = OriginPolicy(self.url, follow=self.settings.follow_redirects, configured=self.headers)
        self.retry = self.settings.retry_policy()
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
        # No default headers: each request gets the configured ones only when it goes to the agent's origin.
        session = aiohttp.ClientSession(timeout=timeout, connector=connector)
        self._session = (weakref.ref(loop), session, loop.create_task(_close_when_the_loop_ends(session)))
        return session

    def httpx_client(self) -> httpx.AsyncClient:
        """An ``httpx`` client of the running event loop that sends through :meth:`client`'s session under this
        endpoint's policies, for libraries that need one (a2a-sdk's client)."""
        from ._httpx_bridge import bridged_client

        loop = asyncio.get_running_loop()
        session = self.client()
        if self._httpx is not None and self._httpx[0]() is loop and self._httpx[1] is session:
            return self._httpx[2]
        client = bridged_client(session, self)
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
        where = f"{method} {public_url(self.resolve(url))}" if method else public_url(self.resolve(url))
        parts = [f"{self.scheme_label} agent: {where}"]
        if status is not None:
            parts.append(f"HTTP {status}")
        if error is not None:
            parts.append(error if isinstance(error, str) else describe_error(error))
        snippet = " ".join(text.split())
        if snippet:
            cut = snippet[:_BODY_SHOWN] + ("…" if len(snippet) > _BODY_SHOWN else "")
            parts.append(f"body: {cut!r}")
        return AgentError(printable(redact(": ".join(parts)), lines=False))

    def too_large(self, method: str, url: str, status: int | None = None) -> AgentError:
        """The failure of an answer over the size limit."""
        return self.failure(method, url, status=status, error=size_limit_text(self.settings.max_response_bytes))

    @contextlib.asynccontextmanager
    async def turn(self) -> AsyncIterator[None]:
        """Bound what runs inside (one turn: every request, stream, retry and wait of it) by ``turn_timeout``."""
        limit = self.settings.turn_timeout
        deadline = asyncio.timeout(limit)
        try:
            async with deadline:
                yield
        except TimeoutError:
            if not deadline.expired():
                raise
            problem = f"no complete answer within the {limit:g} s turn limit (--agent-timeout, turnTimeout)"
            raise self.failure("", self.url, error=problem) from None

    async def request(self, method: str, url: str, *, accept: Collection[int] = (), **kwargs: Any) -> RemoteResponse:
        """Send a request (``url`` absolute or relative to the endpoint) and return its response, read whole.

        Connection errors, 429 and transient 5xx are retried per the shared policy; a response that is neither
        2xx nor in ``accept`` raises :meth:`failure`, as does a transport error after the last attempt.
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
        attempt = 1
        while True:
            retry_after: float | None = None
            try:
                raw = await self._open(method, target, dict(kwargs))
            except OriginRefused as exc:
                raise self.failure(method, url, error=str(exc)) from None
            except CONNECT_ERRORS as exc:
                if attempt >= self.retry.max_attempts:
                    raise self.failure(method, url, error=self._after_attempts(exc, attempt)) from None
            except TRANSPORT_ERRORS as exc:
                raise self.failure(method, url, error=exc) from None
            else:
                try:
                    status = raw.status
                    too_large = functools.partial(self.too_large, method, url, status)
                    response = RemoteResponse(raw, self.settings.max_response_bytes, too_large)
                    if response.is_success or status in accept:
                        yield response
                        return
                    body = await self._read_some(response)
                finally:
                    raw.release()  # back to the pool, or closed when the body was not read to its end
                if not retryable_status(status) or attempt >= self.retry.max_attempts:
                    raise self.failure(method, url, status=status, body=body)
                retry_after = parse_retry_after(response.headers)
            await asyncio.sleep(self.retry.backoff(attempt, retry_after))
            attempt += 1

    async def _open(self, method: str, url: str, kwargs: dict[str, Any]) -> aiohttp.ClientResponse:
        """Send one request, following redirects as the origin policy allows (each hop's headers by its origin)."""
        session = self.client()
        extra = kwargs.pop("headers", None)
        headers = {**self.headers, **extra} if extra else self.headers
        why = "sent to"
        for _ in range(MAX_REDIRECTS + 1):
            sent = self.origin.headers_for(url, headers, why=why)
            raw = await session.request(method, url, headers=sent, allow_redirects=False, **kwargs)
            hop = redirect_target(raw.status, raw.headers.get("Location"), url, method)
            if hop is None:
                return raw
            raw.release()
            url, next_method = hop
            if next_method != method:
                method = next_method
                kwargs = {k: v for k, v in kwargs.items() if k not in ("json", "data")}
            why = "redirected to"
        raise too_many_redirects(url)

    async def with_retries(
        self,
        call: Callable[[], Awaitable[T]],
        *,
        retryable: Callable[[BaseException], bool] | None = None,
        retry_after: Callable[[BaseException], float | None] | None = None,
    ) -> T:
        """``await call()``, again after a retryable failure (per the shared policy: at most ``settings.retries``
        more times, with back-off or the server's ``Retry-After`` given by ``retry_after``): for clients (A2A) that
        send through another library. By default connection errors and exceptions carrying a retryable
        ``status_code`` (or a ``response`` with one) are retryable; the last exception is re-raised unchanged."""
        is_retryable = retryable or _default_retryable
        attempt = 1
        while True:
            try:
                return await call()
            except Exception as exc:
                if attempt >= self.retry.max_attempts or not is_retryable(exc):
                    raise
                advised = retry_after(exc) if retry_after is not None else None
            await asyncio.sleep(self.retry.backoff(attempt, advised))
            attempt += 1

    @staticmethod
    def _after_attempts(error: BaseException, attempt: int) -> str:
        tries = f" (after {attempt} attempts)" if attempt > 1 else ""
        return describe_error(error) + tries

    @staticmethod
    async def _read_some(response: RemoteResponse) -> bytes:
        """The start of an error response's body (enough to quote), without waiting for an endless one."""
        chunks: list[bytes] = []
        size = 0
        with contextlib.suppress(*TRANSPORT_ERRORS, AgentError):
            async for chunk in response.aiter_bytes():
                chunks.append(chunk)
                size += len(chunk)
                if size > 4 * _BODY_SHOWN:
                    break
        return b"".join(chunks)

    async def iter_sse(self, response: RemoteResponse, method: str = "POST") -> AsyncIterator[tuple[str, str]]:
        """The Server-Sent Events of ``response`` as ``(event name, data)`` (name ``"message"`` when unnamed).

        Comments and ``id``/``retry`` fields are skipped; multi-line data is joined with newlines. A stream that
        breaks, stops sending for the read timeout, sends more than the size limit, or ends in the middle of an
        event raises :meth:`failure`.
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
    return isinstance(status, int) and retryable_status(status)
