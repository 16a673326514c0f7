from __future__ import annotations

import json
import time

import pytest
from chat_server import ChatServer, error, ok
from llm_helpers import API_KEY, inv, registry, trpc_metric

from agentgauge.evaluators import EvaluatorError
from agentgauge.model import EvalMetric, EvalStatus, Tool

VALID = "reasoning: matches the reference\nis_the_agent_response_valid: valid"
INVALID = "reasoning: wrong number\nis_the_agent_response_valid: invalid"
RUBRICS = [
    {"id": "1", "content": {"text": "States the result 4."}},
    {"id": "2", "content": {"text": "Is one sentence."}},
]


async def run(server: ChatServer, metric: EvalMetric, actuals: list, expecteds: list | None = None):  # type: ignore[no-untyped-def]
    evaluator = registry().resolve(metric)
    return await evaluator.evaluate(actuals, expecteds if expecteds is not None else actuals, metric)


@pytest.mark.parametrize(
    ("answers", "score", "status"),
    [
        ([VALID, INVALID, VALID], 1.0, EvalStatus.PASSED),
        ([VALID, INVALID], 0.0, EvalStatus.FAILED),  # tie → failing side
        ([INVALID, INVALID, VALID], 0.0, EvalStatus.FAILED),
    ],
)
async def test_final_response_majority_vote(
    chat_server: ChatServer, answers: list[str], score: float, status: EvalStatus
) -> None:
    chat_server.queue(*(ok(a) for a in answers))
    metric = trpc_metric("llm_final_response", chat_server.base_url, samples=len(answers))
    result = await run(chat_server, metric, [inv("What is 2+2?", "It is 4")], [inv("What is 2+2?", "4")])
    assert (result.overall_score, result.overall_status) == (score, status)
    [only] = result.per_invocation_results
    assert only.reason.startswith("matches the reference" if score else "wrong number")
    assert len(chat_server.requests) == len(answers)
    prompt = chat_server.requests[0].prompt
    assert "It is 4" in prompt and "What is 2+2?" in prompt and "\n4\n" in prompt
    body = chat_server.requests[0].body
    assert body["max_tokens"] == 2000 and body["temperature"] == 0.8 and body["stream"] is False


async def test_final_response_average_over_invocations_uses_history_prefix(chat_server: ChatServer) -> None:
    chat_server.responder = lambda body: ok(VALID if "Paris" in body["messages"][0]["content"] else INVALID)
    metric = trpc_metric("llm_final_response", chat_server.base_url)
    actuals = [inv("capital of France?", "Paris"), inv("and of Spain?", "Lisbon")]
    expecteds = [inv("capital of France?", "Paris"), inv("and of Spain?", "Madrid")]
    result = await run(chat_server, metric, actuals, expecteds)
    assert [r.score for r in result.per_invocation_results] == [1.0, 0.0]
    assert result.overall_score == 0.5 and result.overall_status is EvalStatus.PASSED


async def test_rubric_response_json(chat_server: ChatServer) -> None:
    answer = {"rubricScores": [{"id": "1", "score": 1, "reason": "says 4"}, {"id": "2", "score": 0, "reason": "two"}]}
    chat_server.queue(ok("```json\n" + json.dumps(answer) + "\n```"))
    metric = trpc_metric("llm_rubric_response", chat_server.base_url, rubrics=RUBRICS)
    result = await run(chat_server, metric, [inv("What is 2+2?", "It is 4. Really.")])
    assert result.overall_score == 0.5
    [only] = result.per_invocation_results
    assert [(r.id, r.score, r.reason) for r in only.rubric_scores] == [("1", 1.0, "says 4"), ("2", 0.0, "two")]
    assert only.reason == "says 4\ntwo"
    body = chat_server.requests[0].body
    schema = body["response_format"]["json_schema"]
    assert schema["name"] == "rubric_response_scores" and schema["strict"] is True
    items = schema["schema"]["properties"]["rubricScores"]
    assert items["minItems"] == items["maxItems"] == 2
    assert items["items"]["properties"]["id"]["enum"] == ["1", "2"]
    prompt = chat_server.requests[0].prompt
    assert "1: States the result 4." in prompt and "<final_answer>\nIt is 4. Really.\n</final_answer>" in prompt


