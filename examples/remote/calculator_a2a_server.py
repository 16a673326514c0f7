"""The calculator example (examples/calculator/agent.py) served over A2A with the official ``a2a-sdk``.

Each message runs the example agent once, with the earlier turns of its A2A context as history (so "multiply that
by 4" works), and reports what it did the way google-adk's A2A converter does: the tool call and the tool result
as data parts (metadata ``adk_type`` ``function_call`` / ``function_response``) in working status messages, then the
answer as the task's artifact, then ``completed``.

Run it (needs ``pip install 'agentgauge[remote]' uvicorn``)::

    python examples/remote/calculator_a2a_server.py --port 8765
    agentgauge eval a2a+http://127.0.0.1:8765 examples/calculator/calculator.evalset.json
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
from pathlib import Path
from typing import Any

from a2a.helpers.proto_helpers import new_task_from_user_message
from a2a.server.agent_execution import AgentExecutor, RequestContext
from a2a.server.events import EventQueue
from a2a.server.request_handlers import DefaultRequestHandler
from a2a.server.routes import create_agent_card_routes, create_jsonrpc_routes, create_rest_routes
from a2a.server.tasks import InMemoryTaskStore, TaskUpdater
from a2a.types import AgentCapabilities, AgentCard, AgentInterface, AgentSkill, Message, Part, Role, TaskState
from google.protobuf.struct_pb2 import Struct, Value
from starlette.applications import Starlette

from agentgauge.agents import AgentRequest
from agentgauge.model import Invocation

_AGENT = Path(__file__).resolve().parents[1] / "calculator" / "agent.py"


def _calculator() -> Any:
    spec = importlib.util.spec_from_file_location("calculator_example_agent", _AGENT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _data_part(data: dict[str, Any], part_type: str) -> Part:
    value = Value()
    value.struct_value.update(data)
    metadata = Struct()
    metadata.update({"adk_type": part_type})
    return Part(data=value, metadata=metadata)


class CalculatorExecutor(AgentExecutor):  # type: ignore[misc]
    """Runs the calculator example for each A2A message, keeping each context's turns as its history."""

    def __init__(self) -> None:
        self._agent = _calculator().root_agent
        self._history: dict[str, list[Invocation]] = {}

    async def execute(self, context: RequestContext, event_queue: EventQueue) -> None:
        """Answer one message: tool call, tool result, answer artifact, completed."""
        assert context.message is not None and context.task_id and context.context_id
        if context.current_task is None:
            await event_queue.enqueue_event(new_task_from_user_message(context.message))
        history = self._history.setdefault(context.context_id, [])
        request = AgentRequest(user_content={"content": context.get_user_input()}, session_id=context.context_id)
        request.history = list(history)
        output = self._agent(request)
        updater = TaskUpdater(event_queue, context.task_id, context.context_id)
        for tool in output.tools:
            call = {"id": tool.id, "name": tool.name, "args": tool.arguments}
            await updater.update_status(TaskState.TASK_STATE_WORKING, self._say([_data_part(call, "function_call")]))
            response = {"id": tool.id, "name": tool.name, "response": tool.result}
            await updater.update_status(
                TaskState.TASK_STATE_WORKING, self._say([_data_part(response, "function_response")])
            )
        await updater.add_artifact([Part(text=output.final_response)], last_chunk=True)
        await updater.complete()
        history.append(
            Invocation(user_content=request.user_content, final_response=output.final_message(), tools=output.tools)
        )

    @staticmethod
    def _say(parts: list[Part]) -> Message:
        import uuid

        return Message(message_id=uuid.uuid4().hex, role=Role.ROLE_AGENT, parts=parts)

    async def cancel(self, context: RequestContext, event_queue: EventQueue) -> None:
        """The calculator answers at once: there is nothing to cancel."""
        raise NotImplementedError("the calculator cannot be cancelled")


def agent_card(url: str, *, streaming: bool = True, binding: str = "JSONRPC") -> AgentCard:
    """The card of the calculator served at ``url`` (A2A 1.0, ``binding`` ``JSONRPC`` or ``HTTP+JSON``)."""
    skill = AgentSkill(
        id="calculate",
        name="calculate",
        description="Add, subtract, multiply or divide two numbers.",
        tags=["math"],
        examples=["calc add 2 3", "What is 6 times 7?"],
    )
    return AgentCard(
        name="calculator",
        description="The agentgauge calculator example over A2A.",
        version="1.0.0",
        supported_interfaces=[AgentInterface(url=url, protocol_binding=binding, protocol_version="1.0")],
        capabilities=AgentCapabilities(streaming=streaming),
        default_input_modes=["text/plain"],
        default_output_modes=["text/plain"],
        skills=[skill],
    )


def create_app(url: str, *, streaming: bool = True, binding: str = "JSONRPC") -> Starlette:
    """The A2A Starlette app serving the calculator; ``url`` is the address the card advertises, ``binding`` the
    protocol binding it offers (``JSONRPC`` at ``/``, or ``HTTP+JSON``: the REST routes)."""
    card = agent_card(url, streaming=streaming, binding=binding)
    handler = DefaultRequestHandler(
        agent_executor=CalculatorExecutor(), task_store=InMemoryTaskStore(), agent_card=card
    )
    if binding == "HTTP+JSON":
        routes = [*create_agent_card_routes(card), *create_rest_routes(handler)]
    else:
        routes = [*create_agent_card_routes(card), *create_jsonrpc_routes(handler, "/", enable_v0_3_compat=True)]
    return Starlette(routes=routes)


def main(argv: list[str] | None = None) -> None:
    """Serve the calculator on ``--host``/``--port`` until interrupted."""
    import uvicorn

    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8765)
    parser.add_argument("--no-streaming", action="store_true", help="advertise no streaming (answers in one response)")
    args = parser.parse_args(argv)
    app = create_app(f"http://{args.host}:{args.port}/", streaming=not args.no_streaming)
    print(f"A2A calculator on http://{args.host}:{args.port}/", file=sys.stderr, flush=True)
    uvicorn.run(app, host=args.host, port=args.port, log_level="warning")


if __name__ == "__main__":
    main()
