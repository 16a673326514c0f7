"""Builders shared by the LLM-judge metric tests."""

from __future__ import annotations

from typing import Any

from agentgauge.evaluators import Registry
from agentgauge.judges import JudgeSettings, RetryPolicy
from agentgauge.model import Criterion, EvalMetric, Invocation, Message, Tool

API_KEY = "sk-agentgauge-SECRET-9f8e7d6c5b4a"
FAST_RETRY = RetryPolicy(max_attempts=3, initial_delay=0.01, max_delay=0.02, jitter=0.0, request_timeout=5.0)


def inv(
    user: str = "What is 2+2?",
    answer: str | None = "4",
    *,
    tools: list[Tool] | None = None,
    intermediate: list[str] | None = None,
    **extra: Any,
) -> Invocation:
    return Invocation(
        user_content=Message(role="user", content=user),
        final_response=Message(role="assistant", content=answer) if answer is not None else None,
        tools=tools or [],
        intermediate_responses=[Message(role="assistant", content=t) for t in intermediate or []],
        **extra,
    )


def judge_model(base_url: str, *, samples: int = 1, **more: Any) -> dict[str, Any]:
    return {
        "providerName": "openai",
        "modelName": "judge-model",
        "baseURL": base_url,
        "apiKey": API_KEY,
        "numSamples": samples,
        **more,
    }


def trpc_metric(name: str, base_url: str, *, samples: int = 1, threshold: float = 0.5, **llm: Any) -> EvalMetric:
    return EvalMetric(
        metric_name=name,
        threshold=threshold,
        criterion=Criterion(llm_judge={"judgeModel": judge_model(base_url, samples=samples), **llm}),
    )


def adk_metric(
    name: str, base_url: str | None = None, *, samples: int = 1, threshold: float = 0.5, **crit: Any
) -> EvalMetric:
    options: dict[str, Any] = {"judge_model": "judge-model", "num_samples": samples}
    if base_url is not None:
        options |= {"base_url": base_url, "api_key": API_KEY}
    return EvalMetric(
        metric_name=name,
        threshold=threshold,
        criterion=Criterion(adk={"threshold": threshold, "judge_model_options": options, **crit}),
    )


def registry(**settings: Any) -> Registry:
    settings.setdefault("retry", FAST_RETRY)
    settings.setdefault("max_concurrency", 1)  # deterministic arrival order at the scripted server
    return Registry(judge_settings=JudgeSettings(**settings))
