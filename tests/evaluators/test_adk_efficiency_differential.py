"""The four efficiency metrics against Google ADK's own evaluators: identical scores, statuses and details.

Seeded random invocations (tool calls, model calls, token counts with gaps, timed and untimed turns) are built in
ADK's form, scored by ADK's ``_efficiency_evaluators`` and, after reading them with agentgauge's ADK reader, by
ours; and native invocations with usage are written in ADK form and scored by both.
"""

from __future__ import annotations

import asyncio
import random
from typing import Any

import pytest

eff = pytest.importorskip("google.adk.evaluation._efficiency_evaluators", reason="google-adk is not installed")
adk_case = pytest.importorskip("google.adk.evaluation.eval_case")
adk_eval_config = pytest.importorskip("google.adk.evaluation.eval_config")

from agentgauge.evaluators import Registry  # noqa: E402
from agentgauge.formats import parse_metrics  # noqa: E402
from agentgauge.formats._adk_read import invocation_from_adk  # noqa: E402
from agentgauge.formats._adk_write import invocation_to_adk  # noqa: E402
from agentgauge.model import EvalMetric, EvalStatus, Invocation, TokenUsage, Tool  # noqa: E402

ADK_EVALUATORS = {
    "tool_call_count_v1": eff._ToolCallCountV1Evaluator,
    "inference_call_count_v1": eff._InferenceCallCountV1Evaluator,
    "token_usage_v1": eff._TokenUsageV1Evaluator,
    "invocation_duration_v1": eff._InvocationDurationV1Evaluator,
}
META_KEYS = [
    "prompt_token_count",
    "candidates_token_count",
    "thoughts_token_count",
    "tool_use_prompt_token_count",
    "cached_content_token_count",
]


def _maybe(rng: random.Random, value: Any, p: float = 0.7) -> Any:
    return value if rng.random() < p else None


def _adk_invocation(rng: random.Random, k: int) -> dict[str, Any]:
    inv: dict[str, Any] = {
        "invocation_id": f"i{k}",
        "user_content": {"role": "user", "parts": [{"text": f"q{k}"}]},
        "final_response": {"role": "model", "parts": [{"text": f"a{k}"}]},
    }
    shape = rng.randrange(4)
    if shape == 0:  # the classic form: no events, hence no inference count or usage
        inv["intermediate_data"] = {
            "tool_uses": [{"id": f"c{k}{j}", "name": "t", "args": {}} for j in range(rng.randint(0, 3))],
            "tool_responses": [],
            "intermediate_responses": [],
        }
    elif shape > 1:
        events: list[dict[str, Any]] = []
        for j in range(rng.randint(0, 4)):
            event: dict[str, Any] = {"author": "agent"}
            if rng.random() < 0.5:
                call = {"id": f"c{k}{j}", "name": rng.choice(["a", "b"]), "args": {"x": j}}
                event["content"] = {"role": "model", "parts": [{"function_call": call}]}
            if rng.random() < 0.6:
                meta = {key: rng.randint(0, 500) for key in META_KEYS if rng.random() < 0.6}
                event["usage_metadata"] = meta
            if rng.random() < 0.5:
                event["model_version"] = "gemini-2.5-flash"
            events.append(event)
        inv["intermediate_data"] = {"invocation_events": events}
    if rng.random() < 0.7:
        inv["duration"] = round(rng.uniform(0.01, 5), 3)
        inv["model_duration"] = _maybe(rng, round(rng.uniform(0, 3), 3))
        inv["tool_duration"] = _maybe(rng, round(rng.uniform(0, 1), 3))
    return inv


def _adk(results: Any) -> tuple[Any, Any, list[Any], list[Any], list[Any], list[Any]]:
    per = results.per_invocation_results
    return (
        results.overall_score,
        results.overall_eval_status.name.lower(),
        [r.score for r in per],
        [r.eval_status.name.lower() for r in per],
        [r.token_usage_details.model_dump() if r.token_usage_details else None for r in per]
        + [results.overall_token_usage_details.model_dump() if results.overall_token_usage_details else None],
        [r.duration_details.model_dump() if r.duration_details else None for r in per]
        + [results.overall_duration_details.model_dump() if results.overall_duration_details else None],
    )


def _ours(name: str, actuals: list[Invocation]) -> tuple[Any, Any, list[Any], list[Any], list[Any], list[Any]]:
    evaluator = Registry().get(name)
    result = asyncio.run(evaluator.evaluate(actuals, actuals, EvalMetric(metric_name=name)))
    per = result.per_invocation_results
    return (
        result.overall_score,
        result.overall_status.value,
        [r.score for r in per],
        [r.status.value for r in per],
        [r.token_usage_details for r in per] + [result.token_usage_details],
        [r.duration_details for r in per] + [result.duration_details],
    )


