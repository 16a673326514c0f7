from __future__ import annotations

import json
from typing import Any

import pytest
from chat_server import ChatServer, error, ok
from llm_helpers import API_KEY, adk_metric, inv, registry

from agentgauge.evaluators import EvaluateResult
from agentgauge.model import EvalMetric, EvalStatus, Invocation, Tool


def verdict(label: str, reasoning: str = "r") -> str:
    return json.dumps({"reasoning": reasoning, "is_the_agent_response_valid": label})


async def run(
    metric: EvalMetric, actuals: list[Invocation], expecteds: list[Invocation] | None = None, **settings: Any
) -> EvaluateResult:
    evaluator = registry(**settings).resolve(metric)
    return await evaluator.evaluate(actuals, expecteds if expecteds is not None else actuals, metric)


@pytest.mark.parametrize(
    ("labels", "score"),
    [(["valid", "invalid", "valid"], 1.0), (["valid", "invalid"], 0.0), (["invalid", "valid", "invalid"], 0.0)],
)
async def test_final_response_match_v2_majority(chat_server: ChatServer, labels: list[str], score: float) -> None:
    chat_server.queue(*(ok(verdict(label)) for label in labels))
    metric = adk_metric("final_response_match_v2", chat_server.base_url, samples=len(labels))
    result = await run(metric, [inv("2+2?", "four")], [inv("2+2?", "4")])
    assert result.overall_score == score
    assert len(chat_server.requests) == len(labels)
    assert chat_server.requests[0].headers["authorization"] == f"Bearer {API_KEY}"


async def test_final_response_match_v2_defaults_to_five_samples(chat_server: ChatServer) -> None:
    chat_server.responder = lambda body: ok(verdict("valid"))
    metric = EvalMetric(
        metric_name="final_response_match_v2",
        threshold=0.8,
        criterion={
            "adk": {
                "threshold": 0.8,
                "judge_model_options": {
                    "judge_model": "judge-model",
                    "base_url": chat_server.base_url,
                    "api_key": API_KEY,
                },
            }
        },
    )
    result = await run(metric, [inv()], [inv()])
    assert result.overall_score == 1.0 and len(chat_server.requests) == 5
    # ADK sends no default generation config of its own.
    assert "max_tokens" not in chat_server.requests[0].body and "temperature" not in chat_server.requests[0].body


async def test_final_response_match_v2_overall_is_valid_over_evaluated(chat_server: ChatServer) -> None:
    chat_server.queue(ok(verdict("valid")), ok("no label here at all"), ok(verdict("invalid")))
    metric = adk_metric("final_response_match_v2", chat_server.base_url, threshold=0.5)
    actuals = [inv("a", "1"), inv("b", "2"), inv("c", "3")]
    result = await run(metric, actuals, actuals)
    scores = [r.score for r in result.per_invocation_results]
    assert scores == [1.0, None, 0.0]
    assert result.per_invocation_results[1].status is EvalStatus.NOT_EVALUATED
    assert "no label here at all" in result.per_invocation_results[1].reason  # the raw answer, for debugging
    assert result.overall_score == 0.5 and result.overall_status is EvalStatus.PASSED


async def test_unparseable_only_gives_not_evaluated(chat_server: ChatServer) -> None:
    chat_server.queue(ok('{"is_the_agent_response_valid": "VALID"}'))
    metric = adk_metric("final_response_match_v2", chat_server.base_url)
    result = await run(metric, [inv()], [inv()])
    assert (result.overall_score, result.overall_status) == (None, EvalStatus.NOT_EVALUATED)
    assert "unrecognised label 'VALID'" in result.per_invocation_results[0].reason


async def test_persistent_500_leaves_invocation_not_evaluated(chat_server: ChatServer) -> None:
    chat_server.responder = lambda body: error(500, "down")
    metric = adk_metric("final_response_match_v2", chat_server.base_url)
    result = await run(metric, [inv()], [inv()])
    [only] = result.per_invocation_results
    assert only.status is EvalStatus.NOT_EVALUATED and "HTTP 500" in only.reason
    assert result.overall_status is EvalStatus.NOT_EVALUATED
    assert len(chat_server.requests) == 3


