"""The OTLP/HTTP receiver of ``agentgauge serve --otlp``: ``POST /v1/traces`` and ``POST /v1/logs``, protobuf
(``application/x-protobuf``) or JSON (``application/json``), optionally gzip-compressed, answered in the encoding of
the request as OTLP/HTTP says.

What guards it: the server's own checks (allowed ``Host`` names, the bearer token when one is set — exporters send
it with ``OTEL_EXPORTER_OTLP_HEADERS=Authorization=Bearer%20TOKEN`` —, writes from other machines only with a token or
``--allow-remote-writes``, a cross-site ``Origin`` refused) and, here: only the two OTLP content types are read (an
HTML form can send neither, so another site's page cannot post spans without a CORS preflight the server never
grants), the compressed body is limited by ``--max-upload-mb`` and so is the decompressed one (a gzip bomb is cut off
at the limit, answered 413), and what the store refuses (values nested too deep, numbers out of range) is answered
400 naming the JSON path inside the body, before anything is stored.
"""

from __future__ import annotations

import asyncio
import zlib
from typing import Literal

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse, Response

from ..errors import InputError
from ._deps import StateDep
from ._live_hub import LiveDep

__all__ = ["decompressed", "router"]

router = APIRouter(tags=["OTLP receiver"])
"""``/v1/traces`` and ``/v1/logs`` (mounted only with ``serve --otlp``)."""

_PROTOBUF, _JSON = "application/x-protobuf", "application/json"


class PayloadTooLarge(Exception):
    """A body that decompresses beyond the limit."""


def decompressed(body: bytes, encoding: str, limit: int) -> bytes:
    """``body`` decoded from its ``Content-Encoding`` (``gzip`` or none), never more than ``limit`` bytes:
    :class:`PayloadTooLarge` beyond, :class:`~agentgauge.errors.InputError` for an unknown encoding or a broken
    stream."""
    encoding = encoding.strip().lower()
    if encoding in ("", "identity"):
        return body
    if encoding not in ("gzip", "x-gzip"):
        raise InputError(f"Content-Encoding {encoding!r} is not supported: send gzip or no encoding")
    stream = zlib.decompressobj(16 + zlib.MAX_WBITS)
    try:
        # At most limit + 1 bytes come out, however small the input: one byte more tells that it is too large.
        out = stream.decompress(body, limit + 1)
    except zlib.error as exc:
        raise InputError(f"invalid gzip body: {exc}") from None
    if len(out) > limit or stream.unconsumed_tail:
        raise PayloadTooLarge(f"request body too large once decompressed: limit is {limit} bytes")
    if not stream.eof:
        raise InputError("invalid gzip body: the stream is cut short")
    return out


def _media(request: Request) -> Literal["protobuf", "json"] | None:
    given = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if given == _PROTOBUF:
        return "protobuf"
    if given == _JSON:
        return "json"
    return None


async def _receive(request: Request, hub: LiveDep, state: StateDep, signal: Literal["traces", "logs"]) -> Response:
    from ..traces import export_document

    media = _media(request)
    if media is None:
        given = request.headers.get("content-type")
        detail = f"OTLP/HTTP takes {_PROTOBUF} or {_JSON}, got {given or 'no Content-Type'}"
        return JSONResponse({"detail": detail, "error": detail}, status_code=415)
    limit = state.config.max_upload_bytes
    try:
        body = decompressed(await request.body(), request.headers.get("content-encoding", ""), limit)
        document = export_document(body, protobuf=media == "protobuf", signal=signal, source=f"/v1/{signal}")
    except PayloadTooLarge as exc:
        return JSONResponse({"detail": str(exc), "error": str(exc)}, status_code=413)
    # Appending and indexing touch the disk: off the event loop, which streams live updates meanwhile.
    try:
        await asyncio.to_thread(hub.store.receive, document, signal, f"/v1/{signal}")
    except OSError as exc:  # a full disk: nothing was stored, the exporter retries
        detail = f"the request could not be stored: {exc.strerror or type(exc).__name__}; nothing was kept"
        return JSONResponse({"detail": detail, "error": detail}, status_code=503)
    if media == "protobuf":
        return Response(b"", media_type=_PROTOBUF)  # an empty Export*ServiceResponse: everything accepted
    return JSONResponse({})


@router.post("/v1/traces")
async def receive_traces(request: Request, hub: LiveDep, state: StateDep) -> Response:
    """OTLP/HTTP spans (``ExportTraceServiceRequest``, protobuf or JSON, gzip or not), stored in the data
    directory's ``otlp/`` files and shown as live sessions."""
    return await _receive(request, hub, state, "traces")


@router.post("/v1/logs")
async def receive_logs(request: Request, hub: LiveDep, state: StateDep) -> Response:
    """OTLP/HTTP log records (``ExportLogsServiceRequest``): message content that GenAI instrumentations and
    ADK 2.x record as log events, merged into the spans they name."""
    return await _receive(request, hub, state, "logs")
