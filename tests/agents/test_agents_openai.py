"""OpenAIAgent against a scripted chat-completions server on 127.0.0.1 (no network)."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from agentgauge.agents import AgentError, AgentRequest, OpenAIAgent, as_agent
from agentgauge.model import Invocation, Message, Tool


class ScriptedServer:
    """Answers each POST /v1/chat/completions with the next scripted assistant message; records requests."""

    def __init__(self) -> None:
        self.replies: list[dict[str, Any]] = []
        self.requests: list[dict[str, Any]] = []
        self.auth: list[str] = []
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                outer.requests.append(body)
                outer.auth.append(self.headers.get("Authorization", ""))
                message = dict(outer.replies.pop(0))
                usage = message.pop("_usage", None)  # the response's usage block, when scripted
                time.sleep(message.pop("_delay", 0))
                payload = {
                    "id": f"chatcmpl-{len(outer.requests)}",
                    "object": "chat.completion",
                    "created": 0,
                    "model": body["model"],
                    "choices": [{"index": 0, "message": message, "finish_reason": "stop"}],
                }
                if usage is not None:
                    payload["usage"] = usage
                data = json.dumps(payload).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, format: str, *args: Any) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.base_url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


def _tool_call(call_id: str, name: str, arguments: str) -> dict[str, Any]:
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": arguments}}


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch) -> Iterator[ScriptedServer]:
    monkeypatch.setenv("TEST_LOOPBACK_KEY", "sk-loopback")
    srv = ScriptedServer()
    yield srv
    srv.close()


def calculator(operation: str, a: float, b: float) -> float:
    """Do arithmetic.

    Args:
        operation: add or mul.
        a: left operand.
        b: right operand.
    """
    return a + b if operation == "add" else a * b


def explode() -> str:
    """Always fails."""
    raise RuntimeError("kaboom")


def _agent(server: ScriptedServer, **kwargs: Any) -> OpenAIAgent:
    return OpenAIAgent(
        "test-model",
        base_url=server.base_url,
        api_key_env="TEST_LOOPBACK_KEY",
        system_prompt="You are a calculator.",
        tools=[calculator, explode],
        **kwargs,
    )


async def test_multi_step_tool_loop_records_every_call(server: ScriptedServer) -> None:
    server.replies = [
        {
            "role": "assistant",
            "content": "Computing.",
            "tool_calls": [_tool_call("c1", "calculator", '{"operation":"add","a":2,"b":3}')],
        },
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                _tool_call("c2", "calculator", '{"operation":"mul","a":5,"b":4}'),
                _tool_call("c3", "explode", "{}"),
            ],
        },
        {"role": "assistant", "content": "The answer is 20."},
    ]
    request = AgentRequest(
        user_content=Message(role="user", content="(2+3)*4?"),
        session_id="s",
        context_messages=[Message(role="system", content="Be terse.")],
        history=[
            Invocation(
                user_content=Message(content="earlier"),
                final_response=Message(role="assistant", content="earlier answer"),
                tools=[Tool(id="h1", name="calculator", arguments={"operation": "add", "a": 1, "b": 1}, result=2)],
            )
        ],
    )
    out = await _agent(server).run(request)

    assert out.final_message() == Message(role="assistant", content="The answer is 20.")
    assert [(t.id, t.name, t.arguments, t.result) for t in out.tools] == [
        ("c1", "calculator", {"operation": "add", "a": 2, "b": 3}, 5.0),
        ("c2", "calculator", {"operation": "mul", "a": 5, "b": 4}, 20.0),
        ("c3", "explode", {}, {"error": "RuntimeError: kaboom"}),
    ]
    assert [m.content for m in out.intermediate_responses] == ["Computing."]

    first = server.requests[0]
    assert server.auth[0] == "Bearer sk-loopback"
    assert [m["role"] for m in first["messages"]] == [
        "system",
        "system",
        "user",
        "assistant",
        "tool",
        "assistant",
        "user",
    ]
    assert first["messages"][0]["content"] == "You are a calculator."
    assert first["messages"][1]["content"] == "Be terse."
    assert first["messages"][4] == {"role": "tool", "tool_call_id": "h1", "content": "2"}
    schema = {t["function"]["name"]: t["function"] for t in first["tools"]}
    assert schema["calculator"]["parameters"]["required"] == ["operation", "a", "b"]
    assert schema["calculator"]["description"] == "Do arithmetic."
    # The second request carries the first tool result; the third carries both later ones.
    assert server.requests[1]["messages"][-1] == {"role": "tool", "tool_call_id": "c1", "content": "5.0"}
    third = server.requests[2]["messages"]
    assert [m.get("tool_call_id") for m in third[-2:]] == ["c2", "c3"]
    assert json.loads(third[-1]["content"]) == {"error": "RuntimeError: kaboom"}


async def test_bad_tool_requests_are_answered_to_the_model(server: ScriptedServer) -> None:
    server.replies = [
        {
            "role": "assistant",
            "tool_calls": [_tool_call("x1", "nosuch", "{}"), _tool_call("x2", "calculator", "{not json")],
        },
        {"role": "assistant", "content": "giving up"},
    ]
    out = await _agent(server).run(AgentRequest(user_content=Message(content="q"), session_id="s"))
    assert out.tools[0].result["error"].startswith("unknown tool 'nosuch'")
    assert out.tools[1].arguments == "{not json"
    assert out.tools[1].result["error"].startswith("arguments are not valid JSON")


async def test_max_steps_exceeded(server: ScriptedServer) -> None:
    server.replies = [
        {"role": "assistant", "tool_calls": [_tool_call(f"c{i}", "calculator", '{"operation":"add","a":1,"b":1}')]}
        for i in range(2)
    ]
    with pytest.raises(AgentError, match="no final answer from test-model after 2 model calls"):
        await _agent(server, max_steps=2).run(AgentRequest(user_content=Message(content="q"), session_id="s"))


async def test_missing_api_key_is_a_clear_agent_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("NO_SUCH_KEY_VAR", raising=False)
    agent = OpenAIAgent("m", base_url="http://127.0.0.1:9/v1", api_key_env="NO_SUCH_KEY_VAR")
    with pytest.raises(AgentError, match="environment variable NO_SUCH_KEY_VAR is not set"):
        await agent.run(AgentRequest(user_content=Message(content="q"), session_id="s"))


async def test_copies_with_other_texts_share_the_client(
    server: ScriptedServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An optimisation's candidates (with_text_fields copies) send their own texts over the original's client: a
    client costs tens of milliseconds to make (its TLS context), which every candidate would pay again."""
    import openai

    made: list[object] = []

    class CountingClient(openai.AsyncOpenAI):
        def __init__(self, **kwargs: Any) -> None:
            made.append(self)
            super().__init__(**kwargs)

    monkeypatch.setattr(openai, "AsyncOpenAI", CountingClient)
    original = _agent(server)
    copies = [original.with_text_fields({"system_prompt": f"Prompt {i}."}) for i in range(3)]
    server.replies = [{"role": "assistant", "content": "ok"} for _ in range(4)]
    for agent in [original, *copies]:
        await agent.run(AgentRequest(user_content=Message(content="q"), session_id="s"))
    assert len(made) == 1
    assert [r["messages"][0]["content"] for r in server.requests] == [
        "You are a calculator.",
        "Prompt 0.",
        "Prompt 1.",
        "Prompt 2.",
    ]
    assert original.system_prompt == "You are a calculator."


