"""The judge-metric evaluator, composed from a messages constructor, a response scorer, a samples aggregator and
an invocations aggregator; the dialect decides how configuration is read and how failures surface."""

from __future__ import annotations

import asyncio
import functools
import math
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any, Literal, TypeVar

from ..._util.redact import redact
from ...criteria._base import CriterionError
from ...criteria._llm import DEFAULT_GENERATION_CONFIG, JudgeModelOptions, LLMCriterion, Rubric
from ...judges import (
    JudgeAnswerError,
    JudgeClient,
    JudgeEndpoint,
    JudgeError,
    JudgeParseError,
    JudgePool,
    snippet,
)
from ...model import EvalMetric, EvalStatus, Invocation, ScoreValue, status_for_score
from .._base import EvaluateResult, EvaluatorError, PerInvocationResult
from .._common import check_counts
from ._default_judge import default_judge_options
from ._sample import JudgeConfig, NotApplicable, Prompt, Sample

__all__ = [
    "Dialect",
    "InvocationsAggregator",
    "JudgeMetric",
    "LLMJudgeEvaluator",
    "MessagesConstructor",
    "ResponseScorer",
    "SamplesAggregator",
    "gather_fail_fast",
    "sample_result",
]

Dialect = Literal["trpc", "adk"]
MessagesConstructor = Callable[[Sequence[Invocation], Sequence[Invocation], JudgeConfig], Prompt]
"""Builds the judge prompt for the last invocation of the history prefixes it receives."""
ResponseScorer = Callable[[str, Prompt], Sample]
"""Turns one judge answer into a sample (raises ``JudgeParseError`` when the format is wrong)."""
SamplesAggregator = Callable[[Sequence[Sample], JudgeConfig], Sample]
"""Combines an invocation's samples into one (majority vote, mean, per-rubric vote)."""
InvocationsAggregator = Callable[[Sequence[PerInvocationResult], float], EvaluateResult]
"""Combines per-invocation results into the metric's overall result."""

T = TypeVar("T")


async def gather_fail_fast(factories: Sequence[Callable[[], Awaitable[T]]], limit: int = 0) -> list[T]:
    """Run the coroutines concurrently (at most ``limit`` at once; 0 = no limit); the first exception cancels the
    rest and propagates."""
    sem = asyncio.Semaphore(limit) if limit > 0 else None

    async def run(factory: Callable[[], Awaitable[T]]) -> T:
        if sem is None:
            return await factory()
        async with sem:
            return await factory()

    tasks = [asyncio.ensure_future(run(f)) for f in factories]
    if not tasks:
        return []
    try:
        _, pending = await asyncio.wait(tasks, return_when=asyncio.FIRST_EXCEPTION)
    except BaseException:
        for task in tasks:
            task.cancel()
        raise
    failed = [t for t in tasks if t.done() and not t.cancelled() and t.exception() is not None]
    if failed:
        for task in pending:
            task.cancel()
        await asyncio.gather(*pending, return_exceptions=True)
        raise failed[0].exception()  # type: ignore[misc]
    return [t.result() for t in tasks]


def sample_result(
    actual: Invocation, expected: Invocation | None, sample: Sample, threshold: float
) -> PerInvocationResult:
    """An invocation's result from the one sample that decides it (its score, reason, rubric items and value)."""
    return PerInvocationResult(
        actual,
        expected,
        sample.score,
        status_for_score(sample.score, threshold),
        sample.reason,
        list(sample.rubric_scores),
        value=sample.value,
    )


def with_typed_value(result: PerInvocationResult) -> PerInvocationResult:
    """``result`` with trpc-agent-go's typed value: a judge's boolean verdict or category as it answered, else its
    score as a number (trpc's judges all give one; an unscored result has none)."""
    if result.value is None and result.score is not None and math.isfinite(result.score):
        result.value = ScoreValue.of(result.score)
    return result


