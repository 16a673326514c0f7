"""ADK's multi-turn judge metrics on agentgauge's judge engine.

- ``multi_turn_task_success_v1``, ``multi_turn_trajectory_quality_v1``, ``multi_turn_tool_use_quality_v1``: ADK
  asks Vertex AI's rubric metrics; agentgauge asks any OpenAI-compatible judge to check built-in properties
  (:data:`~._multi_turn_prompts.BUILT_IN_RUBRICS`) against the whole conversation.
- ``rubric_based_multi_turn_trajectory_quality_v1``: the ``TRAJECTORY_QUALITY`` rubrics of the criterion, case and
  last invocation, checked against the whole conversation.

All four judge the conversation once, on the last invocation: turns 1..N-1 are ``not_evaluated`` and the last
turn's score (the mean of its property verdicts, each a per-property majority over samples) is the overall score,
as in ADK.

- ``per_turn_user_simulator_quality_v1``: scores a simulated user against the case's ``conversationScenario``. The
  first user message must be the scenario's starting prompt (1/0); every later one is judged for sticking to the
  plan (majority vote over samples); a stop signal sent now, after the last turn, must be judged valid or the last
  turn fails. Overall = sum of passing scores / number of turns.
"""

from __future__ import annotations

import asyncio
import functools
import re
from collections.abc import Sequence

from ...judges import JudgeAnswerError, JudgeClient, JudgeError
from ...model import EvalMetric, EvalStatus, Invocation, status_for_score
from .._base import EvaluateResult, PerInvocationResult, current_scenario
from .._common import check_counts
from ._adk import effective_rubrics
from ._aggregate import majority_vote, pooled_rubric_mean, rubric_majority_vote
from ._engine import JudgeMetric, LLMJudgeEvaluator
from ._multi_turn_prompts import (
    BUILT_IN_RUBRICS,
    MULTI_TURN_PROPERTIES,
    USER_SIMULATOR_TURN,
    focus,
    render_dialogue,
    render_history,
    render_persona,
)
from ._parsers import parse_adk_rubric_blocks
from ._prompts import adk_rubric_lines
from ._sample import JudgeConfig, Prompt, Sample
from ._text import user_text

__all__ = ["MULTI_TURN_METRICS", "USER_SIMULATOR_QUALITY", "MultiTurnEvaluator", "UserSimulatorQualityEvaluator"]

TRAJECTORY_QUALITY = "TRAJECTORY_QUALITY"
DEFAULT_STOP_SIGNAL = "</finished>"
"""ADK's default ``stop_signal`` of ``LlmBackedUserSimulatorCriterion``."""


def _properties_prompt(name: str) -> object:
    def construct(actuals: Sequence[Invocation], expecteds: Sequence[Invocation], cfg: JudgeConfig) -> Prompt:
        if name in BUILT_IN_RUBRICS:
            rubrics = BUILT_IN_RUBRICS[name]
        else:
            rubrics = effective_rubrics(cfg, TRAJECTORY_QUALITY, [actuals[-1], expecteds[-1] if expecteds else None])
        text = MULTI_TURN_PROPERTIES.format(
            focus=focus(name), dialogue=render_dialogue(actuals), rubrics=adk_rubric_lines(rubrics)
        )
        return Prompt([{"role": "user", "content": text}], None, rubrics)

    return construct


def _multi_turn(name: str, description: str, samples: int | None) -> JudgeMetric:
    return JudgeMetric(
        name=name,
        description=description,
        dialect="adk",
        needs_expected=False,
        construct=_properties_prompt(name),  # type: ignore[arg-type]
        score=lambda answer, prompt: parse_adk_rubric_blocks(answer, prompt.rubrics),
        aggregate_samples=lambda samples_, config: rubric_majority_vote(samples_),
        aggregate_invocations=pooled_rubric_mean,
        adk_default_samples=samples,
    )


