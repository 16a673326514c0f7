"""The calculator example (examples/calculator/agent.py) served over AG-UI, on FastAPI with ``ag-ui-protocol``'s
types.

``POST /agui`` takes a ``RunAgentInput`` and streams the run as Server-Sent Events: ``RUN_STARTED``, the tool call
(``TOOL_CALL_START`` / ``ARGS`` / ``END``, then ``TOOL_CALL_RESULT``), the answer (``TEXT_MESSAGE_START`` /
``CONTENT`` / ``END``) and ``RUN_FINISHED``. The server keeps no state: "that" in "multiply that by 4" is the last
tool result among the messages the client sends.

Run it (needs ``pip install 'agentgauge[remote,server]'``)::

    python examples/remote/calculator_agui_server.py --port 8766
    agentgauge eval agui+http://127.0.0.1:8766/agui examples/calculator/calculator.evalset.json
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ag_ui.core import (
    BaseEvent,
    RunAgentInput,
    RunFinishedEvent,
    RunStartedEvent,
    TextMessageContentEvent,
    TextMessageEndEvent,
    TextMessageStartEvent,
    ToolCallArgsEvent,
    ToolCallEndEvent,
    ToolCallResultEvent,
    ToolCallStartEvent,
)
from ag_ui.encoder import EventEncoder
from fastapi import FastAPI
from fastapi.responses import StreamingResponse

_AGENT = Path(__file__).resolve().parents[1] / "calculator" / "agent.py"
_NOT_A_CALCULATION = "calc error: I can add, subtract, multiply or divide two numbers."


def _calculator() -> Any:
    spec = importlib.util.spec_from_file_location("calculator_example_agent_agui", _AGENT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


_CALC = _calculator()


def _previous_result(run: RunAgentInput) -> Any:
    for message in reversed(run.messages):
        if message.role == "tool":
            result = json.loads(message.content) if isinstance(message.content, str) else {}
            if isinstance(result, dict) and "result" in result:
                return result["result"]
    return None


def run_events(run: RunAgentInput) -> Iterator[BaseEvent]:
    """The events of one run: the calculator's answer to the last user message."""
    yield RunStartedEvent(thread_id=run.thread_id, run_id=run.run_id)
    users = [m for m in run.messages if m.role == "user"]
    text = users[-1].content if users and isinstance(users[-1].content, str) else ""
    parsed = _CALC.parse(text, _previous_result(run))
    answer = _NOT_A_CALCULATION
    if parsed is not None:
        operation, a, b = parsed
        call_id = f"calc_{len(users)}"
        arguments = json.dumps({"operation": operation, "a": a, "b": b})
        yield ToolCallStartEvent(tool_call_id=call_id, tool_call_name="calculator")
        half = len(arguments) // 2  # streamed in two pieces, as a model would
        yield ToolCallArgsEvent(tool_call_id=call_id, delta=arguments[:half])
        yield ToolCallArgsEvent(tool_call_id=call_id, delta=arguments[half:])
        yield ToolCallEndEvent(tool_call_id=call_id)
        result = _CALC.calculator(operation, a, b)
        yield ToolCallResultEvent(message_id=uuid.uuid4().hex, tool_call_id=call_id, content=json.dumps(result))
        answer = f"calc error: {result['error']}" if "error" in result else f"calc result: {result['result']}"
    message_id = uuid.uuid4().hex
    yield TextMessageStartEvent(message_id=message_id, role="assistant")
    for delta in (answer[:5], answer[5:]):  # streamed in pieces
        yield TextMessageContentEvent(message_id=message_id, delta=delta)
    yield TextMessageEndEvent(message_id=message_id)
    yield RunFinishedEvent(thread_id=run.thread_id, run_id=run.run_id)


def create_app(path: str = "/agui") -> FastAPI:
    """The FastAPI app serving the calculator's AG-UI endpoint at ``path``."""
    app = FastAPI()
    encoder = EventEncoder()

    async def agui(run: RunAgentInput) -> StreamingResponse:
        stream = (encoder.encode(event) for event in run_events(run))
        return StreamingResponse(stream, media_type=encoder.get_content_type())

    app.add_api_route(path, agui, methods=["POST"])
    return app


def main(argv: list[str] | None = None) -> None:
    """Serve the calculator on ``--host``/``--port`` until interrupted."""
    import uvicorn

    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8766)
    args = parser.parse_args(argv)
    print(f"AG-UI calculator on http://{args.host}:{args.port}/agui", file=sys.stderr, flush=True)
    uvicorn.run(create_app(), host=args.host, port=args.port, log_level="warning")


if __name__ == "__main__":
    main()
