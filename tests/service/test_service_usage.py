"""What live runs record per invocation: wall time, model/tool time where measurable, usage and its cost."""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path
from typing import Any

import pytest

from agentgauge.agents import AgentOutput, AgentRequest, FunctionTool, as_agent, time_model, time_tool
from agentgauge.errors import InputError
from agentgauge.model import EvalCase, Invocation, Message, TokenUsage
from agentgauge.model._prices import DEFAULT_PRICES, ModelPrice, PriceTable, load_prices, prices_for_run
from agentgauge.service import infer_case


def _case(*texts: str) -> EvalCase:
    return EvalCase(eval_id="c", conversation=[Invocation(user_content=Message(content=t)) for t in texts])


async def _run(agent: Any, *texts: str, prices: PriceTable | None = None) -> list[Invocation]:
    result = await infer_case(
        as_agent(agent), _case(*texts), app_name="a", eval_set_id="s", session_id="x", prices=prices
    )
    assert result.error_message is None, result.error_message
    return result.inferences


def lookup(key: str) -> str:
    """Look up.

    Args:
        key: the key.
    """
    time.sleep(0.05)
    return key


async def test_python_agent_usage_and_tool_helper_time() -> None:
    tool = FunctionTool.from_function(lookup)

    async def agent(request: AgentRequest) -> dict[str, Any]:
        await tool.call({"key": "a"})  # measured as tool time
        with time_model():
            await asyncio.sleep(0.03)  # the agent's own model call
        return {"final_response": "ok", "usage": {"inputTokens": 1000, "outputTokens": 100, "model": "gpt-4.1-nano"}}

    [inv] = await _run(agent, "hi")
    assert inv.duration is not None and inv.duration >= 0.08
    assert inv.tool_duration is not None and inv.tool_duration >= 0.05
    assert inv.model_duration is not None and inv.model_duration >= 0.03
    assert inv.usage == TokenUsage(
        input_tokens=1000, output_tokens=100, total_tokens=1100, model="gpt-4.1-nano", cost=0.00014
    )


async def test_plain_agent_gets_wall_time_only() -> None:
    [inv] = await _run(lambda request: "hello", "hi")
    assert inv.duration is not None and inv.duration >= 0
    assert (inv.model_duration, inv.tool_duration, inv.usage) == (None, None, None)  # not measured, not zero


async def test_agent_measured_durations_win_and_overlap_counts_once() -> None:
    spans: dict[str, list[float]] = {"model": [], "tool": []}  # how long each wait took, as the agent saw it

    async def agent(request: AgentRequest) -> AgentOutput:
        async def tool_awaiting_model() -> None:
            with time_tool():
                with time_model():
                    began = time.monotonic()
                    await asyncio.sleep(0.04)
                    spans["model"].append(time.monotonic() - began)
                began = time.monotonic()
                await asyncio.sleep(0.02)
                spans["tool"].append(time.monotonic() - began)

        await asyncio.gather(tool_awaiting_model(), tool_awaiting_model())
        return AgentOutput(final_response="x", model_duration=None if request.user_content.content == "a" else 9.0)

    first, second = await _run(agent, "a", "b")
    # The two waits of each kind run at the same time: their time counts once, so the total is under their sum
    # (which would be at least twice a wait). Compared with the waits as measured, not with fixed seconds.
    model_spans, tool_spans = spans["model"][:2], spans["tool"][:2]
    assert first.model_duration is not None and 0.04 <= first.model_duration < sum(model_spans)
    assert first.tool_duration is not None and 0.02 <= first.tool_duration < sum(tool_spans)  # tool minus model
    assert second.model_duration == 9.0


PRICE_CASES = [
    # (model, input, output, cached, expected cost)
    ("gpt-4o", 1_000_000, 1_000_000, None, 12.5),
    ("gpt-4o-2024-08-06", 1_000_000, 0, 500_000, 1.875),  # dated name → gpt-4o; cached input at $1.25
    ("openai/gpt-4o-mini", 2_000_000, 0, None, 0.3),  # provider prefix dropped; longest prefix wins
    ("gemini-2.5-flash", 1_000_000, 1_000_000, 1_000, 2.8),  # no cached price: all input at the input price
    ("my-own-model", 10, 10, None, None),  # unknown: no cost is invented
    ("gpt-4o", None, 10, None, None),  # input not reported: no cost
]