_VERTEX = "ADK asks Vertex AI; agentgauge any OpenAI-compatible judge, with its own properties"
MULTI_TURN_METRICS: tuple[JudgeMetric, ...] = (
    _multi_turn(
        "multi_turn_task_success_v1",
        "LLM judge (ADK): did the agent achieve the user's goals over the whole conversation? judged once, on the "
        f"last turn; {_VERTEX}",
        1,
    ),
    _multi_turn(
        "multi_turn_trajectory_quality_v1",
        "LLM judge (ADK): quality of the agent's path over the whole conversation, judged once on the last turn; "
        f"{_VERTEX}",
        1,
    ),
    _multi_turn(
        "multi_turn_tool_use_quality_v1",
        f"LLM judge (ADK): tool use over the whole conversation, judged once on the last turn; {_VERTEX}",
        1,
    ),
    _multi_turn(
        "rubric_based_multi_turn_trajectory_quality_v1",
        "LLM judge (ADK): the whole conversation checked against TRAJECTORY_QUALITY rubrics, once on the last turn; "
        "per-rubric majority vote",
        None,
    ),
)


class MultiTurnEvaluator(LLMJudgeEvaluator):
    """Judges the whole conversation once, on the last invocation; earlier invocations are not evaluated."""

    async def evaluate(
        self, actuals: Sequence[Invocation], expecteds: Sequence[Invocation], metric: EvalMetric
    ) -> EvaluateResult:
        """Turns 1..N-1 ``not_evaluated``; the last turn's result is the overall result."""
        config = self.read_config(metric)
        check_counts(self.name, actuals, expecteds)
        if not actuals:
            return EvaluateResult(None, EvalStatus.NOT_EVALUATED)
        earlier = [
            self._not_evaluated(a, e, "") for a, e in zip(actuals[:-1], expecteds[:-1], strict=True)
        ]  # ADK leaves them without a reason
        try:
            client = self.client(config)
        except JudgeError as exc:
            last = self._not_evaluated(actuals[-1], expecteds[-1], f"judge unavailable: {exc}")
        else:
            last = await self._invocation(len(actuals) - 1, actuals, expecteds, config, client)
        status = last.status if last.score is not None else EvalStatus.NOT_EVALUATED
        return EvaluateResult(last.score, status, [*earlier, last], last.reason, list(last.rubric_scores))


# --- per_turn_user_simulator_quality_v1 ----------------------------------------------------------------------

_IS_VALID = re.compile(r'"is_valid":\s*\[*[\n\s]*"*([^"\]]*)"*[\n\s]*\]*\s*[,\n\}]')
_INVALID = frozenset({"invalid", "almost", "false", "partially_valid", "partially valid", "partially"})


def parse_user_turn_validity(text: str) -> Sample:
    """ADK's label parsing for the user-simulator judge: ``"is_valid": <label>``; valid/true → 1,
    invalid/almost/false/partially[_valid] → 0, anything else → no score."""
    match = _IS_VALID.search(text)
    if match is None:
        return Sample(None, "no 'is_valid' label in the judge answer")
    label = match.group(1).strip("}").replace(",", "").strip().lower()
    if label in _INVALID:
        return Sample(0.0, f"is_valid: {label}")
    if label in ("valid", "true"):
        return Sample(1.0, f"is_valid: {label}")
    return Sample(None, f"unrecognised label {label!r}")


USER_SIMULATOR_QUALITY = JudgeMetric(
    name="per_turn_user_simulator_quality_v1",
    description="LLM judge (ADK): does a simulated user follow the case's conversationScenario? (share of valid "
    "turns); first turn = starting prompt (1/0), later turns judged against the plan, stop signal checked",
    dialect="adk",
    needs_expected=False,
    aggregate_samples=lambda samples, config: majority_vote(samples, lambda s: s.score == 1.0),
    aggregate_invocations=pooled_rubric_mean,  # not used: the evaluator aggregates turns itself
)


