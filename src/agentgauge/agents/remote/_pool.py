"""An httpx transport that spreads requests over several connection pools, so high parallelism stays cheap.

httpcore's pool matches every waiting request against every connection each time a request starts or ends, and
checks each connection's socket while doing so: with ``n`` requests in flight a request costs O(n²) work, which
at ``--parallelism 200`` is seconds of CPU for a few hundred requests. Keeping each pool to a handful of requests
in flight (a new pool when every pool is busy) bounds that cost, with the same keep-alive reuse.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable

import httpx

__all__ = ["PER_POOL", "ShardedTransport"]

PER_POOL = 4
"""Requests in flight per pool before another pool is used."""


class _Pool:
    __slots__ = ("active", "transport")

    def __init__(self, transport: httpx.AsyncBaseTransport) -> None:
        self.transport = transport
        self.active = 0


class _ReleasingStream(httpx.AsyncByteStream):
    """The response body; closing it tells the pool the request is over."""

    def __init__(self, stream: httpx.AsyncByteStream, pool: _Pool) -> None:
        self._stream = stream
        self._pool: _Pool | None = pool

    async def __aiter__(self) -> AsyncIterator[bytes]:
        async for chunk in self._stream:
            yield chunk

    async def aclose(self) -> None:
        try:
            await self._stream.aclose()
        finally:
            if self._pool is not None:
                self._pool.active -= 1
                self._pool = None


class ShardedTransport(httpx.AsyncBaseTransport):
    """Sends each request through the least busy of its pools (``make_pool()`` builds one when all have
    :data:`PER_POOL` requests in flight)."""

    def __init__(self, make_pool: Callable[[], httpx.AsyncBaseTransport]) -> None:
        self._make_pool = make_pool
        self._pools: list[_Pool] = []

    def _pick(self) -> _Pool:
        best = min(self._pools, key=lambda pool: pool.active, default=None)
        if best is None or best.active >= PER_POOL:
            best = _Pool(self._make_pool())
            self._pools.append(best)
        return best

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        """Send ``request`` through the least busy pool."""
        pool = self._pick()
        pool.active += 1
        try:
            response = await pool.transport.handle_async_request(request)
        except BaseException:
            pool.active -= 1
            raise
        assert isinstance(response.stream, httpx.AsyncByteStream)
        response.stream = _ReleasingStream(response.stream, pool)
        return response

    async def aclose(self) -> None:
        """Close every pool."""
        pools, self._pools = self._pools, []
        for pool in pools:
            await pool.transport.aclose()
