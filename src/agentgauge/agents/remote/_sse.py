"""Server-Sent Events, split into lines and events: pure functions over the body's chunks, no HTTP library."""

from __future__ import annotations

import re
from collections.abc import AsyncIterable, AsyncIterator

__all__ = ["MalformedEventStream", "TruncatedEventStream", "sse_events"]

_LINE_BREAK = re.compile(rb"\r\n|\r|\n")


class MalformedEventStream(ValueError):
    """A line that is neither a comment nor a known field."""


class TruncatedEventStream(ValueError):
    """The body ended in the middle of an event."""


async def sse_lines(chunks: AsyncIterable[bytes]) -> AsyncIterator[str]:
    """The lines of an event stream, split at CR, LF or CRLF only (splitting at Unicode line separators, as
    ``str.splitlines`` does, would cut JSON strings that hold them raw); a final line without a break is yielded too.

    Linear in the bytes received whatever the line length: each chunk is searched once, from where the search of
    the previous one stopped, and only the unfinished line is kept (never re-split).
    """
    pending = bytearray()
    searched = 0  # pending[:searched] holds no line break
    async for chunk in chunks:
        pending += chunk
        start = 0
        while (found := _LINE_BREAK.search(pending, searched)) is not None:
            end = found.end()
            if end == len(pending) and pending[-1] == 0x0D:
                break  # a CR at the end may be the first half of a CRLF: the next chunk says
            yield pending[start : found.start()].decode("utf-8", "replace")
            start = searched = end
        if start:
            del pending[:start]  # what is left came after the last break: at most this chunk
        searched = len(pending) - 1 if pending.endswith(b"\r") else len(pending)
    if pending:
        lines = _LINE_BREAK.split(bytes(pending))
        if not lines[-1]:
            lines.pop()  # the stream ended with a line break, not with an empty line
        for line in lines:
            yield line.decode("utf-8", "replace")


async def sse_events(chunks: AsyncIterable[bytes]) -> AsyncIterator[tuple[str, str]]:
    """The events of a body as ``(event name, data)`` (name ``"message"`` when unnamed).

    Comments and ``id``/``retry`` fields are skipped; multi-line data is joined with newlines. Raises
    :class:`MalformedEventStream` at an unknown field and :class:`TruncatedEventStream` when the body ends inside an
    event.
    """
    name, pending = "message", False
    data: list[str] = []
    async for line in sse_lines(chunks):
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
            raise MalformedEventStream(f"malformed event stream line {line[:80]!r}")
    if pending:
        raise TruncatedEventStream("event stream ended in the middle of an event")
