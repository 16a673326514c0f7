"""The Google ADK adapter, with an ADK agent that needs no model."""

from __future__ import annotations

from collections.abc import AsyncGenerator
from typing import Any

import pytest

pytest.importorskip("google.adk")

from google.adk.agents import BaseAgent
from google.adk.agents.invocation_context import InvocationContext
from google.adk.events import Event
from google.adk.models.base_llm import BaseLlm
from google.adk.models.llm_request import LlmRequest
from google.genai import types

from agentgauge.agents import AgentError, AgentRequest, as_agent
from agentgauge.agents._adk import AdkAgent, _context_plugin, adk_events_to_output
from agentgauge.model import Message


class ScriptedAdkAgent(BaseAgent):
    """Calls a tool, gets its response, then answers with text that uses the session state."""

    async def _run_async_impl(self, ctx: InvocationContext) -> AsyncGenerator[Event, None]:
        text = ctx.user_content.parts[0].text if ctx.user_content and ctx.user_content.parts else ""
        turns = int(ctx.session.state.get("turns", 0)) + 1
        call = types.FunctionCall(id="fc-1", name="lookup", args={"q": text})
        yield Event(
            author=self.name,
            invocation_id=ctx.invocation_id,
            content=types.Content(role="model", parts=[types.Part(text="Looking up."), types.Part(function_call=call)]),
        )
        response = types.FunctionResponse(id="fc-1", name="lookup", response={"hits": 3})
        yield Event(
            author=self.name,
            invocation_id=ctx.invocation_id,
            content=types.Content(role="user", parts=[types.Part(function_response=response)]),
        )
        yield Event(
            author=self.name,
            invocation_id=ctx.invocation_id,
            content=types.Content(
                role="model", parts=[types.Part(text=f"{ctx.session.state.get('city')}: 3 hits (turn {turns})")]
            ),
            actions=_state_delta({"turns": turns}),
        )


def _state_delta(delta: dict[str, Any]) -> Any:
    from google.adk.events.event_actions import EventActions

    return EventActions(state_delta=delta)


def _request(text: str, session_id: str = "sess-1") -> AgentRequest:
    return AgentRequest(
        user_content=Message(role="user", content=text), session_id=session_id, user_id="u1", state={"city": "Paris"}
    )


async def test_adk_agent_runs_through_runner_with_session_state() -> None:
    agent = as_agent(ScriptedAdkAgent(name="scripted"))
    assert isinstance(agent, AdkAgent)

    first = await agent.run(_request("museums"))
    assert first.final_message() is not None
    assert first.final_message().content == "Paris: 3 hits (turn 1)"  # type: ignore[union-attr]
    assert [(t.id, t.name, t.arguments, t.result) for t in first.tools] == [
        ("fc-1", "lookup", {"q": "museums"}, {"hits": 3})
    ]
    assert [m.content for m in first.intermediate_responses] == ["Looking up."]
    assert first.intermediate_responses[0].model_extra == {"author": "scripted"}

    # The same session keeps its state across invocations; a new session starts from sessionInput.state.
    second = await agent.run(_request("parks"))
    assert second.final_message().content == "Paris: 3 hits (turn 2)"  # type: ignore[union-attr]
    other = await agent.run(_request("parks", session_id="sess-2"))
    assert other.final_message().content == "Paris: 3 hits (turn 1)"  # type: ignore[union-attr]


def test_error_events_raise() -> None:
    event = Event(author="a", error_code="RESOURCE_EXHAUSTED", error_message="quota")
    with pytest.raises(AgentError, match="ADK agent error RESOURCE_EXHAUSTED: quota"):
        adk_events_to_output([event])


def test_function_response_without_call_raises() -> None:
    response = types.FunctionResponse(id="zz", name="ghost", response={})
    event = Event(author="a", content=types.Content(role="user", parts=[types.Part(function_response=response)]))
    with pytest.raises(AgentError, match="without a matching call"):
        adk_events_to_output([event])


async def test_context_plugin_injects_messages_into_model_requests() -> None:
    context = {"s1": [Message(role="system", content="Be brief."), Message(role="user", content="Example question")]}
    plugin = _context_plugin(context)
    request = LlmRequest(contents=[types.Content(role="user", parts=[types.Part(text="real question")])])

    class _Ctx:
        class session:
            id = "s1"

    await plugin.before_model_callback(callback_context=_Ctx(), llm_request=request)
    assert "Be brief." in str(request.config.system_instruction)
    assert [c.parts[0].text for c in request.contents] == ["Example question", "real question"]