async def test_rubric_response_legacy_blocks(chat_server: ChatServer) -> None:
    chat_server.queue(
        ok(
            "ID: 1\nRubric: States the result 4.\nEvidence: 'It is 4'\nReason: correct\nVerdict: yes\n\n"
            "ID: 2\nRubric: Is one sentence.\nEvidence: 'It is 4.'\nReason: one sentence\nVerdict: YES\n"
        )
    )
    metric = trpc_metric("llm_rubric_response", chat_server.base_url, rubrics=RUBRICS)
    result = await run(chat_server, metric, [inv("What is 2+2?", "It is 4.")])
    assert result.overall_score == 1.0 and result.overall_status is EvalStatus.PASSED


async def test_unparseable_answer_fails_the_metric_with_snippet(chat_server: ChatServer) -> None:
    chat_server.queue(ok("I think the agent did great, honestly, ten out of ten!"))
    metric = trpc_metric("llm_rubric_response", chat_server.base_url, rubrics=RUBRICS)
    with pytest.raises(EvaluatorError) as info:
        await run(chat_server, metric, [inv()])
    message = str(info.value)
    assert message.startswith("llm_rubric_response: invocation 1:")
    assert "ten out of ten" in message


async def test_garbage_final_response_verdict_fails_cleanly(chat_server: ChatServer) -> None:
    chat_server.queue(ok("x" * 2000))
    metric = trpc_metric("llm_final_response", chat_server.base_url)
    with pytest.raises(EvaluatorError, match="is_the_agent_response_valid") as info:
        await run(chat_server, metric, [inv()])
    assert len(str(info.value)) < 600  # the raw answer is truncated


async def test_429_then_success_is_scored(chat_server: ChatServer) -> None:
    chat_server.queue(error(429, "rate limited", {"Retry-After": "0.2"}), ok(VALID))
    metric = trpc_metric("llm_final_response", chat_server.base_url)
    started = time.monotonic()
    result = await run(chat_server, metric, [inv()])
    assert time.monotonic() - started >= 0.2
    assert result.overall_score == 1.0 and len(chat_server.requests) == 2


async def test_persistent_500_fails_with_status(chat_server: ChatServer) -> None:
    chat_server.responder = lambda body: error(500, "internal")
    metric = trpc_metric("llm_final_response", chat_server.base_url)
    with pytest.raises(EvaluatorError, match=r"HTTP 500") as info:
        await run(chat_server, metric, [inv()])
    assert "after 3 attempt(s)" in str(info.value)
    assert API_KEY not in str(info.value)


async def test_knowledge_recall_uses_only_knowledge_tool_results(chat_server: ChatServer) -> None:
    chat_server.queue(ok('{"rubricScores": [{"id": "1", "score": 1, "reason": "doc k1 says so"}]}'))
    tools = [
        Tool(
            name="knowledge_search",
            arguments={"q": "x"},
            result={"documents": [{"id": "k1", "text": "Paris is the capital.", "score": 0.9, "extra": 1}]},
        ),
        Tool(
            name="knowledge_search_with_agentic_filter",
            result=json.dumps({"documents": [{"text": "Second.", "score": 0.5}], "message": "ok"}),
        ),
        Tool(name="web_search", result={"documents": [{"text": "IGNORED"}]}),
    ]
    metric = trpc_metric("llm_rubric_knowledge_recall", chat_server.base_url, rubrics=[RUBRICS[0]])
    result = await run(chat_server, metric, [inv("capital?", "FINAL-ANSWER-TEXT", tools=tools)])
    assert result.overall_score == 1.0
    prompt = chat_server.requests[0].prompt
    assert '{"documents":[{"id":"k1","text":"Paris is the capital.","score":0.9}]}' in prompt
    assert '{"documents":[{"text":"Second.","score":0.5}],"message":"ok"}' in prompt
    assert "IGNORED" not in prompt and "FINAL-ANSWER-TEXT" not in prompt
    assert chat_server.requests[0].body["response_format"]["json_schema"]["name"] == "rubric_knowledge_recall_scores"


