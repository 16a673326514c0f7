"""Tool mocks: rule matching, static and generated results, and their use by every agent kind."""

from __future__ import annotations

import json
from typing import Any

import pytest
from chat_server import ChatServer, Reply

from agentgauge import AgentEvaluator
from agentgauge.agents import AgentOutput, AgentRequest, FunctionTool, OpenAIAgent
from agentgauge.errors import InputError
from agentgauge.formats import parse_eval_set
from agentgauge.mocks import ToolMockError, mockable, mocks_for, use_mocks
from agentgauge.model import EvalCaseResult, EvalSet, EvalStatus, Invocation, Tool
from agentgauge.simulation import SimulationSettings
from agentgauge.storage import InMemoryEvalResultManager, InMemoryEvalSetManager, InMemoryMetricManager


def _invocation(actual: list[dict[str, Any]], expected: list[dict[str, Any]] | None = None, **extra: Any) -> Invocation:
    return Invocation.model_validate(
        {"userContent": {"content": "q"}, "toolMock": {"actual": actual, "expected": expected or []}, **extra}
    )


class Generator:
    def __init__(self, *answers: str) -> None:
        self.answers = list(answers)
        self.calls: list[tuple[str, str]] = []

    async def generate(self, prompt: str, arguments: str) -> str:
        self.calls.append((prompt, arguments))
        return self.answers.pop(0)


async def test_first_matching_rule_wins_and_arguments_match_as_json() -> None:
    mocks = mocks_for(
        _invocation(
            [
                {"name": "w", "arguments": {"expected": {"city": "Paris", "n": 1}}, "result": "exact"},
                {
                    "name": "w",
                    "arguments": {"expected": {"city": "Paris"}, "onlyTree": {"city": True}},
                    "result": "only",
                },
                {"name": "w", "arguments": {"expected": {"n": 2.5}, "numberTolerance": 0.5}, "result": "tolerant"},
                {"name": "w", "arguments": {"expected": {"a": 1, "t": 0}, "ignoreTree": {"t": True}}, "result": "ign"},
                {"name": "w", "result": "any"},
            ]
        ),
        "actual",
    )
    assert mocks is not None
    assert await mocks.resolve("w", {"city": "Paris", "n": 1}) == (True, "exact")
    assert await mocks.resolve("w", {"city": "Paris", "n": 1.0000001}) == (True, "only")  # tolerance 0 by default
    assert await mocks.resolve("w", {"n": 2.9}) == (True, "tolerant")
    assert await mocks.resolve("w", {"a": 1, "t": 99}) == (True, "ign")
    assert await mocks.resolve("w", "not json") == (True, "any")
    assert await mocks.resolve("other", {}) == (False, None)  # unmocked tools run for real


async def test_mocked_tool_without_a_matching_rule_fails() -> None:
    mocks = mocks_for(_invocation([{"name": "w", "arguments": {"expected": {"city": "Rome"}}, "result": 1}]), "actual")
    assert mocks is not None
    with pytest.raises(ToolMockError, match=r"no rule matched .*actual 'Paris' != expected 'Rome' at \$.city"):
        await mocks.resolve("w", {"city": "Paris"})


async def test_sides_and_legacy_mock_tool_output() -> None:
    inv = _invocation([{"name": "w", "result": "actual"}], [{"name": "w", "result": "expected"}])
    assert await mocks_for(inv, "actual").resolve("w", {}) == (True, "actual")  # type: ignore[union-attr]
    assert await mocks_for(inv, "expected").resolve("w", {}) == (True, "expected")  # type: ignore[union-attr]
    assert mocks_for(Invocation.model_validate({"userContent": {"content": "q"}}), "actual") is None
    legacy = Invocation(
        user_content={"content": "q"}, tools=[Tool(name="lookup", arguments={"q": 1}, mock_tool_output={"hits": 3})]
    )  # type: ignore[arg-type,call-arg]
    mocks = mocks_for(legacy, "actual")
    assert mocks is not None
    assert await mocks.resolve("lookup", {"q": 1}) == (True, {"hits": 3})
    assert await mocks.resolve("lookup", {"q": 2}) == (False, None)  # ADK: other calls run for real
    assert mocks_for(legacy, "expected") is None


async def test_generated_results() -> None:
    rule = [{"name": "w", "llmGenerator": {"prompt": "Invent weather."}}]
    generator = Generator('{"temp": 20}', "plain text", "null", "  ")
    mocks = mocks_for(_invocation(rule), "actual", generator)
    assert mocks is not None
    assert await mocks.resolve("w", {"city": "Oslo"}) == (True, {"temp": 20})
    assert generator.calls == [("Invent weather.", '{"city": "Oslo"}')]
    assert await mocks.resolve("w", None) == (True, "plain text")
    assert generator.calls[-1][1] == "{}"
    with pytest.raises(ToolMockError, match="cannot be null"):
        await mocks.resolve("w", {})
    with pytest.raises(ToolMockError, match="is empty"):
        await mocks.resolve("w", {})
    without = mocks_for(_invocation(rule), "actual")
    with pytest.raises(ToolMockError, match="llmGenerator mock needs a model"):
        await without.resolve("w", {})  # type: ignore[union-attr]