@pytest.mark.parametrize(("model", "inp", "out", "cached", "cost"), PRICE_CASES)
def test_built_in_prices(model: str, inp: int | None, out: int, cached: int | None, cost: float | None) -> None:
    usage = TokenUsage(input_tokens=inp, output_tokens=out, cached_tokens=cached, model=model)
    got = DEFAULT_PRICES.with_cost(usage).cost
    assert got == (None if cost is None else pytest.approx(cost))


def test_price_file_overrides_and_extends(tmp_path: Path) -> None:
    path = tmp_path / "prices.json"
    path.write_text(
        json.dumps(
            {"currency": "EUR", "models": {"gpt-4o": {"input": 1, "output": 2}, "mine": {"input": 3, "output": 4}}}
        )
    )
    table = load_prices(path)
    assert table.price("gpt-4o") == ModelPrice(1.0, 2.0) and table.price("mine") == ModelPrice(3.0, 4.0)
    assert table.price("gpt-4.1") == DEFAULT_PRICES.price("gpt-4.1") and table.currency == "EUR"


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("{", "prices.json: invalid JSON"),
        ('{"models": {"m": {"input": 1}}}', "prices.json: models.m.output: missing required field"),
        (
            '{"models": {"m": {"input": -1, "output": 1}}}',
            "prices.json: models.m.input: expected a non-negative number",
        ),
        ("[]", 'prices.json: expected an object with "models"'),
    ],
)
def test_bad_price_file_names_file_and_path(tmp_path: Path, content: str, message: str) -> None:
    path = tmp_path / "prices.json"
    path.write_text(content)
    with pytest.raises(InputError) as info:
        load_prices(path)
    assert str(info.value).startswith(f"{tmp_path}/{message}")


def test_pyproject_prices_path_or_table(tmp_path: Path) -> None:
    (tmp_path / "p.json").write_text('{"models": {"a": {"input": 1, "output": 1}}}')
    (tmp_path / "pyproject.toml").write_text('[tool.agentgauge]\nprices = "p.json"\n')
    assert prices_for_run(start=tmp_path).price("a") == ModelPrice(1.0, 1.0)
    (tmp_path / "pyproject.toml").write_text("[tool.agentgauge.prices.models.b]\ninput = 2\noutput = 3\n")
    assert prices_for_run(start=tmp_path).price("b") == ModelPrice(2.0, 3.0)
    assert prices_for_run(tmp_path / "p.json", start=tmp_path).price("b") is None  # --prices wins
    (tmp_path / "pyproject.toml").write_text("[tool.agentgauge]\n")
    assert prices_for_run(start=tmp_path) is DEFAULT_PRICES


def test_eval_prices_option(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from agentgauge.cli import app

    root = Path(__file__).resolve().parents[2]
    agent, evalset = (
        root / "examples" / "calculator" / "agent.py",
        root / "examples" / "calculator" / "calculator.evalset.json",
    )
    bad = tmp_path / "prices.json"
    bad.write_text('{"models": {"m": {"input": "cheap", "output": 1}}}')
    out = tmp_path / "out"
    result = CliRunner().invoke(app, ["eval", str(agent), str(evalset), "--prices", str(bad), "--output-dir", str(out)])
    assert result.exit_code == 2
    assert result.stderr.strip() == f'error: {bad}: models.m.input: expected a non-negative number (got "cheap")'
    assert not out.exists()
    bad.write_text('{"models": {"m": {"input": 1, "output": 1}}}')
    result = CliRunner().invoke(app, ["eval", str(agent), str(evalset), "--prices", str(bad), "--output-dir", str(out)])
    assert result.exit_code == 0, result.output
