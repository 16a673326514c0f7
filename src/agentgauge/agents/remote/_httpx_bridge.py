"""The ``httpx`` client that a2a-sdk's client needs, sending through the endpoint's ``aiohttp`` session under the
endpoint's policies.

httpx's own transport (httpcore) matches every waiting request against every pooled connection whenever a request
starts or ends: at ``--parallelism 200`` that is seconds of CPU for a few hundred requests. Through aiohttp (the
``httpx-aiohttp`` transport, which also maps aiohttp's errors to httpx's) the same 418 A2A turns cost a2a-sdk's
client 0.67 s of CPU instead of 5.2 s, and A2A shares the connection pool of the other requests.

The transport here adds what :class:`~._http.RemoteEndpoint` does for its own requests: redirects and other
origins by the endpoint's :class:`~._origin.OriginPolicy` (httpx would send custom headers along a redirect to
any host), and answers bounded by the size limit, raising :class:`AnswerTooLarge`.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from typing import TYPE_CHECKING

import aiohttp
import httpx

from ._origin import MAX_REDIRECTS, OriginPolicy, redirect_target, too_many_redirects
from ._response import size_limit_text

if TYPE_CHECKING:
    from ._http import RemoteEndpoint

__all__ = ["AnswerTooLarge", "bridged_client"]


class AnswerTooLarge(Exception):
    """An answer of a2a-sdk's requests passed the size limit (not an httpx error, so a2a-sdk does not wrap it)."""


class _LimitedStream(httpx.AsyncByteStream):
    """A response body that raises :class:`AnswerTooLarge` once more than ``limit`` bytes arrived."""

    def __init__(self, stream: httpx.AsyncByteStream, limit: int) -> None:
        self._stream = stream
        self._limit = limit

    async def __aiter__(self) -> AsyncIterator[bytes]:
        left = self._limit
        async for chunk in self._stream:
            left -= len(chunk)
            if left < 0:
                raise AnswerTooLarge(size_limit_text(self._limit))
            yield chunk

    async def aclose(self) -> None:
        await self._stream.aclose()


def _transport_class() -> Callable[[aiohttp.ClientSession, OriginPolicy, int], httpx.AsyncBaseTransport]:
    try:
        from httpx_aiohttp import AiohttpTransport
    except ImportError:
        from ...errors import InputError

        raise InputError("an a2a+http agent needs httpx-aiohttp: pip install 'agentgauge[remote]'") from None

    class PolicyTransport(AiohttpTransport):
        """httpx-aiohttp's transport (no redirects of its own) following the endpoint's origin policy."""

        def __init__(self, session: aiohttp.ClientSession, policy: OriginPolicy, limit: int) -> None:
            # TLS is the session's (its connector was built with settings.verify_tls); the transport's own TLS
            # context is used only without a session, and verify=False spares loading the CA bundle for it (~40 ms).
            super().__init__(client=session, verify=False)
            self._policy = policy
            self._limit = limit

        async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
            why = "the agent card names"
            for _ in range(MAX_REDIRECTS + 1):
                url = str(request.url)
                if not self._policy.check(url, why=why):
                    request.headers = httpx.Headers(self._policy.strip(request.headers))
                response: httpx.Response = await super().handle_async_request(request)
                hop = redirect_target(response.status_code, response.headers.get("location"), url, request.method)
                if hop is None:
                    length = response.headers.get("content-length")
                    if length is not None and length.isdigit() and int(length) > self._limit:
                        await response.aclose()
                        raise AnswerTooLarge(size_limit_text(self._limit))
                    assert isinstance(response.stream, httpx.AsyncByteStream)
                    response.stream = _LimitedStream(response.stream, self._limit)
                    return response
                await response.aclose()
                target, method = hop
                keep_body = method == request.method
                request = httpx.Request(
                    method,
                    target,
                    headers=request.headers,
                    content=request.content if keep_body else None,
                    extensions=request.extensions,
                )
                if not keep_body:
                    for name in ("content-length", "content-type"):
                        request.headers.pop(name, None)
                why = "redirected to"
            raise too_many_redirects(str(request.url))

    return PolicyTransport


def bridged_client(session: aiohttp.ClientSession, endpoint: RemoteEndpoint) -> httpx.AsyncClient:
    """An ``httpx`` client with the endpoint's timeouts and headers on every request (to its origin), sent by
    ``session`` under the endpoint's origin policy and size limit."""
    settings = endpoint.settings
    transport = _transport_class()(session, endpoint.origin, settings.max_response_bytes)
    timeout = httpx.Timeout(
        connect=settings.connect_timeout, read=settings.read_timeout, write=settings.read_timeout, pool=None
    )
    return httpx.AsyncClient(
        headers=dict(endpoint.headers), timeout=timeout, transport=transport, follow_redirects=False
    )