@pytest.mark.parametrize(
    ("rule", "message"),
    [
        ({"name": "w"}, "static tool mock requires result"),
        ({"name": "w", "result": 1, "llmGenerator": {"prompt": "p"}}, "llmGenerator cannot be configured with result"),
        ({"name": "w", "llmGenerator": {"prompt": " "}}, "llmGenerator prompt is empty"),
        ({"name": "w", "result": 1, "arguments": {"ignore": True, "expected": {}}}, "ignore cannot be configured"),
        ({"name": "w", "result": 1, "arguments": {}}, "expected is required when ignore is false"),
        (
            {
                "name": "w",
                "result": 1,
                "arguments": {"expected": {}, "onlyTree": {"a": True}, "ignoreTree": {"b": True}},
            },
            "onlyTree and ignoreTree cannot be set at the same time",
        ),
        (
            {"name": "w", "result": 1, "arguments": {"expected": 1, "numberTolerance": -1}},
            "numberTolerance cannot be negative",
        ),
    ],
)
def test_invalid_rules_are_input_errors_with_a_path(rule: dict[str, Any], message: str) -> None:
    doc = {
        "evalSetId": "s",
        "evalCases": [
            {"evalId": "c", "conversation": [{"userContent": {"content": "q"}, "toolMock": {"actual": [rule]}}]}
        ],
    }
    with pytest.raises(InputError, match=message) as info:
        parse_eval_set(json.dumps(doc), source="x.evalset.json")
    assert "evalCases[0].conversation[0].toolMock.actual[0]" in str(info.value)


@mockable
def weather(city: str) -> dict[str, Any]:
    return {"city": city, "real": True}


@mockable(name="forecast")
async def forecast_tool(city: str, days: int = 1) -> dict[str, Any]:
    return {"city": city, "days": days, "real": True}


async def test_mockable_functions_and_function_tools() -> None:
    assert weather("Paris") == {"city": "Paris", "real": True}
    inv = _invocation(
        [
            {"name": "weather", "arguments": {"expected": {"city": "Paris"}}, "result": "mocked"},
            {"name": "forecast", "arguments": {"expected": {"city": "Oslo"}}, "result": "mocked f"},
        ]
    )
    with use_mocks(mocks_for(inv, "actual")):
        assert weather("Paris") == "mocked"
        assert await forecast_tool("Oslo") == "mocked f"
        assert await FunctionTool.from_function(weather.__wrapped__, name="weather").call({"city": "Paris"}) == "mocked"
        with pytest.raises(ToolMockError):
            weather(city="Rome")
    assert weather("Paris")["real"] is True


def _tool_call(call_id: str, name: str, arguments: str) -> dict[str, Any]:
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": arguments}}


def _completion(message: dict[str, Any]) -> Reply:
    return Reply(
        200,
        {
            "id": "x",
            "object": "chat.completion",
            "created": 0,
            "model": "m",
            "choices": [{"index": 0, "message": message, "finish_reason": "stop"}],
        },
    )


def get_weather(city: str) -> dict[str, Any]:
    """The weather."""
    return {"city": city, "condition": "real"}


async def _run(agent: Any, cases: list[dict[str, Any]], **kwargs: Any) -> dict[str, EvalCaseResult]:
    sets = InMemoryEvalSetManager()
    sets.put("app", EvalSet.model_validate({"evalSetId": "s", "evalCases": cases}))
    evaluator = AgentEvaluator(
        "app",
        agent,
        eval_set_manager=sets,
        metric_manager=InMemoryMetricManager(),
        result_manager=InMemoryEvalResultManager(),
        **kwargs,
    )
    result = await evaluator.evaluate("s")
    assert result.eval_set_result is not None
    return {c.eval_id: c for c in result.eval_set_result.eval_case_results}


def _mock_case(eval_id: str, city: str, **extra: Any) -> dict[str, Any]:
    rule = {"name": "get_weather", "arguments": {"expected": {"city": city}}, "result": {"condition": "mocked"}}
    return {
        "evalId": eval_id,
        "conversation": [{"userContent": {"content": "weather?"}, "toolMock": {"actual": [rule]}, **extra}],
    }


