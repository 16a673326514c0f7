"""A plain JSON agent service (FastAPI) with the calculator example's behaviour, for ``http://`` agents described
by a config file. ``POST /chat`` takes ``{"message", "session", "user", "state", "history"}`` and answers
``{"output": {"text"}, "steps": [{"tool", "input" (a JSON string), "output", "callId"}], "usage"}``; the previous
result of a session ("that") is kept by the service. ``GET /whoami`` answers the Authorization header it got."""

import json
from typing import Any

from _servers import CALCULATOR


def _calculator_module() -> Any:
    import importlib.util

    spec = importlib.util.spec_from_file_location("_calculator_example_for_plain", CALCULATOR / "agent.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def plain_app() -> Any:
    """The service's FastAPI app."""
    from fastapi import FastAPI, Request
    from fastapi.responses import JSONResponse

    calc = _calculator_module()
    app = FastAPI()
    previous: dict[str, Any] = {}

    @app.post("/chat")
    async def chat(body: dict[str, Any]) -> Any:
        message = body.get("message")
        if not isinstance(message, str):
            return JSONResponse({"error": "field 'message' must be a string"}, status_code=400)
        session = str(body.get("session"))
        parsed = calc.parse(message, previous.get(session))
        turn = len(body.get("history") or []) // 2 + 1
        usage = {"in": 7, "out": 3}
        if parsed is None:
            text = "calc error: I can add, subtract, multiply or divide two numbers."
            return {"output": {"text": text}, "steps": [], "usage": usage}
        operation, a, b = parsed
        result = calc.calculator(operation, a, b)
        if "result" in result:
            previous[session] = result["result"]
        text = f"calc error: {result['error']}" if "error" in result else f"calc result: {result['result']}"
        step = {"tool": "calculator", "input": json.dumps({"operation": operation, "a": a, "b": b}), "output": result}
        return {"output": {"text": text}, "steps": [{**step, "callId": f"calc_{turn}"}], "usage": usage}

    @app.get("/whoami")
    async def whoami(request: Request) -> Any:
        return {"authorization": request.headers.get("authorization")}

    return app


PLAIN_CONFIG: dict[str, Any] = {
    "request": {
        "method": "POST",
        "path": "/chat",
        "body": {
            "message": "{{message}}",
            "session": "{{session_id}}",
            "user": "{{user_id}}",
            "state": "{{state}}",
            "history": "{{history}}",
        },
    },
    "response": {
        "finalResponse": "$.output.text",
        "toolCalls": "$.steps",
        "toolName": "$.tool",
        "toolArguments": "$.input",
        "toolResult": "$.output",
        "toolId": "$.callId",
        "inputTokens": "$.usage.in",
        "outputTokens": "$.usage.out",
    },
}
"""The ``--agent-config`` of the service."""
