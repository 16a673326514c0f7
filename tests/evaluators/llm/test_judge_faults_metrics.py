"""Judge faults as metrics report them: invalid answers name the judge and the invocation, a judge that never
answers costs at most the configured ``timeout``, and a broken ``timeout`` is a configuration error."""

from __future__ import annotations

from typing import Any

import pytest
from chat_server import HANG, ChatServer, Reply, ok
from llm_helpers import adk_metric, inv, registry, trpc_metric

from agentgauge.errors import InputError
from agentgauge.evaluators import EvaluatorError
from agentgauge.model import EvalMetric, EvalStatus

VALID = "reasoning: fine\nis_the_agent_response_valid: valid"
HTML = Reply(200, "<html><body>Bad gateway</body></html>", content_type="text/html")


async def run(metric: EvalMetric, actuals: list[Any]) -> Any:
    evaluator = registry().resolve(metric)
    return await evaluator.evaluate(actuals, actuals, metric)


async def test_trpc_invalid_answer_fails_the_case_naming_judge_and_invocation(chat_server: ChatServer) -> None:
    # Invocation 1 is judged fine; every answer for invocation 2 is an HTML page.
    chat_server.responder = lambda body: HTML if "omega" in body["messages"][0]["content"] else ok(VALID)
    metric = trpc_metric("llm_final_response", chat_server.base_url)
    with pytest.raises(EvaluatorError) as info:
        await run(metric, [inv("alpha", "a"), inv("omega", "b")])
    assert str(info.value).startswith(
        f"llm_final_response: judge judge-model at {chat_server.base_url} returned an invalid answer for "
        "invocation 2: the body is not JSON (text/html): '<html><body>Bad gateway</body></html>' (3 attempt(s) in "
    )
    assert sum("omega" in r.prompt for r in chat_server.requests) == 3  # retried like a 5xx


async def test_adk_invalid_answer_leaves_the_invocation_not_evaluated(chat_server: ChatServer) -> None:
    chat_server.responder = lambda body: Reply(200, {"choices": [{"message": {"content": 7}}]})
    metric = adk_metric("final_response_match_v2", chat_server.base_url, threshold=0.5)
    result = await run(metric, [inv("q", "a")])
    [only] = result.per_invocation_results
    assert only.status is EvalStatus.NOT_EVALUATED
    assert only.reason.startswith(
        f"judge judge-model at {chat_server.base_url} returned an invalid answer for invocation 1: "
        "'choices[0].message.content' is an int, not a string (3 attempt(s) in "
    )
    assert "attribute" not in only.reason


@pytest.mark.parametrize("dialect", ["trpc", "adk"])
async def test_configured_timeout_bounds_a_judge_that_never_answers(chat_server: ChatServer, dialect: str) -> None:
    chat_server.responder = lambda body: HANG
    if dialect == "trpc":
        metric = trpc_metric("llm_final_response", chat_server.base_url)
        assert metric.criterion is not None and metric.criterion.llm_judge is not None
        metric.criterion.llm_judge["judgeModel"]["timeout"] = 0.5
    else:
        metric = adk_metric("final_response_match_v2", chat_server.base_url)
        assert metric.criterion is not None and metric.criterion.adk is not None
        metric.criterion.adk["judge_model_options"]["timeout"] = 0.5
    if dialect == "trpc":
        with pytest.raises(EvaluatorError, match=r"did not answer within its 0.5s time budget"):
            await run(metric, [inv("q", "a")])
    else:
        result = await run(metric, [inv("q", "a")])
        assert "did not answer within its 0.5s time budget" in result.per_invocation_results[0].reason


@pytest.mark.parametrize("value", [0, -1, "soon", True, float("inf")])
def test_a_broken_timeout_is_a_configuration_error(value: Any) -> None:
    metric = trpc_metric("llm_final_response", "http://127.0.0.1:9/v1")
    assert metric.criterion is not None and metric.criterion.llm_judge is not None
    metric.criterion.llm_judge["judgeModel"]["timeout"] = value
    with pytest.raises(InputError, match=r"metrics\[0\]\.criterion: llm_final_response: llmJudge\.judgeModel\.timeout"):
        registry().validate_metrics([metric])
