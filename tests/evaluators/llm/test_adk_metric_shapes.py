"""ADK's 17 prebuilt metric names, configurations built with google-adk's own models, and our results read back by
ADK's ``EvalSetResult`` (judge metrics run against a scripted judge on 127.0.0.1)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from chat_server import ChatServer, ok
from llm_helpers import API_KEY, registry

adk_metrics = pytest.importorskip("google.adk.evaluation.eval_metrics", reason="google-adk is not installed")
adk_config = pytest.importorskip("google.adk.evaluation.eval_config")
adk_result = pytest.importorskip("google.adk.evaluation.eval_result")

from agentgauge.evaluators import Registry  # noqa: E402
from agentgauge.formats import parse_metrics, to_adk_result  # noqa: E402
from agentgauge.model import (  # noqa: E402
    ConversationScenario,
    EvalCase,
    EvalSetResult,
    Invocation,
    Message,
    TokenUsage,
    Tool,
)
from agentgauge.service import evaluate_case  # noqa: E402
from agentgauge.service._types import InferenceResult  # noqa: E402

JUDGE = {"judge_model": "judge-model", "num_samples": 3}


def test_every_prebuilt_adk_metric_is_registered() -> None:
    names = set(Registry().names())
    missing = [m.value for m in adk_metrics.PrebuiltMetrics if m.value not in names]
    assert missing == [] and len(adk_metrics.PrebuiltMetrics) == 17


def _adk_test_config(base_url: str | None) -> dict[str, Any]:
    options = adk_metrics.JudgeModelOptions(**JUDGE)
    config = adk_config.EvalConfig(
        criteria={
            "multi_turn_task_success_v1": 0.5,
            "multi_turn_tool_use_quality_v1": adk_metrics.BaseCriterion(threshold=0.25),
            "rubric_based_multi_turn_trajectory_quality_v1": adk_metrics.RubricsBasedCriterion(
                threshold=0.5,
                judge_model_options=options,
                rubrics=[
                    {"rubric_id": "r1", "rubric_content": {"text_property": "The agent used the weather tool."}},
                ],
            ),
            "per_turn_user_simulator_quality_v1": adk_metrics.LlmBackedUserSimulatorCriterion(
                threshold=1.0, judge_model_options=options, stop_signal="<bye/>"
            ),
        }
    )
    doc: dict[str, Any] = json.loads(config.model_dump_json(exclude_none=True))
    if base_url is None:
        return doc
    # Our judge runs on a loopback endpoint: the base URL and key ride in the options, as our ADK dialect allows
    # (ADK's Vertex-backed metrics have no judge options at all; ours name their judge the same way).
    for name in ("multi_turn_task_success_v1", "multi_turn_tool_use_quality_v1"):
        threshold = doc["criteria"][name]
        threshold = threshold["threshold"] if isinstance(threshold, dict) else threshold
        doc["criteria"][name] = {"threshold": threshold, "judge_model_options": {"judge_model": "j", "num_samples": 1}}
    for value in doc["criteria"].values():
        if isinstance(value, dict) and "judge_model_options" in value:
            value["judge_model_options"] |= {"base_url": base_url, "api_key": API_KEY}
    return doc


def test_adk_built_configs_parse_as_adk_does() -> None:
    doc = _adk_test_config(None)
    metrics = parse_metrics(json.dumps(doc))
    adk_list = adk_config.get_eval_metrics_from_config(adk_config.EvalConfig.model_validate(doc))
    assert [(m.metric_name, m.threshold) for m in metrics] == [(m.metric_name, m.threshold or 0.0) for m in adk_list]
    reg = registry()
    reg.validate_metrics(metrics)
    by_name = {m.metric_name: m for m in metrics}
    user_sim = reg.resolve(by_name["per_turn_user_simulator_quality_v1"])
    config = user_sim.read_config(by_name["per_turn_user_simulator_quality_v1"])  # type: ignore[attr-defined]
    raw = next(m for m in adk_list if m.metric_name == "per_turn_user_simulator_quality_v1").criterion
    # as ADK's evaluator reads its criterion
    adk_criterion = adk_metrics.LlmBackedUserSimulatorCriterion.model_validate(raw.model_dump())
    assert config.num_samples == adk_criterion.judge_model_options.num_samples == 3
    assert user_sim._stop_signal(config) == adk_criterion.stop_signal == "<bye/>"  # type: ignore[attr-defined]


def _answer(body: dict[str, Any]) -> Any:
    prompt = body["messages"][0]["content"]
    if "Message to check" in prompt:
        return ok(json.dumps({"reasoning": "fine", "is_valid": "valid"}))
    ids = [line.split("]")[0].removeprefix("* [id: ") for line in prompt.splitlines() if line.startswith("* [id: ")]
    return ok("\n\n".join(f"ID: {i}\nProperty: p\nRationale: ok\nVerdict: yes" for i in ids))


async def test_results_are_read_back_by_adk(chat_server: ChatServer) -> None:
    chat_server.responder = _answer
    metrics = parse_metrics(json.dumps(_adk_test_config(chat_server.base_url)))
    turns = [
        Invocation(
            invocation_id="i1",
            user_content=Message(content="Weather in Oslo?"),
            final_response=Message(role="assistant", content="3 degrees"),
            tools=[Tool(id="t1", name="get_weather", arguments={"city": "Oslo"}, result={"temp": 3})],
            duration=1.25,
            model_duration=1.0,
            tool_duration=0.1,
            usage=TokenUsage(input_tokens=120, output_tokens=30, total_tokens=150, model_calls=2, model="m"),
        ),
        Invocation(
            invocation_id="i2",
            user_content=Message(content="Thanks"),
            final_response=Message(role="assistant", content="Bye"),
            duration=0.5,
        ),
    ]
    case = EvalCase(
        eval_id="sim",
        conversation=[Invocation(user_content=t.user_content) for t in turns],
        conversation_scenario=ConversationScenario(starting_prompt="Weather in Oslo?", conversation_plan="Ask."),
    )
    inference = InferenceResult("app", "set", "sim", inferences=turns, session_id="s")
    result = await evaluate_case(case, inference, metrics, registry())
    assert result.error_message is None
    doc = to_adk_result(EvalSetResult(eval_set_id="set", eval_case_results=[result]))
    adk = adk_result.EvalSetResult.model_validate(doc)
    [case_result] = adk.eval_case_results
    overall = {m.metric_name: m for m in case_result.overall_eval_metric_results}
    assert list(overall) == [m.metric_name for m in metrics]
    assert overall["token_usage_v1"].eval_status.name == "INFORMATIONAL"
    assert overall["token_usage_v1"].details.token_usage_details.total_tokens == 75.0  # (150 + n/a as 0) / 2
    assert overall["invocation_duration_v1"].details.duration_details.total_seconds == 0.875
    assert overall["inference_call_count_v1"].score == 2.0  # only the first turn counted its model calls
    per = case_result.eval_metric_result_per_invocation
    first = {m.metric_name: m for m in per[0].eval_metric_results}
    assert first["invocation_duration_v1"].details.duration_details.framework_seconds == 0.15
    assert first["multi_turn_task_success_v1"].eval_status.name == "NOT_EVALUATED"  # judged on the last turn
    last = {m.metric_name: m for m in per[1].eval_metric_results}
    assert last["multi_turn_task_success_v1"].score == 1.0
    assert [s.rubric_id for s in overall["rubric_based_multi_turn_trajectory_quality_v1"].details.rubric_scores] == [
        "r1"
    ]
    assert overall["per_turn_user_simulator_quality_v1"].score == 1.0
    assert case_result.final_eval_status.name == "PASSED"
