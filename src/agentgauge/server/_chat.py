"""Chatting with an app's agent through ADK's session and ``/run`` / ``/run_sse`` routes."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import AsyncIterator
from typing import Annotated, Any

from fastapi import APIRouter, Body, HTTPException, Request
from fastapi.responses import JSONResponse, StreamingResponse
from pydantic import BaseModel, ConfigDict
from pydantic.alias_generators import to_camel

from .._util.uuids import uuid4
from ..errors import InputError
from ..model import Invocation, Message
from ._deps import StateDep
from ._requests import Content, CreateSessionBody, JsonState
from ._sessions import StoredSession, invocation_events, session_to_adk
from ._state import ServerState

__all__ = ["AgentTimedOut", "router", "run_turn"]

# ADK hides the sessions its evaluations create from session lists; both prefixes it has used.
_EVAL_SESSION_PREFIXES = ("adk-eval-session-", "___eval___session___")


class RunAgentRequest(BaseModel):
    """ADK's ``/run`` body (camelCase or snake_case)."""

    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, extra="ignore")

    app_name: str | None = None
    user_id: str
    session_id: str
    new_message: Content | None = None
    streaming: bool = False
    state_delta: JsonState | None = None


class AgentTimedOut(Exception):
    """The agent did not answer a chat turn within the server's time limit (``serve --timeout``)."""


async def _call_agent(agent: Any, request: Any, timeout: float | None) -> Any:
    """``agent.run(request)``, stopped after ``timeout`` seconds: at the agent's next ``await``, or by the watchdog
    when async agent code blocks the event loop (see :mod:`agentgauge.agents._watchdog`)."""
    if timeout is None:
        return await agent.run(request)
    from ..agents._watchdog import AgentTimeout, active, arm, disarm

    message = f"the agent did not answer within {timeout:g} s (serve --timeout {timeout:g})"
    budget = arm(timeout)
    token = active.set(budget)
    try:
        return await asyncio.wait_for(agent.run(request), timeout)
    except (TimeoutError, AgentTimeout):
        raise AgentTimedOut(message) from None
    finally:
        active.reset(token)
        disarm(budget)


def _text_of(content: Content | None) -> str:
    return "" if content is None else content.text()


async def run_turn(state: ServerState, app: str, session: StoredSession, text: str) -> Invocation:
    """Send one user message to the app's agent within ``session``; the finished invocation is stored.

    An agent failure raises :class:`~agentgauge.agents.AgentError` (or whatever the agent raised), an agent that
    takes longer than the server's ``timeout`` :class:`AgentTimedOut`; nothing is stored then.
    """
    from ..agents import AgentRequest

    agent = await state.agent(app)
    request = AgentRequest(
        user_content=Message(role="user", content=text),
        session_id=session.id,
        user_id=session.user_id,
        state=session.state,
        history=list(session.invocations),
    )
    from ._adk_trace import turn_span

    started, invocation_id = time.time(), f"e-{uuid4()}"
    with turn_span(app, session.id, session.user_id, invocation_id):  # ADK Web's Trace tab shows its spans
        output = await _call_agent(agent, request, state.config.timeout)
    invocation = Invocation(
        invocation_id=invocation_id,
        user_content=request.user_content,
        final_response=output.final_message(),
        tools=output.tools,
        intermediate_responses=output.intermediate_responses,
        creation_timestamp=started,
        duration=time.time() - started,
    )
    stored = state.sessions.append(app, session.user_id, session.id, invocation)
    if request.state != stored.state:  # the agent may keep session state in the dict it was handed
        stored.state = request.state
        state.sessions.save(stored)
    return invocation


router = APIRouter(tags=["ADK sessions and chat"])
"""Sessions (create / get / list / delete) and ``/run`` / ``/run_sse``, as ADK's API server answers them."""