ADK_AGENT_MODULE = """
from google.adk.agents import BaseAgent
from google.adk.events import Event
from google.genai import types


class Lookup(BaseAgent):
    async def _run_async_impl(self, ctx):
        text = ctx.user_content.parts[0].text
        call = types.FunctionCall(id="fc", name="lookup", args={"q": text})
        yield Event(author=self.name, invocation_id=ctx.invocation_id,
                    content=types.Content(role="model", parts=[types.Part(function_call=call)]))
        response = types.FunctionResponse(id="fc", name="lookup", response={"hits": 3})
        yield Event(author=self.name, invocation_id=ctx.invocation_id,
                    content=types.Content(role="user", parts=[types.Part(function_response=response)]))
        answer = types.Part(text=f"{ctx.session.state['city']}: 3 hits")
        yield Event(author=self.name, invocation_id=ctx.invocation_id,
                    content=types.Content(role="model", parts=[answer]))


root_agent = Lookup(name="lookup_agent")
"""


def test_adk_agent_directory_through_the_cli(tmp_path: Any) -> None:
    import json
    from pathlib import Path

    from typer.testing import CliRunner

    from agentgauge.cli import app

    root = Path(tmp_path)
    package = root / "lookup_app"
    package.mkdir()
    (package / "__init__.py").write_text("from . import agent\n")
    (package / "agent.py").write_text(ADK_AGENT_MODULE)
    turn = {
        "user_content": {"role": "user", "parts": [{"text": "museums"}]},
        "final_response": {"role": "model", "parts": [{"text": "Paris: 3 hits"}]},
        "intermediate_data": {"tool_uses": [{"name": "lookup", "args": {"q": "museums"}}]},
    }
    case = {
        "eval_id": "museums",
        "conversation": [turn],
        "session_input": {"app_name": "lookup_app", "user_id": "u", "state": {"city": "Paris"}},
    }
    (root / "lookup.evalset.json").write_text(json.dumps({"eval_set_id": "lookup", "eval_cases": [case]}))
    (root / "test_config.json").write_text(
        json.dumps({"criteria": {"tool_trajectory_avg_score": 1.0, "response_match_score": 0.8}})
    )
    result = CliRunner().invoke(
        app, ["eval", str(package), str(root / "lookup.evalset.json"), "--output-dir", str(root / "out")]
    )
    assert result.exit_code == 0, result.output
    [saved] = [json.loads(p.read_text()) for p in (root / "out").rglob("*.evalset_result.json")]
    actual = saved["evalCaseResults"][0]["evalMetricResultPerInvocation"][0]["actualInvocation"]
    assert actual["finalResponse"]["content"] == "Paris: 3 hits"
    assert actual["tools"] == [{"id": "fc", "name": "lookup", "arguments": {"q": "museums"}, "result": {"hits": 3}}]


class _ScriptedLlm(BaseLlm):  # type: ignore[misc]
    """A model that first calls the ``wait`` tool, then answers; each response reports its usage."""

    async def generate_content_async(self, llm_request: LlmRequest, stream: bool = False) -> Any:
        import asyncio

        from google.adk.models.llm_response import LlmResponse

        await asyncio.sleep(0.05)
        answered = any(p.function_response for c in llm_request.contents for p in (c.parts or []))
        part = (
            types.Part(text="done")
            if answered
            else types.Part(function_call=types.FunctionCall(id="w1", name="wait", args={}))
        )
        meta = types.GenerateContentResponseUsageMetadata(
            prompt_token_count=100, candidates_token_count=10, thoughts_token_count=5, total_token_count=115
        )
        yield LlmResponse(
            content=types.Content(role="model", parts=[part]), usage_metadata=meta, model_version="scripted-1"
        )


def wait() -> str:
    """Wait a little."""
    import time

    time.sleep(0.05)
    return "waited"


async def test_llm_agent_usage_and_durations_are_recorded() -> None:
    from google.adk.agents import LlmAgent

    from agentgauge.model import EvalCase, Invocation
    from agentgauge.service import infer_case

    agent = LlmAgent(name="timed", model=_ScriptedLlm(model="scripted-1"), tools=[wait])
    case = EvalCase(eval_id="c", conversation=[Invocation(user_content=Message(content="go"))])
    result = await infer_case(as_agent(agent), case, app_name="a", eval_set_id="s", session_id="x")
    assert result.error_message is None
    [inv] = result.inferences
    assert inv.usage is not None
    # two model calls, usage summed the way ADK's token_usage_v1 sums it (output = candidates + thoughts)
    assert (inv.usage.model_calls, inv.usage.model) == (2, "scripted-1")
    assert (inv.usage.input_tokens, inv.usage.output_tokens, inv.usage.total_tokens) == (200, 30, 230)
    assert inv.usage.reasoning_tokens == 10 and inv.usage.cost is None  # no price for this model
    assert inv.duration is not None and inv.model_duration is not None and inv.tool_duration is not None
    assert inv.model_duration >= 0.09 and inv.tool_duration >= 0.04
    assert inv.duration >= inv.model_duration + inv.tool_duration - 0.002