async def test_knowledge_recall_without_results_and_with_bad_results(chat_server: ChatServer) -> None:
    chat_server.queue(ok('{"rubricScores": [{"id": "1", "score": 0, "reason": "nothing retrieved"}]}'))
    metric = trpc_metric("llm_rubric_knowledge_recall", chat_server.base_url, rubrics=[RUBRICS[0]])
    result = await run(chat_server, metric, [inv()])
    assert result.overall_score == 0.0
    assert "No knowledge search results were found." in chat_server.requests[0].prompt
    bad = [Tool(name="knowledge_search", result="not json")]
    with pytest.raises(EvaluatorError, match="knowledge search result 1 is not JSON"):
        await run(chat_server, metric, [inv(tools=bad)])


@pytest.mark.parametrize(
    ("llm_judge", "message"),
    [
        (None, "llmJudge criterion not configured"),
        ({"rubrics": RUBRICS}, "judgeModel not configured"),
        ({"judgeModel": {"modelName": "m", "numSamples": 0}}, "numSamples"),
    ],
)
async def test_broken_configuration_raises(llm_judge: dict | None, message: str) -> None:  # type: ignore[type-arg]
    from agentgauge.model import Criterion

    metric = EvalMetric(metric_name="llm_final_response", threshold=1, criterion=Criterion(llm_judge=llm_judge))
    with pytest.raises(EvaluatorError, match=message):
        await registry().resolve(metric).evaluate([inv()], [inv()], metric)


async def test_rubric_metrics_need_unique_rubrics(chat_server: ChatServer) -> None:
    for rubrics, message in [([], "rubrics is required"), ([RUBRICS[0], RUBRICS[0]], "duplicate rubric id")]:
        metric = trpc_metric("llm_rubric_response", chat_server.base_url, rubrics=rubrics)
        with pytest.raises(EvaluatorError, match=message):
            await run(chat_server, metric, [inv()])
    assert chat_server.requests == []


async def test_count_mismatch_and_no_invocations(chat_server: ChatServer) -> None:
    metric = trpc_metric("llm_final_response", chat_server.base_url)
    with pytest.raises(EvaluatorError, match=r"actual invocations \(1\) and expected invocations \(2\)"):
        await run(chat_server, metric, [inv()], [inv(), inv()])
    empty = await run(chat_server, metric, [], [])
    assert (empty.overall_score, empty.overall_status) == (0.0, EvalStatus.NOT_EVALUATED)


async def test_expected_final_response_required(chat_server: ChatServer) -> None:
    metric = trpc_metric("llm_final_response", chat_server.base_url)
    with pytest.raises(EvaluatorError, match="no finalResponse"):
        await run(chat_server, metric, [inv()], [inv(answer=None)])


async def test_injected_callable_judge_needs_no_judge_model() -> None:
    from agentgauge.model import Criterion

    seen: list[list[dict[str, str]]] = []

    def judge(messages: list[dict[str, str]]) -> str:
        seen.append(messages)
        return VALID

    metric = EvalMetric(metric_name="llm_final_response", threshold=1.0, criterion=Criterion(llm_judge={}))
    result = await registry(judge=judge).resolve(metric).evaluate([inv()], [inv()], metric)
    assert result.overall_score == 1.0
    assert len(seen) == 1 and seen[0][0]["role"] == "user"


def test_registry_validation_reports_broken_judge_config() -> None:
    from agentgauge.errors import InputError
    from agentgauge.model import Criterion

    bad = EvalMetric(metric_name="llm_rubric_response", threshold=1, criterion=Criterion(llm_judge={"rubrics": []}))
    with pytest.raises(InputError, match="judgeModel not configured"):
        registry().validate_metrics([bad])
    adk_bad = EvalMetric(
        metric_name="safety_v1", threshold=1, criterion=Criterion(adk={"threshold": 1, "judge_model_options": 3})
    )
    with pytest.raises(InputError, match="judge_model_options must be an object"):
        registry().validate_metrics([adk_bad])
    info = registry().info("llm_final_response")
    assert (info.needs_expected, info.needs_judge, info.min_value, info.max_value) == (True, True, 0.0, 1.0)
