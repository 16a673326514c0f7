"""A fault-injecting server (FastAPI): flaky and failing statuses with attempt counters, a server that stops
answering, broken event streams, and an ADK-API look-alike (app ``faulty``) whose ``/run_sse`` misbehaves as the
user message says (``ok``, ``truncated``, ``malformed``, ``agent error``, ``status 500``, ``status 404``,
``hang``)."""

import asyncio
import json
from collections import Counter
from typing import Any

SECRET_IN_BODY = "sk-fault-0123456789abcdef"
"""A value the failing routes echo in their bodies (tests register it as a secret and check it never shows)."""


def _final_event(text: str) -> dict[str, Any]:
    return {"author": "faulty", "content": {"role": "model", "parts": [{"text": text}]}}


def fault_app() -> Any:
    """The server's FastAPI app."""
    from fastapi import FastAPI, Request
    from fastapi.responses import JSONResponse, PlainTextResponse, StreamingResponse

    app = FastAPI()
    attempts: Counter[str] = Counter()

    @app.api_route("/flaky/{key}/{failures}/{status}", methods=["GET", "POST"])
    async def flaky(key: str, failures: int, status: int, request: Request) -> Any:
        """``status`` for the first ``failures`` attempts of ``key``, then 200."""
        attempts[key] += 1
        if attempts[key] <= failures:
            headers = (
                {"Retry-After": request.query_params["retry_after"]} if "retry_after" in request.query_params else {}
            )
            return PlainTextResponse(
                f"failure {attempts[key]} token={SECRET_IN_BODY}", status_code=status, headers=headers
            )
        return {"ok": True, "attempts": attempts[key]}

    @app.get("/attempts/{key}")
    async def count(key: str) -> Any:
        return {"attempts": attempts[key]}

    @app.get("/hang")
    async def hang() -> Any:
        await asyncio.sleep(30)
        return {}

    @app.get("/sse/{kind}")
    async def sse(kind: str) -> Any:
        bodies = {
            "good": 'event: a\ndata: {"n": 1}\n\n: a comment\ndata: two\ndata: lines\n\n',
            "truncated": 'data: {"n": 1}\n\ndata: {"half',
            "malformed": "data: 1\n\nthis is not an event stream\n\n",
        }
        return StreamingResponse(iter([bodies[kind]]), media_type="text/event-stream")

    @app.get("/adk/list-apps")
    async def list_apps() -> Any:
        return ["faulty"]

    @app.post("/adk/apps/faulty/users/{user}/sessions/{session}")
    async def session(user: str, session: str) -> Any:
        return {"id": session, "appName": "faulty", "userId": user}

    @app.post("/adk/run_sse")
    async def run_sse(body: dict[str, Any]) -> Any:
        text = body["newMessage"]["parts"][0]["text"]
        if text.startswith("status "):
            status = int(text.split()[1])
            return JSONResponse({"detail": f"failing on purpose, token={SECRET_IN_BODY}"}, status_code=status)
        if text == "hang":
            await asyncio.sleep(30)
        chunks = {
            "ok": [f"data: {json.dumps(_final_event('fine'))}\n\n"],
            "truncated": [f"data: {json.dumps(_final_event('cut'))[:20]}"],
            "malformed": ["data: {not json\n\n"],
            "agent error": [f"data: {json.dumps({'error': 'ValueError: the tool broke'})}\n\n"],
        }[text]
        return StreamingResponse(iter(chunks), media_type="text/event-stream")

    return app
