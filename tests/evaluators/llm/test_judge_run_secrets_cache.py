"""End to end through AgentEvaluator: the key is sent as a bearer token, never written, and a re-run is served
from the judge cache without a single request reaching the judge server."""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any

import pytest
from chat_server import ChatServer, Reply, error, ok
from llm_helpers import API_KEY, FAST_RETRY, adk_metric, registry, trpc_metric

from agentgauge.evaluators.llm import LLMJudgeEvaluator
from agentgauge.judges import JudgeSettings
from agentgauge.model import EvalCase, EvalMetric, EvalSet, EvalStatus, Invocation, Message
from agentgauge.run._evaluator import AgentEvaluator
from agentgauge.storage import InMemoryEvalSetManager, InMemoryMetricManager, LocalEvalResultManager

APP, SET = "judged", "capitals"


def judge_reply(body: dict[str, Any]) -> Reply:
    prompt = body["messages"][0]["content"]
    if "is_the_agent_response_valid: <valid or invalid>" in prompt:
        return ok("reasoning: same city\nis_the_agent_response_valid: valid")
    if "rubricScores" in prompt:
        return ok('{"rubricScores": [{"id": "r1", "score": 1, "reason": "names a city"}]}')
    if '"is_the_agent_response_valid": "valid" or "invalid"' in prompt:
        return ok('{"reasoning": "ok", "is_the_agent_response_valid": "valid"}')
    return error(400, "unexpected prompt")


def metrics(base_url: str) -> list[EvalMetric]:
    judge = {"providerName": "openai", "modelName": "judge-model", "baseURL": base_url, "apiKey": API_KEY}
    return [
        EvalMetric.model_validate(
            {
                "metricName": "llm_final_response",
                "threshold": 1.0,
                "criterion": {"llmJudge": {"judgeModel": {**judge, "numSamples": 3}}},
            }
        ),
        EvalMetric.model_validate(
            {
                "metricName": "llm_rubric_response",
                "threshold": 1.0,
                "criterion": {
                    "llmJudge": {"judgeModel": judge, "rubrics": [{"id": "r1", "content": {"text": "Names a city."}}]}
                },
            }
        ),
        EvalMetric.model_validate(
            {
                "metricName": "final_response_match_v2",
                "threshold": 1.0,
                "criterion": {
                    "adk": {
                        "threshold": 1.0,
                        "judge_model_options": {
                            "judge_model": "judge-model",
                            "base_url": base_url,
                            "api_key": API_KEY,
                            "num_samples": 2,
                        },
                    }
                },
            }
        ),
    ]


def eval_set() -> EvalSet:
    cases = [
        EvalCase(
            eval_id=f"case{i}",
            conversation=[
                Invocation(
                    user_content=Message(role="user", content=f"Capital of country {i}?"),
                    final_response=Message(role="assistant", content=f"City {i}"),
                )
            ],
        )
        for i in range(3)
    ]
    return EvalSet(eval_set_id=SET, eval_cases=cases)


async def agent(request: Any) -> str:
    return request.user_content.content.replace("Capital of country ", "City ").rstrip("?")


async def evaluate(server: ChatServer, out: Path) -> Any:
    sets, mets = InMemoryEvalSetManager(), InMemoryMetricManager()
    sets.put(APP, eval_set())
    mets.put_all(APP, SET, metrics(server.base_url))
    evaluator = AgentEvaluator(
        APP,
        agent,
        eval_set_manager=sets,
        metric_manager=mets,
        result_manager=LocalEvalResultManager(base_dir=out),
        judge_settings=JudgeSettings(cache_dir=out / ".judge_cache", retry=FAST_RETRY),
    )
    return await evaluator.evaluate(SET)


def files_containing(root: Path, needle: str) -> list[Path]:
    return [p for p in root.rglob("*") if p.is_file() and needle.encode() in p.read_bytes()]


async def test_key_is_sent_but_never_written_and_rerun_uses_cache(
    chat_server: ChatServer, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    chat_server.responder = judge_reply
    first = await evaluate(chat_server, tmp_path)
    assert first.overall_status is EvalStatus.PASSED
    # 3 cases × (3 + 1 + 2) samples.
    assert len(chat_server.requests) == 18
    assert {r.headers["authorization"] for r in chat_server.requests} == {f"Bearer {API_KEY}"}

    scores = {
        (case.eval_id, m.metric_name): m.score
        for case in first.eval_set_result.eval_case_results
        for m in case.overall_eval_metric_results
    }
    assert set(scores.values()) == {1.0} and len(scores) == 9

    (tmp_path / "result.json").write_text(first.eval_set_result.model_dump_json())
    cache_entries = list((tmp_path / ".judge_cache").rglob("*.json"))
    assert len(cache_entries) == 18
    assert files_containing(tmp_path, API_KEY) == []
    assert API_KEY not in caplog.text

    chat_server.requests.clear()
    second = await evaluate(chat_server, tmp_path)
    assert chat_server.requests == []  # everything came from the cache
    assert second.overall_status is EvalStatus.PASSED
    again = {
        (case.eval_id, m.metric_name): m.score
        for case in second.eval_set_result.eval_case_results
        for m in case.overall_eval_metric_results
    }
    assert again == scores


async def test_judge_failure_is_a_clean_case_failure_without_the_key(
    chat_server: ChatServer, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    chat_server.responder = lambda body: error(500, f"upstream failed for key {API_KEY}")
    result = await evaluate(chat_server, tmp_path)
    assert result.overall_status is EvalStatus.ERROR
    for case in result.eval_set_result.eval_case_results:
        assert case.final_eval_status is EvalStatus.ERROR  # the judge metric could not be scored
        assert case.error_message and "HTTP 500" in case.error_message
    (tmp_path / "result.json").write_text(json.dumps(result.eval_set_result.model_dump(mode="json")))
    assert files_containing(tmp_path, API_KEY) == []
    assert API_KEY not in caplog.text
    assert not list((tmp_path / ".judge_cache").rglob("*.json"))  # failures are never cached


@pytest.mark.parametrize(
    ("metric_name", "metric"),
    [
        ("llm_final_response", trpc_metric("llm_final_response", "http://127.0.0.1:9/v1")),
        ("final_response_match_v2", adk_metric("final_response_match_v2", "http://127.0.0.1:9/v1")),
    ],
)
def test_resolved_judge_config_repr_hides_the_key(metric_name: str, metric: EvalMetric) -> None:
    # The resolved config ends up in tracebacks and debug output; its raw criterion block holds the key.
    evaluator = registry().get(metric_name)
    assert isinstance(evaluator, LLMJudgeEvaluator)
    config = evaluator.read_config(metric)
    assert config.flag("no_such_flag") is False
    assert API_KEY not in repr(config)