class UserSimulatorQualityEvaluator(LLMJudgeEvaluator):
    """``per_turn_user_simulator_quality_v1``: the simulated user's turns checked against the case's scenario."""

    def __init__(self, pool: object) -> None:
        super().__init__(USER_SIMULATOR_QUALITY, pool)  # type: ignore[arg-type]

    async def _judge(
        self, index: int, message: str, history: Sequence[Invocation], actual: Invocation, expected: Invocation,
        config: JudgeConfig, client: JudgeClient, scenario: object,
    ) -> PerInvocationResult:  # fmt: skip
        text = USER_SIMULATOR_TURN.format(
            stop_signal=self._stop_signal(config),
            plan=getattr(scenario, "conversation_plan", None) or "(no plan given)",
            persona=render_persona(getattr(scenario, "user_persona", None)),
            history=render_history(history),
            message=message,
        )
        prompt = Prompt([{"role": "user", "content": text}])
        try:
            return await self.vote(functools.partial(self.sample, prompt, config, client), actual, expected, config)
        except JudgeAnswerError as exc:
            return self._not_evaluated(actual, expected, exc.for_invocation(index + 1))
        except JudgeError as exc:
            return self._not_evaluated(actual, expected, f"judge failed: {exc}")

    def score_answer(self, answer: str, prompt: Prompt, config: JudgeConfig) -> Sample:
        """The judge's ``is_valid`` label as 1 / 0 (no score when missing or unknown)."""
        return parse_user_turn_validity(answer)

    @staticmethod
    def _stop_signal(config: JudgeConfig) -> str:
        value = config.flags.get("stop_signal", config.flags.get("stopSignal"))
        return value if isinstance(value, str) and value else DEFAULT_STOP_SIGNAL

    async def evaluate(
        self, actuals: Sequence[Invocation], expecteds: Sequence[Invocation], metric: EvalMetric
    ) -> EvaluateResult:
        """First turn against the starting prompt, later turns and the stop signal by the judge."""
        config = self.read_config(metric)
        check_counts(self.name, actuals, expecteds)
        scenario = current_scenario()
        if not actuals:
            return EvaluateResult(None, EvalStatus.NOT_EVALUATED)
        if scenario is None or not scenario.starting_prompt:
            reason = "needs the case's conversationScenario with a starting prompt (a simulated conversation)"
            per = [self._not_evaluated(a, e, reason) for a, e in zip(actuals, expecteds, strict=True)]
            return EvaluateResult(None, EvalStatus.NOT_EVALUATED, per, reason)
        first_text = user_text(actuals[0])
        first_score = float(first_text.strip() == scenario.starting_prompt.strip())
        reason = "the first user message is the starting prompt" if first_score else (
            "the first user message is not the scenario's starting prompt"
        )  # fmt: skip
        first = PerInvocationResult(
            actuals[0], expecteds[0], first_score, status_for_score(first_score, config.threshold), reason
        )
        try:
            client = self.client(config)
        except JudgeError as exc:
            why = f"judge unavailable: {exc}"
            later = [self._not_evaluated(a, e, why) for a, e in zip(actuals[1:], expecteds[1:], strict=True)]
            return self._overall([first, *later], config.threshold)
        jobs = [
            self._judge(i, user_text(actuals[i]), actuals[:i], actuals[i], expecteds[i], config, client, scenario)
            for i in range(1, len(actuals))
        ]
        stop = self._judge(
            len(actuals), self._stop_signal(config), actuals, actuals[-1], expecteds[-1], config, client, scenario
        )
        *later, stop_result = await asyncio.gather(*jobs, stop)
        results = [first, *later]
        if stop_result.status is EvalStatus.FAILED:  # stopping now would not be right: the last turn fails
            stop_result.reason = f"stop signal after the last turn: {stop_result.reason}".rstrip(": ")
            results[-1] = stop_result
        return self._overall(results, config.threshold)

    @staticmethod
    def _overall(results: list[PerInvocationResult], threshold: float) -> EvaluateResult:
        valid = sum(r.score for r in results if r.status is EvalStatus.PASSED and r.score is not None)
        score = valid / len(results)
        reason = "\n".join(f"turn {i + 1}: {r.reason}" for i, r in enumerate(results) if r.reason)
        return EvaluateResult(score, status_for_score(score, threshold), results, reason)