async def test_missing_key_for_default_gemini_judge_is_not_evaluated(monkeypatch: pytest.MonkeyPatch) -> None:
    for var in ("GEMINI_API_KEY", "GOOGLE_API_KEY", "OPENAI_API_KEY"):
        monkeypatch.delenv(var, raising=False)
    metric = EvalMetric(metric_name="final_response_match_v2", threshold=0.8, criterion={"adk": {"threshold": 0.8}})
    result = await run(metric, [inv()], [inv()])
    assert result.overall_status is EvalStatus.NOT_EVALUATED
    assert "$GEMINI_API_KEY" in result.per_invocation_results[0].reason


async def test_missing_reference_is_not_evaluated(chat_server: ChatServer) -> None:
    metric = adk_metric("final_response_match_v2", chat_server.base_url)
    result = await run(metric, [inv()], [inv(answer=None)])
    assert result.per_invocation_results[0].status is EvalStatus.NOT_EVALUATED
    assert chat_server.requests == []


async def test_include_intermediate_responses_in_final(chat_server: ChatServer) -> None:
    chat_server.queue(ok(verdict("valid")))
    metric = adk_metric("final_response_match_v2", chat_server.base_url, include_intermediate_responses_in_final=True)
    await run(metric, [inv("q", "final words", intermediate=["thinking aloud"])], [inv("q", "x")])
    assert "thinking aloud\nfinal words" in chat_server.requests[0].prompt


async def test_response_evaluation_score_one_to_five(chat_server: ChatServer) -> None:
    chat_server.queue(ok('{"reasoning": "solid", "score": 4}'), ok('{"reasoning": "meh", "score": 2}'))
    metric = EvalMetric(
        metric_name="response_evaluation_score",
        threshold=3.5,
        criterion={
            "adk": {
                "threshold": 3.5,
                "judge_model_options": {"judge_model": "m", "base_url": chat_server.base_url, "api_key": API_KEY},
            }
        },
    )
    actuals = [inv("a", "x"), inv("b", "y")]
    result = await run(metric, actuals, actuals)
    assert [r.score for r in result.per_invocation_results] == [4.0, 2.0]  # one sample each by default
    assert [r.status for r in result.per_invocation_results] == [EvalStatus.PASSED, EvalStatus.FAILED]
    assert result.overall_score == 3.0 and result.overall_status is EvalStatus.FAILED
    assert chat_server.requests[0].body["response_format"]["json_schema"]["name"] == "response_quality_score"
    info = registry().info("response_evaluation_score")
    assert (info.min_value, info.max_value, info.needs_expected, info.needs_judge) == (1.0, 5.0, True, True)


async def test_safety(chat_server: ChatServer) -> None:
    chat_server.queue(
        ok('{"reasoning": "harmless", "verdict": "safe"}'), ok('{"reasoning": "bad", "verdict": "unsafe"}')
    )
    metric = adk_metric("safety_v1", chat_server.base_url, threshold=0.8)
    actuals = [inv("hi", "hello"), inv("how to x", "do y")]
    result = await run(metric, actuals, [inv("hi", None), inv("how to x", None)])
    assert [r.score for r in result.per_invocation_results] == [1.0, 0.0]
    assert result.overall_score == 0.5 and result.overall_status is EvalStatus.FAILED


def rubric(rid: str, text: str, rtype: str | None = None) -> dict[str, Any]:
    out: dict[str, Any] = {"rubric_id": rid, "rubric_content": {"text_property": text}}
    if rtype:
        out["type"] = rtype
    return out


def blocks(*items: tuple[str, str, str]) -> str:
    return "\n\n".join(f"ID: {i}\nProperty: {p}\nRationale: because\nVerdict: {v}" for i, p, v in items)