@router.post("/apps/{app_name}/users/{user_id}/sessions")
def create_session(
    app_name: str, user_id: str, state: StateDep, body: Annotated[CreateSessionBody | None, Body()] = None
) -> JSONResponse:
    """Create a session (body ``{sessionId?, state?}``)."""
    state.check_app(app_name)
    body = body or CreateSessionBody()
    session = state.sessions.create(app_name, user_id, body.session_id or None, body.state or {})
    return JSONResponse(session_to_adk(session))


@router.post("/apps/{app_name}/users/{user_id}/sessions/{session_id}")
def create_session_with_id(
    app_name: str, user_id: str, session_id: str, state: StateDep, body: Annotated[JsonState | None, Body()] = None
) -> JSONResponse:
    """Create a session with a given id (ADK's deprecated form; the body is the initial state)."""
    state.check_app(app_name)
    session = state.sessions.create(app_name, user_id, session_id, body or {})
    return JSONResponse(session_to_adk(session))


@router.get("/apps/{app_name}/users/{user_id}/sessions/{session_id}")
def get_session(app_name: str, user_id: str, session_id: str, state: StateDep) -> JSONResponse:
    """One session with its events (chat sessions and the sessions of eval case runs)."""
    state.check_app(app_name)
    return JSONResponse(session_to_adk(state.sessions.get(app_name, user_id, session_id)))


@router.get("/apps/{app_name}/users/{user_id}/sessions")
def list_sessions(app_name: str, user_id: str, state: StateDep) -> JSONResponse:
    """The user's chat sessions (sessions of eval runs are left out, as ADK does)."""
    state.check_app(app_name)
    sessions = [
        session_to_adk(s) for s in state.sessions.list(app_name, user_id) if not s.id.startswith(_EVAL_SESSION_PREFIXES)
    ]
    return JSONResponse(sessions)


@router.delete("/apps/{app_name}/users/{user_id}/sessions/{session_id}")
def delete_session(app_name: str, user_id: str, session_id: str, state: StateDep) -> None:
    """Delete a session."""
    state.check_app(app_name)
    state.sessions.delete(app_name, user_id, session_id)


def _resolve(state: ServerState, req: RunAgentRequest) -> tuple[str, StoredSession, str]:
    """The app, the session and the user's text of a ``/run`` request; ``stateDelta`` is applied and saved."""
    app = req.app_name
    if not app:
        if len(state.config.agents) != 1:
            raise HTTPException(400, "appName is required when more than one agent is served")
        app = next(iter(state.config.agents))
    state.check_app(app)
    try:
        session = state.sessions.get(app, req.user_id, req.session_id)
    except LookupError:
        raise HTTPException(404, f"Session not found: {req.session_id}") from None
    if req.state_delta:
        session.state.update(req.state_delta)
        state.sessions.save(session)
    return app, session, _text_of(req.new_message)


@router.post("/run")
async def run(req: RunAgentRequest, state: StateDep) -> JSONResponse:
    """Run the agent on one user message; the agent's events of that turn."""
    app, session, text = _resolve(state, req)
    try:
        invocation = await run_turn(state, app, session, text)
    except (LookupError, InputError):
        raise  # no such agent (404) or an agent that cannot be imported (400)
    except AgentTimedOut as exc:
        raise HTTPException(504, str(exc)) from None
    except Exception as exc:  # the agent failed, not the server: a gateway's error, as a remote agent's would be
        raise HTTPException(502, f"agent failed: {exc}") from None
    return JSONResponse(invocation_events(invocation, app, include_user=False))


@router.post("/run_sse")
async def run_sse(req: RunAgentRequest, request: Request, state: StateDep) -> StreamingResponse:
    """As ``/run``, each event as a server-sent ``data:`` line; a failure is sent as ``{"error": ...}``."""
    app, session, text = _resolve(state, req)

    async def stream() -> AsyncIterator[str]:
        try:
            invocation = await run_turn(state, app, session, text)
        except Exception as exc:
            yield f"data: {json.dumps({'error': str(exc)})}\n\n"
            return
        for event in invocation_events(invocation, app, include_user=False):
            yield f"data: {json.dumps(event)}\n\n"

    return StreamingResponse(stream(), media_type="text/event-stream")
