"""What a remote agent's server answered (:class:`RemoteResponse`), and how a failed exchange is described.

May import ``aiohttp`` and the standard library only: the schemes' modules see answers through this class, never
through the HTTP library, so the library stays a detail of :mod:`._http`.
"""

from __future__ import annotations

import asyncio
import errno
import json
from collections.abc import AsyncIterator, Mapping
from typing import Any

import aiohttp

__all__ = ["CONNECT_ERRORS", "TRANSPORT_ERRORS", "RemoteResponse", "describe_error"]

CONNECT_ERRORS: tuple[type[BaseException], ...] = (aiohttp.ClientConnectorError, aiohttp.ConnectionTimeoutError)
"""Errors where the request never reached the agent, so sending it again cannot make the agent act twice."""

TRANSPORT_ERRORS: tuple[type[BaseException], ...] = (aiohttp.ClientError, asyncio.TimeoutError)
"""Every error of the exchange itself (connection, timeout, broken or malformed HTTP), as opposed to the answer."""


class RemoteResponse:
    """An HTTP answer: ``status_code``, ``headers``, the final ``url`` and the body, read whole (:meth:`aread`,
    then :attr:`content` and :meth:`json`) or streamed once (:meth:`aiter_bytes`)."""

    __slots__ = ("_body", "_raw", "headers", "status_code", "url")

    def __init__(self, raw: aiohttp.ClientResponse) -> None:
        self._raw = raw
        self._body: bytes | None = None
        self.status_code: int = raw.status
        self.headers: Mapping[str, str] = raw.headers
        self.url = str(raw.url)

    @property
    def is_success(self) -> bool:
        """A 2xx status."""
        return 200 <= self.status_code < 300

    async def aread(self) -> bytes:
        """The whole body (read once, then kept)."""
        if self._body is None:
            self._body = await self._raw.read()
        return self._body

    @property
    def content(self) -> bytes:
        """The body read by :meth:`aread` (empty when it was streamed instead)."""
        return self._body if self._body is not None else b""

    def json(self) -> Any:
        """The body parsed as JSON (``ValueError`` when it is not JSON)."""
        return json.loads(self.content)

    async def aiter_bytes(self) -> AsyncIterator[bytes]:
        """The body's bytes as they arrive."""
        async for chunk in self._raw.content.iter_any():
            yield chunk


def describe_error(error: BaseException) -> str:
    """A transport error in a few words: what a user needs to tell a down server from a slow or broken one."""
    if isinstance(error, aiohttp.ConnectionTimeoutError):
        return "connection timed out"
    if isinstance(error, asyncio.TimeoutError):  # aiohttp's read timeouts are TimeoutErrors too
        return "no answer within the read timeout"
    if isinstance(error, aiohttp.ClientConnectorError):
        refused = error.os_error.errno == errno.ECONNREFUSED
        return f"cannot connect ({'connection refused' if refused else error.os_error.strerror or error})"
    if isinstance(error, aiohttp.ClientPayloadError | aiohttp.ServerDisconnectedError | aiohttp.ClientOSError):
        return f"the connection broke ({error or type(error).__name__})"
    return f"{type(error).__name__}: {error}" if str(error) else type(error).__name__