async def test_rubric_final_response_quality(chat_server: ChatServer) -> None:
    chat_server.queue(
        ok(blocks(("concise", "Is concise.", "yes"), ("polite", "Is polite.", "no"))),
        ok(blocks(("concise", "Is concise.", "no"), ("polite", "Is polite.", "no"))),
        ok(blocks(("concise", "Is concise.", "yes"), ("polite", "Is polite.", "yes"))),
    )
    metric = adk_metric(
        "rubric_based_final_response_quality_v1",
        chat_server.base_url,
        samples=3,
        rubrics=[rubric("concise", "Is concise.")],
    )
    actual = inv(
        "q",
        "short answer",
        rubrics=[
            rubric("polite", "Is polite.", "FINAL_RESPONSE_QUALITY"),
            rubric("tools", "Uses the search tool.", "TOOL_USE_QUALITY"),  # other type: ignored
            rubric("untyped", "Anything."),  # untyped invocation rubric: ignored
        ],
    )
    result = await run(metric, [actual], [inv("q", None)])
    [only] = result.per_invocation_results
    # concise: yes/no/yes → 1; polite: no/no/yes → 0.
    assert [(r.id, r.score) for r in only.rubric_scores] == [("concise", 1.0), ("polite", 0.0)]
    assert only.score == 0.5 and result.overall_score == 0.5
    prompt = chat_server.requests[0].prompt
    assert "[id: concise] Is concise." in prompt and "[id: polite] Is polite." in prompt
    assert "Uses the search tool" not in prompt and "Anything." not in prompt


async def test_rubric_tool_use_quality_pools_rubric_scores(chat_server: ChatServer) -> None:
    chat_server.queue(
        ok(blocks(("t1", "Calls lookup.", "yes"))),
        ok(
            blocks(
                ("t1", "Calls lookup.", "no"), ("t2", "Passes the city.", "no"), ("t3", "Stops after one call.", "yes")
            )
        ),
    )
    metric = adk_metric(
        "rubric_based_tool_use_quality_v1", chat_server.base_url, rubrics=[rubric("t1", "Calls lookup.")]
    )
    second = inv(
        "weather?",
        "sunny",
        tools=[Tool(name="lookup", arguments={"city": "Oslo"}, result={"sky": "clear"})],
        rubrics=[
            rubric("t2", "Passes the city.", "TOOL_USE_QUALITY"),
            rubric("t3", "Stops after one call.", "TOOL_USE_QUALITY"),
        ],
    )
    result = await run(metric, [inv(), second], [inv(), inv("weather?", None)])
    assert [r.score for r in result.per_invocation_results] == [1.0, pytest.approx(1 / 3)]
    assert result.overall_score == 0.5  # pooled: (1 + 0 + 0 + 1) / 4
    assert [(r.id, r.score) for r in result.rubric_scores] == [("t1", 0.5), ("t2", 0.0), ("t3", 1.0)]
    assert 'lookup({"city": "Oslo"}) -> {"sky": "clear"}' in chat_server.requests[1].prompt


async def test_rubric_metric_without_rubrics_is_not_evaluated(chat_server: ChatServer) -> None:
    metric = adk_metric("rubric_based_final_response_quality_v1", chat_server.base_url)
    result = await run(metric, [inv(rubrics=[rubric("x", "untyped")])], [inv()])
    assert result.overall_status is EvalStatus.NOT_EVALUATED
    assert result.per_invocation_results[0].reason == "Rubrics are required."
    assert chat_server.requests == []


async def test_rubric_answer_unparseable_is_not_evaluated_with_snippet(chat_server: ChatServer) -> None:
    chat_server.queue(ok("Looks fine to me."))
    metric = adk_metric(
        "rubric_based_final_response_quality_v1", chat_server.base_url, rubrics=[rubric("c", "Is concise.")]
    )
    result = await run(metric, [inv()], [inv()])
    assert result.overall_status is EvalStatus.NOT_EVALUATED
    assert "Looks fine to me." in result.per_invocation_results[0].reason


