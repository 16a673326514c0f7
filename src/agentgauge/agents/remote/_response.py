"""What a remote agent's server answered (:class:`RemoteResponse`), and how a failed exchange is described.

Answers are bounded: a body, or everything one event stream sends, is read up to the endpoint's size limit and no
further (``max_response_mb``), and JSON is parsed by :func:`load_json`, which refuses nesting deeper than
:data:`MAX_JSON_DEPTH`. The schemes' modules see answers through this class, never through the HTTP library, so the
library stays a detail of :mod:`._http`.
"""

from __future__ import annotations

import asyncio
import errno
import json
from collections.abc import AsyncIterator, Callable, Mapping
from typing import Any

import aiohttp

from .._safety import MAX_OUTPUT_DEPTH, depth_exceeds

__all__ = [
    "CONNECT_ERRORS",
    "MAX_JSON_DEPTH",
    "TRANSPORT_ERRORS",
    "JsonTooDeep",
    "RemoteResponse",
    "describe_error",
    "json_problem",
    "load_json",
    "size_limit_text",
]

MAX_JSON_DEPTH = MAX_OUTPUT_DEPTH + 28
"""How deeply arrays and objects may nest in an answer's JSON: an output value's limit, plus the protocols' own
envelopes around it (an A2A event wraps a data part in about ten levels)."""

CONNECT_ERRORS: tuple[type[BaseException], ...] = (aiohttp.ClientConnectorError, aiohttp.ConnectionTimeoutError)
"""Errors where the request never reached the agent, so sending it again cannot make the agent act twice."""

TRANSPORT_ERRORS: tuple[type[BaseException], ...] = (aiohttp.ClientError, asyncio.TimeoutError)
"""Every error of the exchange itself (connection, timeout, broken or malformed HTTP), as opposed to the answer."""


class RemoteResponse:
    """An HTTP answer: ``status_code``, ``headers``, the final ``url`` and the body, read whole (:meth:`aread`,
    then :attr:`content` and :meth:`json`) or streamed once (:meth:`aiter_bytes`).

    At most ``limit`` bytes are read: past them (or when ``Content-Length`` announces more) ``too_large()`` is
    raised, an exception naming the limit.
    """

    __slots__ = ("_body", "_limit", "_raw", "_too_large", "headers", "status_code", "url")

    def __init__(self, raw: aiohttp.ClientResponse, limit: int, too_large: Callable[[], Exception]) -> None:
        self._raw = raw
        self._body: bytes | None = None
        self._limit = limit
        self._too_large = too_large
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
            length = self._raw.content_length
            if length is not None and length > self._limit:
                raise self._too_large()
            chunks = [chunk async for chunk in self.aiter_bytes()]
            self._body = chunks[0] if len(chunks) == 1 else b"".join(chunks)
        return self._body

    @property
    def content(self) -> bytes:
        """The body read by :meth:`aread` (empty when it was streamed instead)."""
        return self._body if self._body is not None else b""

    def json(self) -> Any:
        """The body parsed by :func:`load_json` (``ValueError`` when it is not JSON, or nested too deeply)."""
        return load_json(self.content)

    async def aiter_bytes(self) -> AsyncIterator[bytes]:
        """The body's bytes as they arrive (``too_large()`` once they pass the limit)."""
        left = self._limit
        async for chunk in self._raw.content.iter_any():
            left -= len(chunk)
            if left < 0:
                raise self._too_large()
            yield chunk


class JsonTooDeep(ValueError):
    """JSON nesting arrays and objects deeper than :data:`MAX_JSON_DEPTH` levels."""


def size_limit_text(limit: int) -> str:
    """What an answer over ``limit`` bytes fails with."""
    return f"the answer is larger than the {limit / 1e6:g} MB limit (--agent-max-response-mb, maxResponseMb)"


def json_problem(error: ValueError, otherwise: str) -> str:
    """What to say of an answer :func:`load_json` refused: the nesting it found too deep, else ``otherwise``."""
    return str(error) if isinstance(error, JsonTooDeep) else otherwise


def _brackets(data: bytes | bytearray | str) -> int:
    if isinstance(data, str):
        return data.count("[") + data.count("{")
    return data.count(b"[") + data.count(b"{")


def load_json(data: bytes | bytearray | str) -> Any:
    """``data`` parsed as JSON; ``ValueError`` saying why when it is not JSON or nests arrays and objects deeper
    than :data:`MAX_JSON_DEPTH` levels (so no recursion limit is ever reached, here or by what reads it)."""
    try:
        value = json.loads(data)
    except RecursionError:
        value, deep = None, True
    else:
        # Cheap first: a text with few brackets cannot nest deeply, and most answers have few.
        deep = _brackets(data) > MAX_JSON_DEPTH and depth_exceeds(value, MAX_JSON_DEPTH)
    if deep:
        raise JsonTooDeep(f"the JSON nests arrays and objects deeper than {MAX_JSON_DEPTH} levels")
    return value


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
