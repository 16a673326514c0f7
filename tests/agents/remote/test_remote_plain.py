"""Plain JSON agent services (``http(s)://`` with ``--agent-config``): the config file, JSON paths, request
templates, and the calculator eval set through a FastAPI service."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from _in_memory import evaluate_in_memory
from _plain_service import PLAIN_CONFIG
from _servers import CALCULATOR
from hypothesis import given
from hypothesis import strategies as st

from agentgauge.agents import AgentRequest, load_agent
from agentgauge.agents.remote import RemoteAgentSettings, load_remote_agent
from agentgauge.agents.remote._config import apply_config, load_config
from agentgauge.agents.remote._jsonpath import MISSING, format_json_path, parse_json_path, select
from agentgauge.agents.remote._plain import PlainHttpAgent, render_template
from agentgauge.errors import InputError
from agentgauge.formats import load_eval_set, load_metrics
from agentgauge.model import Invocation, Message

pytestmark = pytest.mark.usefixtures("no_registered_secrets")


@pytest.mark.parametrize(
    ("path", "steps"),
    [
        ("$", ()),
        ("$.a.b", ("a", "b")),
        ("$.choices[0].message.content", ("choices", 0, "message", "content")),
        ('$["tool calls"][-1]', ("tool calls", -1)),
        ("$['it''s']".replace("''", "\\'"), ("it's",)),
    ],
)
def test_json_paths(path: str, steps: tuple[Any, ...]) -> None:
    assert parse_json_path(path) == steps


@pytest.mark.parametrize("path", ["a.b", "$.", "$[x]", "$..a", "$.a[", '$["open]'])
def test_bad_json_paths(path: str) -> None:
    with pytest.raises(ValueError):
        parse_json_path(path)


@given(st.lists(st.one_of(st.text(max_size=8), st.integers(-5, 5)), max_size=6))
def test_json_paths_round_trip(steps: list[str | int]) -> None:
    assert parse_json_path(format_json_path(tuple(steps))) == tuple(steps)


def test_select() -> None:
    data = {"a": [{"b": None}, {"b": 2}]}
    assert select(data, ("a", -1, "b")) == 2
    assert select(data, ("a", 0, "b")) is None
    assert select(data, ("a", 2, "b")) is MISSING
    assert select(data, ("a", "b")) is MISSING


def test_templates_fill_whole_values_and_text() -> None:
    values = {"message": "hi", "state": {"n": 1}, "session_id": "s 1"}
    template = {
        "m": "{{message}}",
        "s": "{{ state }}",
        "t": "say {{message}} with {{state}}",
        "k": [1, "{{session_id}}"],
    }
    assert render_template(template, values) == {"m": "hi", "s": {"n": 1}, "t": 'say hi with {"n": 1}', "k": [1, "s 1"]}


def _write(tmp_path: Path, config: Any) -> Path:
    path = tmp_path / "agent.json"
    path.write_text(json.dumps(config))
    return path


@pytest.mark.parametrize(
    ("config", "message"),
    [
        ({"response": {}}, "agent.json: $.response.finalResponse: Field required"),
        (
            {"response": {"finalResponse": "answer"}},
            "agent.json: $.response.finalResponse: a JSON path starts with '$'",
        ),
        (
            {"request": {"body": {"q": "{{question}}"}}, "response": {"finalResponse": "$"}},
            "$.request.body: unknown placeholder {{question}}",
        ),
        ({"request": {"method": "DELETE"}, "response": {"finalResponse": "$"}}, "$.request.method: Input should be"),
        ({"retries": "many"}, "agent.json: $.retries: Input should be a valid integer"),
        ({"readTimeout": -1}, "invalid remote agent settings: read_timeout: Input should be greater than 0"),
        ({"timeouts": 1}, "agent.json: $.timeouts: Extra inputs are not permitted"),
    ],
)
def test_config_errors_name_the_file_and_json_path(tmp_path: Path, config: Any, message: str) -> None:
    with pytest.raises(InputError) as caught:
        load_remote_agent("http://127.0.0.1:1/x", RemoteAgentSettings(config=_write(tmp_path, config)))
    assert message in str(caught.value)
    assert str(tmp_path / "agent.json") in str(caught.value)


def test_a_plain_url_needs_a_config() -> None:
    with pytest.raises(InputError, match="needs --agent-config FILE"):
        load_remote_agent("http://127.0.0.1:1/x")


def test_settings_win_over_the_config_file(tmp_path: Path) -> None:
    path = _write(tmp_path, {"headers": {"X-A": "file", "X-B": "file"}, "readTimeout": 5, "retries": 4})
    settings, config = apply_config(RemoteAgentSettings(headers={"x-a": "cli"}, retries=0, config=path))
    assert config == load_config(path)
    assert settings.headers == {"X-B": "file", "x-a": "cli"}
    assert (settings.read_timeout, settings.retries) == (5, 0)


def test_the_limits_and_redirects_are_config_keys_too(tmp_path: Path) -> None:
    path = _write(tmp_path, {"turnTimeout": 12, "maxResponseMb": 2.5, "followRedirects": True})
    settings, _ = apply_config(RemoteAgentSettings(config=path))
    assert (settings.turn_timeout, settings.max_response_bytes, settings.follow_redirects) == (12, 2_500_000, True)
    given = RemoteAgentSettings.from_options(config=path, turn_timeout=3, max_response_mb=1)
    assert given is not None
    settings, _ = apply_config(given)  # what the command line gives wins over the file
    assert (settings.turn_timeout, settings.max_response_bytes, settings.follow_redirects) == (3, 1_000_000, True)


def test_the_defaults_hold_without_any_setting() -> None:
    defaults = RemoteAgentSettings()
    assert (defaults.turn_timeout, defaults.max_response_mb, defaults.follow_redirects) == (300, 32, False)
    policy = defaults.retry_policy()
    assert (policy.max_attempts, policy.initial_delay, policy.max_retry_after, policy.jitter) == (3, 0.5, 30, 0.25)
    assert RemoteAgentSettings.from_options() is None


def test_the_calculator_set_scores_the_same_through_a_plain_service(plain_server: str, tmp_path: Path) -> None:
    eval_set = load_eval_set(CALCULATOR / "calculator.evalset.json")
    metrics = load_metrics(CALCULATOR / "calculator.metrics.json")
    settings = RemoteAgentSettings(config=_write(tmp_path, PLAIN_CONFIG))
    remote = evaluate_in_memory(load_agent(f"http://{plain_server}", remote=settings), eval_set, metrics)
    local = evaluate_in_memory(load_agent(str(CALCULATOR / "agent.py")), eval_set, metrics)

    def scores(result: Any) -> list[Any]:
        return [
            (
                c.eval_id,
                [(m.metric_name, m.score) for p in c.eval_metric_result_per_invocation for m in p.eval_metric_results],
            )
            for c in result.eval_case_results
        ]

    assert scores(remote) == scores(local)
    assert all(c.final_eval_status.value == "passed" for c in remote.eval_case_results)
    first = remote.eval_case_results[0].eval_metric_result_per_invocation[0].actual_invocation
    assert first.usage is not None and (first.usage.input_tokens, first.usage.output_tokens) == (7, 3)


async def test_headers_reach_the_service_and_are_masked(
    plain_server: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("R1_PLAIN_TOKEN", "plain-token-0123456789")
    config = {"request": {"method": "GET", "path": "/whoami"}, "response": {"finalResponse": "$.authorization"}}
    settings = RemoteAgentSettings(
        headers={"Authorization": "Bearer ${R1_PLAIN_TOKEN}"}, config=_write(tmp_path, config)
    )
    agent = load_agent(f"http://{plain_server}", remote=settings)
    assert isinstance(agent, PlainHttpAgent)
    output = await agent.run(AgentRequest(user_content=Message(content="who?"), session_id="s"))
    assert output.final_message() == Message(role="assistant", content="Bearer plain-token-0123456789")
    from agentgauge._util.redact import redact

    assert redact(output.model_dump_json()).count("***") == 1


async def test_an_answer_without_the_final_response_fails_clearly(plain_server: str, tmp_path: Path) -> None:
    config = {**PLAIN_CONFIG, "response": {"finalResponse": "$.answer"}}
    agent = load_agent(f"http://{plain_server}", remote=RemoteAgentSettings(config=_write(tmp_path, config)))
    request = AgentRequest(
        user_content=Message(content="calc add 1 2"),
        session_id="s",
        history=[Invocation(user_content=Message(content="x"))],
    )
    with pytest.raises(
        Exception,
        match=rf"http agent: POST http://{plain_server}/chat: HTTP 200: no value at \$.answer in the answer: body: ",
    ):
        await agent.run(request)
