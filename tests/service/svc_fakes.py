"""Shared fakes for service and evaluator tests: a recording agent and small evaluators with controllable behaviour."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from agentgauge.agents import AgentOutput, AgentRequest
from agentgauge.evaluators import EvaluateResult, Evaluator, EvaluatorError, PerInvocationResult
from agentgauge.model import (
    EvalCase,
    EvalMetric,
    EvalSet,
    EvalStatus,
    Invocation,
    Message,
    RubricScore,
    SessionInput,
    Tool,
    status_for_score,
)


def inv(text: str, answer: str | None = None, invocation_id: str = "", **extra: Any) -> Invocation:
    """An invocation with a user text and (optionally) an expected assistant answer."""
    return Invocation(
        invocation_id=invocation_id,
        user_content=Message(role="user", content=text),
        final_response=Message(role="assistant", content=answer) if answer is not None else None,
        **extra,
    )


def case(eval_id: str, *turns: Invocation, **extra: Any) -> EvalCase:
    """A case with the given conversation and a session for user ``u``."""
    extra.setdefault("session_input", SessionInput(app_name="app", user_id="u", state={"k": 1}))
    return EvalCase(eval_id=eval_id, conversation=list(turns), **extra)


@dataclass
class RecordingAgent:
    """Echoes ``echo: <text>`` and records every request it receives."""

    requests: list[AgentRequest] = field(default_factory=list)

    async def run(self, request: AgentRequest) -> AgentOutput:
        self.requests.append(request)
        request.state["seen"] = request.state.get("seen", 0) + 1
        return AgentOutput(
            final_response=f"echo: {request.user_content.content}",
            tools=[Tool(id="t", name="echo", arguments={"text": request.user_content.content}, result="ok")],
        )


class ExactAnswer:
    """Scores 1 when the actual final response equals the expected one."""

    name = "exact_answer"
    description = "final response equals the expected one"

    async def evaluate(
        self, actuals: Sequence[Invocation], expecteds: Sequence[Invocation], metric: EvalMetric
    ) -> EvaluateResult:
        per = []
        for a, e in zip(actuals, expecteds, strict=True):
            got = a.final_response.content if a.final_response else None
            want = e.final_response.content if e.final_response else None
            score = 1.0 if got == want else 0.0
            reason = "" if score else f"{got!r} != {want!r}"
            per.append(PerInvocationResult(a, e, score, status_for_score(score, metric.threshold), reason))
        if not per:
            return EvaluateResult(None, EvalStatus.NOT_EVALUATED)
        overall = sum(p.score or 0.0 for p in per) / len(per)
        return EvaluateResult(overall, status_for_score(overall, metric.threshold), per)


@dataclass
class FuncEvaluator:
    """An evaluator whose behaviour is a function (to raise, return garbage, or count invocations)."""

    fn: Callable[[Sequence[Invocation], Sequence[Invocation], EvalMetric], EvaluateResult]
    name: str = "func"
    description: str = "test evaluator"
    metrics_seen: list[EvalMetric] = field(default_factory=list)

    async def evaluate(
        self, actuals: Sequence[Invocation], expecteds: Sequence[Invocation], metric: EvalMetric
    ) -> EvaluateResult:
        self.metrics_seen.append(metric)
        return self.fn(actuals, expecteds, metric)


class FakeRegistry:
    """Resolves metrics by ``evaluator_key`` from a dict."""

    def __init__(self, **evaluators: Evaluator) -> None:
        self.evaluators = evaluators

    def resolve(self, metric: EvalMetric) -> Evaluator:
        try:
            return self.evaluators[metric.evaluator_key]
        except KeyError:
            raise LookupError(f"unknown metric {metric.evaluator_key!r}") from None


class SetManager:
    """A minimal eval-set source over one eval set."""

    def __init__(self, eval_set: EvalSet) -> None:
        self.eval_set = eval_set

    def get(self, app_name: str, eval_set_id: str) -> EvalSet:
        assert eval_set_id == self.eval_set.eval_set_id
        return self.eval_set


def rubric_result(score: float, rubric_id: str) -> PerInvocationResult:
    """A per-invocation result carrying one rubric score (used to check mapping)."""
    return PerInvocationResult(
        Invocation(user_content=Message(content="x")),
        None,
        score,
        status_for_score(score, 0.5),
        f"reason {rubric_id}",
        [RubricScore(id=rubric_id, reason="r", score=score)],
    )


__all__ = [
    "EvaluatorError",
    "ExactAnswer",
    "FakeRegistry",
    "FuncEvaluator",
    "RecordingAgent",
    "SetManager",
    "case",
    "inv",
    "rubric_result",
]


def exact_answer_evaluator(cases: list[EvalCase], agent: object, **options: Any) -> Any:
    """An in-memory ``AgentEvaluator`` of app ``app`` over eval set ``set`` (``cases``) with the ``exact_answer``
    metric (threshold 1) and the given options."""
    from agentgauge.evaluators import Registry
    from agentgauge.run._evaluator import AgentEvaluator
    from agentgauge.storage import InMemoryEvalResultManager, InMemoryEvalSetManager, InMemoryMetricManager

    sets, metrics = InMemoryEvalSetManager(), InMemoryMetricManager()
    sets.put("app", EvalSet(eval_set_id="set", eval_cases=cases))
    metrics.put_all("app", "set", [EvalMetric(metric_name="exact_answer", threshold=1.0)])
    registry = Registry()
    registry.register(ExactAnswer())
    return AgentEvaluator(
        "app",
        agent,
        eval_set_manager=sets,
        metric_manager=metrics,
        registry=registry,
        result_manager=InMemoryEvalResultManager(),
        **options,
    )