@dataclass(frozen=True, slots=True)
class JudgeMetric:
    """A judge metric as data: identity, dialect, value range and its four parts.

    ``adk_default_samples`` replaces ADK's default of 5 samples for metrics that ADK scores once (Vertex-backed
    metrics, hallucinations); an explicit ``num_samples`` still wins.
    """

    name: str
    description: str
    dialect: Dialect
    needs_expected: bool
    aggregate_samples: SamplesAggregator
    aggregate_invocations: InvocationsAggregator
    construct: MessagesConstructor | None = None
    score: ResponseScorer | None = None
    min_value: float = 0.0
    max_value: float = 1.0
    adk_default_samples: int | None = None

    def single_call(self) -> tuple[MessagesConstructor, ResponseScorer]:
        """The prompt builder and scorer of a one-call-per-sample metric (multi-call metrics such as
        ``hallucinations_v1`` have neither and override :meth:`LLMJudgeEvaluator.judge_invocation`)."""
        if self.construct is None or self.score is None:
            raise TypeError(f"judge metric {self.name!r} has no single-call prompt; its evaluator must override it")
        return self.construct, self.score


def _rubrics(raw: Any, where: str) -> tuple[Rubric, ...]:
    if raw is None:
        return ()
    if not isinstance(raw, list):
        raise EvaluatorError(f"{where}: rubrics must be a list")
    out = []
    for index, item in enumerate(raw):
        try:
            out.append(Rubric.model_validate(item))
        except CriterionError as exc:
            raise EvaluatorError(f"{where}: rubrics[{index}]: {exc}") from None
    return tuple(r for r in out if r.content is not None)


def _time_budget(raw: Any, where: str) -> float | None:
    """A configured judge ``timeout`` (seconds for one judge call, retries included); broken values raise."""
    if raw is None:
        return None
    if isinstance(raw, bool) or not isinstance(raw, int | float) or not raw > 0 or math.isinf(raw):
        raise EvaluatorError(f"{where}.timeout must be a positive number of seconds, got {snippet(repr(raw), 60)}")
    return float(raw)


def _from_case(rubric: Rubric) -> bool:
    return (rubric.model_extra or {}).get("source") == "case"


