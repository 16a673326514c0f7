"""Loopback AG-UI servers of the ``agui+http`` tests: the calculator of ``examples/remote/calculator_agui_server.py``
and a fault server whose run misbehaves as the user message says."""

from __future__ import annotations

import asyncio
import importlib.util
import json
from typing import Any

from _a2a_servers import SECRET_IN_BODY
from _servers import ROOT, require


def example_server_module() -> Any:
    """``examples/remote/calculator_agui_server.py`` as a module."""
    require("ag_ui.core")
    require("fastapi")
    path = ROOT / "examples" / "remote" / "calculator_agui_server.py"
    spec = importlib.util.spec_from_file_location("calculator_agui_server", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _sse(event: dict[str, Any]) -> str:
    return f"data: {json.dumps(event)}\n\n"


_START = _sse({"type": "RUN_STARTED", "threadId": "t", "runId": "r"})
_TEXT = [
    _sse({"type": "TEXT_MESSAGE_CHUNK", "messageId": "m1", "delta": "fi"}),
    _sse({"type": "TEXT_MESSAGE_CHUNK", "delta": "ne"}),
]
_FINISH = _sse({"type": "RUN_FINISHED", "threadId": "t", "runId": "r"})


def fault_app(url: str) -> Any:
    """POST ``/agui``: ``ok`` (chunked text, an unknown event type on the way, usage), ``status 500``/``status 400``
    (a secret in the body), ``json`` (answers JSON, not a stream), ``truncated``, ``malformed``, ``invalid`` (an
    event missing a required field), ``run error``, ``no finish``, ``hang``; ``/seen`` tells the last request's body
    and how often each message came."""
    require("starlette")
    from starlette.applications import Starlette
    from starlette.responses import JSONResponse, StreamingResponse

    seen: dict[str, Any] = {"attempts": {}}

    async def agui(request: Any) -> Any:
        body = await request.json()
        seen["body"] = body
        text = body["messages"][-1]["content"]
        seen["attempts"][text] = seen["attempts"].get(text, 0) + 1
        if text.startswith("status "):
            return JSONResponse({"detail": f"failing on purpose, token={SECRET_IN_BODY}"}, status_code=int(text[7:]))
        if text == "json":
            return JSONResponse({"answer": "not a stream"})
        usage = {"type": "RUN_FINISHED", "threadId": "t", "runId": "r",
                 "usage": [{"model": "m", "inputTokens": 7, "outputTokens": 3, "totalTokens": 10}]}  # fmt: skip
        chunks = {
            "ok": [_START, *_TEXT, _sse({"type": "FUTURE_EVENT", "x": 1}), _sse(usage)],
            "truncated": [_START, _TEXT[0][:25]],
            "malformed": [_START, "data: {not json\n\n"],
            "invalid": [_START, _sse({"type": "TOOL_CALL_START", "toolCallName": "calc"})],
            "run error": [_START, _sse({"type": "RUN_ERROR", "message": "the model is down", "code": "UNAVAILABLE"})],
            "no finish": [_START, *_TEXT],
            "hang": [_START],
        }[text]

        async def stream() -> Any:
            for chunk in chunks:
                yield chunk
            if text == "hang":
                await asyncio.sleep(3)

        return StreamingResponse(stream(), media_type="text/event-stream")

    async def report(request: Any) -> Any:
        return JSONResponse(seen)

    app = Starlette()
    app.add_route("/agui", agui, methods=["POST"])
    app.add_route("/seen", report, methods=["GET"])
    return app