def hallucination_judge(messages: list[dict[str, str]]) -> str:
    prompt = messages[0]["content"]
    if prompt.startswith("Split the text"):
        text = prompt.split("Text:\n", 1)[1].strip()
        return "\n".join(f"<sentence>{s.strip()}.</sentence>" for s in text.split(".") if s.strip())
    out = []
    for line in prompt.splitlines():
        if line.startswith('<sentence id="'):
            sentence = line.split(">", 1)[1].removesuffix("</sentence>")
            label = "supported" if "Oslo" in sentence else ("not_applicable" if "Bye" in sentence else "unsupported")
            out.append(f"sentence: {sentence}\nlabel: {label}\nrationale: r\nsupporting_excerpt: none")
    return "\n\n".join(out)


async def test_hallucinations_segment_then_validate() -> None:
    calls: list[str] = []

    def judge(messages: list[dict[str, str]]) -> str:
        calls.append(messages[0]["content"])
        return hallucination_judge(messages)

    metric = EvalMetric(metric_name="hallucinations_v1", threshold=0.5, criterion={"adk": {"threshold": 0.5}})
    actual = inv(
        "weather?",
        "It is clear in Oslo. It is 40 degrees. Bye",
        tools=[Tool(id="c1", name="lookup", arguments={"city": "Oslo"}, result={"sky": "clear"})],
        intermediate=["Checking Oslo now"],
    )
    result = await run(metric, [actual], [actual], judge=judge)
    [only] = result.per_invocation_results
    assert only.score == pytest.approx(2 / 3)  # supported, unsupported, not_applicable
    assert "[unsupported] It is 40 degrees." in only.reason
    assert len(calls) == 2  # intermediate responses are skipped unless asked for
    validator = calls[1]
    assert '"name": "lookup"' in validator and '"output": {"sky": "clear"}' in validator

    calls.clear()
    flagged = EvalMetric(
        metric_name="hallucinations_v1",
        threshold=0.5,
        criterion={"adk": {"threshold": 0.5, "evaluate_intermediate_nl_responses": True}},
    )
    result = await run(flagged, [actual], [actual], judge=judge)
    assert len(calls) == 4
    assert result.overall_score == pytest.approx((1.0 + 2 / 3) / 2)  # mean of step scores


async def test_hallucinations_without_text_is_not_evaluated() -> None:
    metric = EvalMetric(metric_name="hallucinations_v1", threshold=0.5, criterion={"adk": {"threshold": 0.5}})
    result = await run(metric, [inv(answer=None)], [inv()], judge=hallucination_judge)
    assert result.overall_status is EvalStatus.NOT_EVALUATED
    assert result.per_invocation_results[0].reason == "no natural-language response to check"


async def test_adk_metric_reads_native_llm_judge_block(chat_server: ChatServer) -> None:
    chat_server.queue(ok(verdict("valid")))
    metric = EvalMetric(
        metric_name="final_response_match_v2",
        threshold=1.0,
        criterion={"llmJudge": {"judgeModel": {"modelName": "m", "baseURL": chat_server.base_url, "apiKey": API_KEY}}},
    )
    result = await run(metric, [inv()], [inv()])
    assert result.overall_score == 1.0 and len(chat_server.requests) == 1


async def test_case_rubrics_in_criterion_count_only_when_typed(chat_server: ChatServer) -> None:
    chat_server.queue(ok(blocks(("c", "Is concise.", "yes"), ("typed", "Typed case rubric.", "yes"))))
    metric = adk_metric(
        "rubric_based_final_response_quality_v1",
        chat_server.base_url,
        rubrics=[
            rubric("c", "Is concise."),  # the criterion's own rubric: always used
            {**rubric("typed", "Typed case rubric.", "FINAL_RESPONSE_QUALITY"), "source": "case"},
            {**rubric("untyped", "Untyped case rubric."), "source": "case"},
            {**rubric("other", "Tool case rubric.", "TOOL_USE_QUALITY"), "source": "case"},
        ],
    )
    result = await run(metric, [inv()], [inv()])
    prompt = chat_server.requests[0].prompt
    assert "Typed case rubric." in prompt and "Untyped case rubric." not in prompt and "Tool case rubric." not in prompt
    assert [r.id for r in result.per_invocation_results[0].rubric_scores] == ["c", "typed"]
