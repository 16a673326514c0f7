"""A tRPC-Agent API server (FastAPI), written from trpc-agent-go's documented protocol (``docs/mkdocs/en/trpcagent.md``,
``server/trpcagent``): ``GET {base}/{app}/structure`` and ``POST {base}/{app}/runs`` taking ``{session{userId,
sessionId}, input{role, content}, profile?, runOptions{requestID, executionTraceEnabled, runtimeState}}`` (unknown
fields refused, as trpc's decoder does) and answering ``{status, events[], executionTrace?, errorMessage?}``.

Apps (the base path is trpc's default, ``/trpc-agent/v1/apps``, or ``/custom/base``):

- ``calculator``: the calculator example's agent, its events as trpc-agent-go's runner emits them (a tool-call
  response, a ``tool.response``, the final ``chat.completion``, the ``runner.completion``), session history kept by
  the server;
- ``relay``: a root agent that transfers to a sub-agent ``researcher`` (its own invocation id, parent and branch
  ``relay/researcher``), which calls ``lookup``; the root answers with what it found;
- ``traceonly``: as trpc's ADK and LangGraph reference services answer: only the final event and the completion,
  the tool calls in the execution trace's steps;
- ``failing``: a run whose agent fails (an error event, ``status: failed``), as trpc's server answers it.

Every run request is kept in ``requests`` (to check what the client sent).
"""

import datetime
import importlib.util
import json
import uuid
from typing import Any

from _servers import CALCULATOR

from agentgauge.agents import AgentOutput, AgentRequest
from agentgauge.model import Invocation, Message, Tool

BASES = ("/trpc-agent/v1/apps", "/custom/base")
APPS = ("calculator", "relay", "traceonly", "failing")
_REQUEST_KEYS = {"session", "input", "profile", "runOptions"}
_OPTION_KEYS = {"requestID", "executionTraceEnabled", "runtimeState"}