class LLMJudgeEvaluator:
    """An :class:`~agentgauge.evaluators.Evaluator` that asks a judge model, per invocation and sample.

    trpc dialect: configuration from ``criterion.llmJudge``; any judge failure (after retries) or unparseable
    answer raises :class:`EvaluatorError`, so the case fails with an error message. ADK dialect: configuration
    from ``criterion.adk`` (ADK ``test_config.json`` semantics); a failed sample leaves its invocation
    not evaluated, with the reason.
    """

    def __init__(self, metric: JudgeMetric, pool: JudgePool) -> None:
        self.metric = metric
        self.pool = pool

    @property
    def name(self) -> str:
        """The metric name."""
        return self.metric.name

    @property
    def description(self) -> str:
        """What the metric measures."""
        return self.metric.description

    # --- configuration -------------------------------------------------------------------------------------

    def read_config(self, metric: EvalMetric) -> JudgeConfig:
        """The judge settings of ``metric`` in this evaluator's dialect; broken config raises EvaluatorError."""
        criterion = metric.criterion_or_empty()
        if self.metric.dialect == "adk" and (criterion.adk is not None or criterion.llm_judge is None):
            merged = (criterion.llm_judge or {}).get("rubrics")
            return self._adk_config(metric, criterion.adk or {}, _rubrics(merged, self.metric.name))
        return self._trpc_config(metric, criterion.llm_judge)

    def validate_metric(self, metric: EvalMetric) -> None:
        """Check the metric's judge configuration before a run (EvaluatorError names the problem)."""
        self.read_config(metric)

    def _trpc_config(self, metric: EvalMetric, raw: dict[str, Any] | None) -> JudgeConfig:
        name = self.metric.name
        if raw is None and not self.pool.has_injected_judge:
            raise EvaluatorError(f"{name}: llmJudge criterion not configured")
        try:
            crit = LLMCriterion.from_dict(raw or {})
        except CriterionError as exc:
            raise EvaluatorError(f"{name}: {exc}") from None
        options = crit.judge_model
        if options is None and not self.pool.has_injected_judge:
            options = default_judge_options(self.pool.settings.default_judge_model, name)
        return JudgeConfig(
            metric_name=metric.metric_name,
            threshold=metric.threshold,
            options=options,
            rubrics=tuple(crit.usable_rubrics()),
            num_samples=options.samples if options else 1,
            sample_limit=crit.sample_parallelism if crit.sample_parallelism_enabled else 0,
            generation_config=options.effective_generation_config() if options else dict(DEFAULT_GENERATION_CONFIG),
            flags=raw or {},
            time_budget=_time_budget((options.model_extra or {}).get("timeout"), f"{name}: llmJudge.judgeModel")
            if options
            else None,
        )

    def _adk_config(self, metric: EvalMetric, block: dict[str, Any], case_rubrics: tuple[Rubric, ...]) -> JudgeConfig:
        name = self.metric.name
        raw_options = block.get("judge_model_options", block.get("judgeModelOptions"))
        if raw_options is not None and not isinstance(raw_options, dict):
            raise EvaluatorError(f"{name}: judge_model_options must be an object")
        try:
            options = JudgeModelOptions.from_adk(raw_options)
        except CriterionError as exc:
            raise EvaluatorError(f"{name}: judge_model_options: {exc}") from None
        explicit = raw_options is not None and any(k in raw_options for k in ("num_samples", "numSamples"))
        samples = options.samples
        if not explicit and self.metric.adk_default_samples is not None:
            samples = self.metric.adk_default_samples
        # Rubrics merged in from the eval case carry ``"source": "case"``; like ADK's invocation rubrics they
        # count only when their type matches the metric's.
        rubrics = _rubrics(block.get("rubrics"), name)
        from_case = tuple(r for r in rubrics if _from_case(r))
        return JudgeConfig(
            metric_name=metric.metric_name,
            threshold=metric.threshold,
            options=options,
            rubrics=tuple(r for r in rubrics if not _from_case(r)),
            num_samples=samples,
            sample_limit=options.parallelism_limit or 1,
            generation_config=options.effective_generation_config(),
            flags=block,
            case_rubrics=case_rubrics + from_case,
            time_budget=_time_budget((raw_options or {}).get("timeout"), f"{name}: judge_model_options"),
        )

    def check_ready(self, metric: EvalMetric) -> None:
        """Resolve the judge of ``metric`` (model, base URL, API key from config and environment) without calling
        it: :class:`EvaluatorError` for a broken criterion, :class:`~agentgauge.judges.JudgeConfigError` when the
        judge cannot be reached as configured (e.g. no API key for a hosted provider)."""
        self.client(self.read_config(metric))

    def client(self, config: JudgeConfig) -> JudgeClient:
        """The judge for ``config`` (the injected one when set); JudgeConfigError when it cannot be built."""
        if self.pool.has_injected_judge or config.options is None:
            return self.pool.injected()
        o = config.options
        endpoint = JudgeEndpoint.resolve(
            model=o.model_name,
            provider=o.provider_name,
            variant=o.variant,
            base_url=o.base_url,
            api_key=o.api_key,
            extra_fields=o.extra_fields,
        )
        return self.pool.for_endpoint(endpoint)

    # --- evaluation ----------------------------------------------------------------------------------------

    async def evaluate(
        self, actuals: Sequence[Invocation], expecteds: Sequence[Invocation], metric: EvalMetric
    ) -> EvaluateResult:
        """Judge every invocation (history prefix up to it), aggregate samples, then invocations."""
        name = self.metric.name
        config = self.read_config(metric)
        check_counts(name, actuals, expecteds)
        trpc = self.metric.dialect == "trpc"
        if not actuals:
            return EvaluateResult(0.0 if trpc else None, EvalStatus.NOT_EVALUATED)
        try:
            client = self.client(config)
        except JudgeError as exc:
            if trpc:
                raise EvaluatorError(f"{name}: {exc}") from None
            return self.metric.aggregate_invocations(
                [
                    self._not_evaluated(a, e, redact(f"judge unavailable: {exc}"))
                    for a, e in zip(actuals, expecteds, strict=True)
                ],
                config.threshold,
            )
        results = await gather_fail_fast(
            [
                functools.partial(self._invocation, i, actuals[: i + 1], expecteds[: i + 1], config, client)
                for i in range(len(actuals))
            ]
        )
        return self.metric.aggregate_invocations(results, config.threshold)

    @staticmethod
    def _not_evaluated(actual: Invocation, expected: Invocation | None, reason: str) -> PerInvocationResult:
        return PerInvocationResult(actual, expected, None, EvalStatus.NOT_EVALUATED, reason)

    async def _invocation(
        self,
        index: int,
        actuals: Sequence[Invocation],
        expecteds: Sequence[Invocation],
        config: JudgeConfig,
        client: JudgeClient,
    ) -> PerInvocationResult:
        actual, expected = actuals[-1], expecteds[-1]
        try:
            result = await self.judge_invocation(index, actuals, expecteds, config, client)
            return with_typed_value(result) if self.metric.dialect == "trpc" else result
        except NotApplicable as exc:
            return self._not_evaluated(actual, expected, str(exc))
        except JudgeAnswerError as exc:
            # "judge <model> at <URL> returned an invalid answer for invocation N: ..."
            if self.metric.dialect == "trpc":
                raise EvaluatorError(f"{self.metric.name}: {exc.for_invocation(index + 1)}") from None
            return self._not_evaluated(actual, expected, exc.for_invocation(index + 1))
        except JudgeError as exc:
            if self.metric.dialect == "trpc":
                raise EvaluatorError(f"{self.metric.name}: invocation {index + 1}: {exc}") from None
            return self._not_evaluated(actual, expected, f"judge failed: {exc}")

    async def judge_invocation(
        self,
        index: int,
        actuals: Sequence[Invocation],
        expecteds: Sequence[Invocation],
        config: JudgeConfig,
        client: JudgeClient,
    ) -> PerInvocationResult:
        """Build the prompt, draw ``num_samples`` answers, score and aggregate them (override for multi-call
        metrics). Raises NotApplicable or JudgeError; :meth:`evaluate` turns them into results per dialect."""
        prompt = self.build_prompt(actuals, expecteds, config)
        return await self.vote(
            functools.partial(self.sample, prompt, config, client), actuals[-1], expecteds[-1], config
        )

    async def vote(
        self, draw: Callable[[int], Awaitable[Sample]], actual: Invocation, expected: Invocation, config: JudgeConfig
    ) -> PerInvocationResult:
        """Draw ``num_samples`` samples (``draw(k)``, under the sample limit), aggregate them and make the
        invocation's result."""
        return sample_result(actual, expected, await self.best_sample(draw, config), config.threshold)

    async def best_sample(self, draw: Callable[[int], Awaitable[Sample]], config: JudgeConfig) -> Sample:
        """Draw ``num_samples`` samples (``draw(k)``, under the sample limit) and aggregate them into one."""
        samples = await gather_fail_fast(
            [functools.partial(draw, k) for k in range(config.num_samples)], config.sample_limit
        )
        return self.aggregate_samples(samples, config)

    async def sample(self, prompt: Prompt, config: JudgeConfig, client: JudgeClient, k: int) -> Sample:
        """One judge answer, scored. trpc: a parse failure raises; ADK: it becomes an unscored sample."""
        answer = await client.ask(
            prompt.messages,
            generation_config=config.generation_config,
            response_schema=prompt.schema,
            sample_index=k,
            time_budget=config.time_budget,
        )
        try:
            result = self.score_answer(answer, prompt, config)
        except JudgeParseError as exc:
            if self.metric.dialect == "trpc":
                raise
            return Sample(None, str(exc))
        if result.score is None and self.metric.dialect == "adk":
            result.reason = f"{result.reason}; judge answer: {snippet(answer) or '<empty>'}"
        return result

    def build_prompt(
        self, actuals: Sequence[Invocation], expecteds: Sequence[Invocation], config: JudgeConfig
    ) -> Prompt:
        """The judge prompt for the last invocation of the history prefixes (the metric's constructor)."""
        return self.metric.single_call()[0](actuals, expecteds, config)

    def score_answer(self, answer: str, prompt: Prompt, config: JudgeConfig) -> Sample:
        """One judge answer as a sample (the metric's scorer); a wrong format raises ``JudgeParseError``."""
        return self.metric.single_call()[1](answer, prompt)

    def aggregate_samples(self, samples: Sequence[Sample], config: JudgeConfig) -> Sample:
        """An invocation's samples combined into one (the metric's samples aggregator)."""
        return self.metric.aggregate_samples(samples, config)