async def test_openai_agent_tools_are_mocked(chat_server: ChatServer, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    chat_server.queue(
        _completion(
            {"role": "assistant", "content": None, "tool_calls": [_tool_call("c1", "get_weather", '{"city": "Paris"}')]}
        ),
        _completion({"role": "assistant", "content": "It is mocked."}),
        _completion(
            {"role": "assistant", "content": None, "tool_calls": [_tool_call("c2", "get_weather", '{"city": "Paris"}')]}
        ),
    )
    agent = OpenAIAgent("m", base_url=chat_server.base_url, tools=[get_weather])
    results = await _run(agent, [_mock_case("hit", "Paris")])
    [turn] = results["hit"].eval_metric_result_per_invocation
    assert [(t.name, t.result) for t in turn.actual_invocation.tools] == [("get_weather", {"condition": "mocked"})]
    assert (
        chat_server.requests[1].body["messages"][-1]["content"] == '{"condition": "mocked"}'
    )  # the model saw the mock
    miss = await _run(agent, [_mock_case("miss", "Rome")], parallelism=1)
    assert miss["miss"].final_eval_status is EvalStatus.ERROR
    assert "tool 'get_weather' is mocked but no rule matched" in str(miss["miss"].error_message)
    assert len(chat_server.requests) == 3  # the unmatched call was not answered to the model: the turn failed


async def test_python_agent_and_expected_side(chat_server: ChatServer) -> None:
    tool = mockable(get_weather)

    def agent(request: AgentRequest) -> AgentOutput:
        result = tool(city="Paris")
        return AgentOutput(
            final_response=str(result["condition"]),
            tools=[Tool(name="get_weather", arguments={"city": "Paris"}, result=result)],
        )

    case = _mock_case("c", "Paris")
    case["expectedRunnerEnabled"] = True
    case["conversation"][0]["toolMock"]["expected"] = [
        {"name": "get_weather", "result": {"condition": "expected mock"}}
    ]
    results = await _run(agent, [case], expected_agent=agent)
    [turn] = results["c"].eval_metric_result_per_invocation
    assert turn.actual_invocation.final_response.content == "mocked"  # type: ignore[union-attr]
    assert turn.expected_invocation.final_response.content == "expected mock"  # type: ignore[union-attr]


async def test_generated_mock_through_the_run(chat_server: ChatServer) -> None:
    from agentgauge.judges import JudgeClient, JudgeEndpoint, OpenAIJudge
    from agentgauge.simulation import JudgeMockGenerator

    tool = mockable(get_weather)

    def agent(request: AgentRequest) -> AgentOutput:
        result = tool(city="Oslo")
        return AgentOutput(
            final_response=json.dumps(result),
            tools=[Tool(name="get_weather", arguments={"city": "Oslo"}, result=result)],
        )

    endpoint = JudgeEndpoint.resolve(model="gen", base_url=chat_server.base_url, api_key="k", env={})
    generator = JudgeMockGenerator(JudgeClient(OpenAIJudge(endpoint), label="gen"))
    chat_server.queue(_completion({"role": "assistant", "content": '{"condition": "generated"}'}))
    rule = {"name": "get_weather", "llmGenerator": {"prompt": "Invent a forecast for the city."}}
    case = {"evalId": "c", "conversation": [{"userContent": {"content": "q"}, "toolMock": {"actual": [rule]}}]}
    results = await _run(agent, [case], simulation=SimulationSettings(mock_generator=generator))
    assert results["c"].error_message is None, results["c"].error_message
    [turn] = results["c"].eval_metric_result_per_invocation
    assert turn.actual_invocation.tools[0].result == {"condition": "generated"}
    assert chat_server.requests[0].body["messages"][1]["content"] == '{"city": "Oslo"}'


def test_legacy_mock_tool_output_runs_end_to_end(tmp_path: Any) -> None:
    from typer.testing import CliRunner

    from agentgauge.cli import app

    legacy = tmp_path / "weather.test.json"
    row = {
        "query": "weather in Paris?",
        "expected_tool_use": [
            {"tool_name": "get_weather", "tool_input": {"city": "Paris"}, "mock_tool_output": {"condition": "mocked"}}
        ],
        "reference": "mocked",
    }
    legacy.write_text(json.dumps([row]))
    agent = tmp_path / "agent.py"
    agent.write_text(
        "from agentgauge.agents import AgentOutput, mockable\n"
        "from agentgauge.model import Tool\n"
        "@mockable\n"
        "def get_weather(city: str) -> dict:\n"
        "    return {'condition': 'real'}\n"
        "def root_agent(request):\n"
        "    r = get_weather(city='Paris')\n"
        "    call = Tool(name='get_weather', arguments={'city': 'Paris'}, result=r)\n"
        "    return AgentOutput(final_response=r['condition'], tools=[call])\n"
    )
    done = CliRunner().invoke(app, ["eval", str(agent), str(legacy), "--output-dir", str(tmp_path / "out")])
    assert done.exit_code == 0, done.output  # response_match_score 1: the agent answered with the mocked output
    [saved] = sorted((tmp_path / "out").rglob("*.evalset_result.json"))
    case = json.loads(saved.read_text())["evalCaseResults"][0]
    assert case["evalMetricResultPerInvocation"][0]["actualInvocation"]["tools"][0]["result"] == {"condition": "mocked"}