def calculator_agent() -> Any:
    """The calculator example's ``root_agent`` (what runs in-process in the comparison)."""
    spec = importlib.util.spec_from_file_location("_calculator_for_trpcagent", CALCULATOR / "agent.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.root_agent


def _now() -> str:
    return datetime.datetime.now(datetime.UTC).isoformat().replace("+00:00", "Z")


def _event(request_id: str, invocation: str, author: str, **response: Any) -> dict[str, Any]:
    extra = {k: response.pop(k) for k in ("parentInvocationId", "branch") if k in response}
    return {
        "requestID": request_id,
        "invocationId": invocation,
        "author": author,
        "id": uuid.uuid4().hex,
        "timestamp": _now(),
        "object": response.pop("object", "chat.completion"),
        "created": 0,
        "model": "scripted",
        "choices": response.pop("choices", []),
        "done": response.pop("done", True),
        "is_partial": False,
        **extra,
        **response,
    }


def _tool_events(request_id: str, invocation: str, author: str, output: AgentOutput, **where: Any) -> list[Any]:
    events = []
    for tool in output.tools:
        call = {
            "type": "function",
            "id": tool.id,
            "function": {"name": tool.name, "arguments": json.dumps(tool.arguments)},
        }
        message = {"role": "assistant", "tool_calls": [call]}
        events.append(_event(request_id, invocation, author, choices=[{"index": 0, "message": message}], **where))
        result = {"role": "tool", "tool_id": tool.id, "tool_name": tool.name, "content": json.dumps(tool.result)}
        events.append(
            _event(
                request_id,
                invocation,
                author,
                object="tool.response",
                done=False,
                choices=[{"index": 0, "message": result}],
                **where,
            )
        )
    return events


def _final(request_id: str, invocation: str, author: str, text: str, **where: Any) -> dict[str, Any]:
    choice = {"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}
    return _event(request_id, invocation, author, choices=[choice], **where)


def _completion(request_id: str, invocation: str, author: str, error: str = "") -> dict[str, Any]:
    extra = {"error": {"type": "run_error", "message": error}} if error else {}
    return _event(request_id, invocation, author, object="runner.completion", **extra)


def _step(invocation: str, agent: str, text_in: str, text_out: str, output: AgentOutput, **links: str) -> Any:
    tools = [
        {"ID": t.id, "Name": t.name, "Arguments": t.arguments, "Result": t.result, "Error": ""} for t in output.tools
    ]
    return {
        "StepID": f"{invocation}:{agent}",
        "InvocationID": invocation,
        "ParentInvocationID": links.get("parent", ""),
        "AgentName": agent,
        "Branch": links.get("branch", agent),
        "NodeID": agent,
        "NodeType": "agent",
        "StartedAt": _now(),
        "EndedAt": _now(),
        "Input": {"Text": text_in},
        "Output": {"Text": text_out},
        "Tools": tools or None,
        "Skills": None,
        "Error": "",
    }


def _trace(app: str, invocation: str, session: str, text_in: str, text_out: str, steps: list[Any]) -> Any:
    return {
        "RootAgentName": app,
        "RootInvocationID": invocation,
        "SessionID": session,
        "StartedAt": _now(),
        "EndedAt": _now(),
        "Status": "completed",
        "Input": {"Text": text_in},
        "Output": {"Text": text_out},
        "Steps": steps,
    }


class TrpcAgentService:
    """The apps' state: the calculator's session histories and the run requests received."""

    def __init__(self) -> None:
        self.calculator = calculator_agent()
        self.histories: dict[tuple[str, str], list[Invocation]] = {}
        self.requests: list[dict[str, Any]] = []

    def run(self, app: str, body: dict[str, Any]) -> dict[str, Any]:
        session, options = body["session"], body.get("runOptions") or {}
        request_id = options.get("requestID") or uuid.uuid4().hex
        text = body["input"]["content"]
        invocation = uuid.uuid4().hex
        key = (session["userId"], session["sessionId"])
        history = self.histories.setdefault(key, [])
        request = AgentRequest(
            user_content=Message(role="user", content=text),
            session_id=session["sessionId"],
            user_id=session["userId"],
            state=options.get("runtimeState") or {},
            history=list(history),
        )
        if app == "failing":
            message = "the travel tool is down"
            error = _event(request_id, invocation, app, object="error", error={"type": "run_error", "message": message})
            return {"status": "failed", "events": [error, _completion(request_id, invocation, app, message)]}
        if app == "relay":
            return self._relay(request_id, invocation, session["sessionId"], text)
        output: AgentOutput = self.calculator(request)
        answer = output.final_message()
        final_text = answer.content if answer else ""
        history.append(Invocation(user_content=request.user_content, final_response=answer, tools=output.tools))
        trace = _trace(
            app, invocation, session["sessionId"], text, final_text, [_step(invocation, app, text, final_text, output)]
        )
        events = [] if app == "traceonly" else _tool_events(request_id, invocation, app, output)
        events += [_final(request_id, invocation, app, final_text), _completion(request_id, invocation, app)]
        answer_body: dict[str, Any] = {"status": "completed", "events": events}
        if options.get("executionTraceEnabled"):
            answer_body["executionTrace"] = trace
        return answer_body

    @staticmethod
    def _relay(request_id: str, root: str, session: str, text: str) -> dict[str, Any]:
        child = uuid.uuid4().hex
        lookup = Tool(id="look_1", name="lookup", arguments={"city": "Lyon"}, result={"museums": 3})
        found = AgentOutput(final_response="Lyon has 3 museums open today.", tools=[lookup])
        where = {"parentInvocationId": root, "branch": "relay/researcher"}
        transfer = _event(request_id, root, "relay", object="agent.transfer", branch="relay", done=False)
        events = [transfer, *_tool_events(request_id, child, "researcher", found, **where)]
        events.append(_final(request_id, child, "researcher", "Lyon has 3 museums open today.", **where))
        events.append(_final(request_id, root, "relay", "Three museums are open in Lyon.", branch="relay"))
        events.append(_completion(request_id, root, "relay"))
        steps = [
            _step(root, "relay", text, "Three museums are open in Lyon.", AgentOutput()),
            _step(
                child,
                "researcher",
                text,
                "Lyon has 3 museums open today.",
                found,
                parent=root,
                branch="relay/researcher",
            ),
        ]
        return {
            "status": "completed",
            "events": events,
            "executionTrace": _trace("relay", root, session, text, "", steps),
        }


def _structure(app: str) -> dict[str, Any]:
    node = {"NodeID": app, "Kind": "agent", "Name": app}
    return {"structure": {"StructureID": f"{app}:v1", "EntryNodeID": app, "Nodes": [node], "Edges": [], "Surfaces": []}}


def _problem(body: Any) -> str | None:
    """What trpc's server would refuse in a run request (its decoder refuses unknown fields)."""
    if not isinstance(body, dict) or set(body) - _REQUEST_KEYS:
        return "invalid request body: unknown field"
    if set(body.get("runOptions") or {}) - _OPTION_KEYS:
        return "invalid request body: unknown field in runOptions"
    session = body.get("session") or {}
    if not session.get("userId"):
        return "session.userId is required"
    if not session.get("sessionId"):
        return "session.sessionId is required"
    if (body.get("input") or {}).get("role") != "user":
        return "input.role must be user"
    return None


def trpcagent_app(service: TrpcAgentService | None = None) -> Any:
    """The FastAPI app serving :data:`APPS` under each of :data:`BASES`."""
    from fastapi import FastAPI, Request
    from fastapi.responses import JSONResponse

    state = service or TrpcAgentService()
    app = FastAPI()
    app.state.trpcagent = state

    for base in BASES:

        @app.get(base + "/{name}/structure")
        async def structure(name: str) -> Any:
            if name not in APPS:
                return JSONResponse({"error": "not found"}, status_code=404)
            return _structure(name)

        @app.api_route(base + "/{name}/runs", methods=["GET", "POST"])
        async def runs(name: str, request: Request) -> Any:
            if name not in APPS:
                return JSONResponse({"error": "not found"}, status_code=404)
            if request.method != "POST":
                return JSONResponse({"error": "method not allowed"}, status_code=405, headers={"Allow": "POST"})
            body = await request.json()
            state.requests.append(body)
            problem = _problem(body)
            if problem:
                return JSONResponse({"error": problem}, status_code=400)
            return state.run(name, body)

    return app