def _close(a: Any, b: Any) -> bool:
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_close(a[k], b[k]) for k in a)
    if isinstance(a, list | tuple) and isinstance(b, list | tuple):
        return len(a) == len(b) and all(_close(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, float) or isinstance(b, float):
        return a is not None and b is not None and a == pytest.approx(b, rel=1e-12)
    return bool(a == b)


@pytest.mark.parametrize("name", list(ADK_EVALUATORS))
@pytest.mark.parametrize("seed", range(40))
def test_adk_files_score_as_in_adk(name: str, seed: int) -> None:
    rng = random.Random(seed * 31 + len(name))
    raw = [_adk_invocation(rng, k) for k in range(rng.randint(0, 4))]
    adk_invs = [adk_case.Invocation.model_validate(inv) for inv in raw]
    expected = _adk(asyncio.run(_evaluate(ADK_EVALUATORS[name](), adk_invs)))
    ours = _ours(name, [Invocation.model_validate(invocation_from_adk(inv, "t", "$")) for inv in raw])
    if not raw:  # ADK leaves details and score empty; so do we
        assert ours[:3] == (None, "informational", [])
        return
    if name != "token_usage_v1":
        expected = (*expected[:4], [d for d in expected[4] if d is not None], expected[5])
        ours = (*ours[:4], [d for d in ours[4] if d is not None], ours[5])
    if name != "invocation_duration_v1":
        expected = (*expected[:5], [d for d in expected[5] if d is not None])
        ours = (*ours[:5], [d for d in ours[5] if d is not None])
    assert _close(ours, expected), (ours, expected)


async def _evaluate(evaluator: Any, invs: list[Any]) -> Any:
    result = evaluator.evaluate_invocations(invs, None, None)
    return await result if asyncio.iscoroutine(result) else result


def _native(rng: random.Random, k: int) -> Invocation:
    usage = None
    if rng.random() < 0.8:
        inp, out, reasoning = rng.randint(0, 900), rng.randint(0, 300), _maybe(rng, rng.randint(0, 50), 0.4)
        usage = TokenUsage(  # as OpenAIAgent records it
            input_tokens=inp,
            prompt_tokens=inp,
            candidates_tokens=out,
            output_tokens=out + (reasoning or 0),
            total_tokens=inp + out + (reasoning or 0),
            reasoning_tokens=reasoning,
            cached_tokens=_maybe(rng, rng.randint(0, inp), 0.3),
            model_calls=rng.randint(1, 4),
            model="gpt-4o-mini",
            cost=0.001,
        )
    return Invocation(
        invocation_id=f"n{k}",
        user_content={"role": "user", "content": f"q{k}"},
        final_response={"role": "assistant", "content": "ok"},
        tools=[Tool(id=f"t{k}{j}", name="f", arguments={"j": j}, result={"v": j}) for j in range(rng.randint(0, 3))],
        duration=round(rng.uniform(0.1, 3), 3),
        model_duration=round(rng.uniform(0, 0.1), 3),
        tool_duration=_maybe(rng, 0.05),
        usage=usage,
    )


@pytest.mark.parametrize("name", list(ADK_EVALUATORS))
@pytest.mark.parametrize("seed", range(20))
def test_live_run_invocations_written_for_adk_score_the_same(name: str, seed: int) -> None:
    rng = random.Random(seed)
    natives = [_native(rng, k) for k in range(rng.randint(1, 4))]
    written = [invocation_to_adk(inv) for inv in natives]
    adk_invs = [adk_case.Invocation.model_validate(inv) for inv in written]  # ADK accepts what we write
    expected = _adk(asyncio.run(_evaluate(ADK_EVALUATORS[name](), adk_invs)))
    assert _close(_ours(name, natives), expected)
    back = [Invocation.model_validate(invocation_from_adk(inv, "t", "$")) for inv in written]
    for before, after in zip(natives, back, strict=True):  # everything but the cost survives the ADK form
        assert [t.model_dump() for t in after.tools] == [t.model_dump() for t in before.tools]
        assert after.duration == before.duration and after.tool_duration == before.tool_duration
        if before.usage is not None:
            assert after.usage is not None
            for field in ("input_tokens", "output_tokens", "total_tokens", "model_calls", "model", "reasoning_tokens"):
                assert getattr(after.usage, field) == getattr(before.usage, field), field


def test_test_config_gets_the_metrics_adk_appends() -> None:
    config = {"criteria": {"response_match_score": 0.7, "tool_trajectory_avg_score": 1.0}}
    adk_names = [
        m.metric_name
        for m in adk_eval_config.get_eval_metrics_from_config(adk_eval_config.EvalConfig.model_validate(config))
    ]
    import json

    assert [m.metric_name for m in parse_metrics(json.dumps(config))] == adk_names


def test_informational_never_decides_a_case() -> None:
    from agentgauge.model import summarize_statuses

    assert summarize_statuses([EvalStatus.INFORMATIONAL, EvalStatus.PASSED]) is EvalStatus.PASSED
    assert summarize_statuses([EvalStatus.INFORMATIONAL]) is EvalStatus.NOT_EVALUATED