def test_openai_agent_is_native() -> None:
    agent = OpenAIAgent("m", tools=[calculator])
    assert as_agent(agent) is agent
    assert "calculator" in repr(agent)


def test_openai_example_passes_against_a_scripted_model(
    server: ScriptedServer, tmp_path: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    from pathlib import Path

    from typer.testing import CliRunner

    from agentgauge.cli import app

    example = Path(__file__).resolve().parents[2] / "examples" / "openai_agent"
    monkeypatch.setenv("OPENAI_API_KEY", "sk-loopback")
    monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
    monkeypatch.setenv("OPENAI_MODEL", "scripted-model")
    server.replies = [
        {"role": "assistant", "tool_calls": [_tool_call("a", "get_weather", '{"city": "Paris"}')]},
        {"role": "assistant", "content": "It is Sunny in Paris, up to 24°C."},
        {"role": "assistant", "tool_calls": [_tool_call("b", "get_weather", '{"city": "Oslo"}')]},
        {"role": "assistant", "tool_calls": [_tool_call("c", "celsius_to_fahrenheit", '{"celsius": 11}')]},
        {"role": "assistant", "content": "Oslo will reach 51.8°F."},
    ]
    result = CliRunner().invoke(
        app,
        ["eval", str(example / "agent.py"), str(example / "weather.evalset.json"), "--parallelism", "1",
         "--output-dir", str(tmp_path)],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    assert server.requests[0]["model"] == "scripted-model"
    assert server.requests[0]["temperature"] == 0
    assert json.loads(server.requests[4]["messages"][-1]["content"]) == 51.8


def slow_lookup(key: str) -> str:
    """Look a key up slowly.

    Args:
        key: what to look up.
    """
    time.sleep(0.2)
    return key.upper()


USAGE_CASES = [
    # (usage blocks of the two responses, expected usage fields)
    (
        [
            {"prompt_tokens": 100, "completion_tokens": 20, "total_tokens": 120},
            {"prompt_tokens": 150, "completion_tokens": 30, "total_tokens": 180},
        ],
        {"input_tokens": 250, "output_tokens": 50, "total_tokens": 300, "prompt_tokens": 250, "candidates_tokens": 50},
    ),
    (
        [
            {
                "prompt_tokens": 1000,
                "completion_tokens": 200,
                "total_tokens": 1200,
                "prompt_tokens_details": {"cached_tokens": 800},
                "completion_tokens_details": {"reasoning_tokens": 150},
            },
            {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
        ],
        {
            "input_tokens": 1010,
            "output_tokens": 205,
            "total_tokens": 1215,
            "cached_tokens": 800,
            "reasoning_tokens": 150,
            "candidates_tokens": 55,
        },
    ),
    ([None, None], {"input_tokens": None, "output_tokens": None, "total_tokens": None}),  # server reports none
]


@pytest.mark.parametrize(("blocks", "expected"), USAGE_CASES)
async def test_usage_is_summed_over_the_turns_model_calls(
    server: ScriptedServer, blocks: list[Any], expected: dict[str, Any]
) -> None:
    server.replies = [
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [_tool_call("c1", "calculator", '{"operation":"add","a":1,"b":2}')],
        },
        {"role": "assistant", "content": "3"},
    ]
    for reply, block in zip(server.replies, blocks, strict=True):
        if block is not None:
            reply["_usage"] = block
    out = await _agent(server).run(AgentRequest(user_content=Message(content="1+2?"), session_id="s"))
    assert out.usage is not None
    assert (out.usage.model_calls, out.usage.model) == (2, "test-model")
    assert {k: getattr(out.usage, k) for k in expected} == expected


async def test_live_run_records_durations_usage_and_cost(server: ScriptedServer) -> None:
    from agentgauge.model import EvalCase
    from agentgauge.service import infer_case

    server.replies = [
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [_tool_call("c1", "slow_lookup", '{"key":"k"}')],
            "_delay": 0.1,
            "_usage": {"prompt_tokens": 1_000_000, "completion_tokens": 0, "total_tokens": 1_000_000},
        },
        {"role": "assistant", "content": "K", "_usage": {"prompt_tokens": 0, "completion_tokens": 1_000_000}},
    ]
    agent = OpenAIAgent(
        "gpt-4o-mini-2024-07-18", base_url=server.base_url, api_key_env="TEST_LOOPBACK_KEY", tools=[slow_lookup]
    )
    case = EvalCase(eval_id="c", conversation=[Invocation(user_content=Message(content="look k up"))])
    result = await infer_case(agent, case, app_name="a", eval_set_id="s", session_id="x")
    [inv] = result.inferences
    assert inv.duration is not None and inv.model_duration is not None and inv.tool_duration is not None
    assert 0.1 <= inv.model_duration < inv.duration  # the first request waited 0.1 s on the server
    assert 0.2 <= inv.tool_duration < inv.duration  # the tool slept 0.2 s
    assert inv.duration >= inv.model_duration + inv.tool_duration - 0.002
    assert inv.usage is not None and inv.usage.total_tokens == 2_000_000
    # gpt-4o-mini in the built-in table: $0.15 per 1M input tokens, $0.60 per 1M output tokens
    assert inv.usage.cost == pytest.approx(0.75)


async def test_unpriced_model_gets_no_cost(server: ScriptedServer) -> None:
    from agentgauge.model import EvalCase
    from agentgauge.service import infer_case

    server.replies = [{"role": "assistant", "content": "hi", "_usage": {"prompt_tokens": 5, "completion_tokens": 1}}]
    case = EvalCase(eval_id="c", conversation=[Invocation(user_content=Message(content="hello"))])
    result = await infer_case(_agent(server), case, app_name="a", eval_set_id="s", session_id="x")
    [inv] = result.inferences
    assert inv.usage is not None and inv.usage.total_tokens == 6 and inv.usage.cost is None
    assert inv.tool_duration == 0.0  # no tool ran, and the agent sees every tool: zero, not unknown
