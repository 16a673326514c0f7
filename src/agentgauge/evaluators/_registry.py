"""The evaluator registry: metric name → evaluator, with the facts ``list-metrics`` shows."""

from __future__ import annotations

import math
from collections.abc import Callable, Collection, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..criteria import CompareRegistry
from ..errors import InputError, NotFoundError
from ..model import EvalMetric, Invocation
from ._assertions import assertion_evaluators
from ._base import FINAL_RESPONSE_DESCRIPTION, FINAL_RESPONSE_METRIC, EvaluateResult, Evaluator, EvaluatorError
from ._custom import CustomMetricEvaluator, custom_function_path, load_custom_function
from ._efficiency import efficiency_evaluators
from ._response_match import ResponseMatchEvaluator
from ._tool_parameter_match import ToolParameterMatchEvaluator
from ._trajectory import ToolTrajectoryEvaluator

if TYPE_CHECKING:
    from ..judges._settings import JudgeSettings

__all__ = ["MetricInfo", "Registry"]


@dataclass(frozen=True, slots=True)
class MetricInfo:
    """What a metric needs and produces: expected data?, a judge model?, and its value range."""

    name: str
    description: str
    needs_expected: bool
    needs_judge: bool
    min_value: float = 0.0
    max_value: float = 1.0


class _FinalResponseOnFirstUse:
    """``final_response_avg_score``, imported when a metric first uses it: its criteria (text, JSON, XML and ROUGE
    rules) are not needed by runs without the metric (~3 ms of every start-up). Behaves as the evaluator itself."""

    name = FINAL_RESPONSE_METRIC
    description = FINAL_RESPONSE_DESCRIPTION

    def __init__(self, compares: CompareRegistry) -> None:
        self._compares = compares
        self._loaded: Evaluator | None = None

    def _evaluator(self) -> Evaluator:
        if self._loaded is None:
            from ._final_response import FinalResponseEvaluator

            self._loaded = FinalResponseEvaluator(self._compares)
        return self._loaded

    def __getattr__(self, attribute: str) -> Any:
        if attribute.startswith("__"):  # copy/pickle probes: not the evaluator's business
            raise AttributeError(attribute)
        return getattr(self._evaluator(), attribute)

    async def evaluate(
        self, actuals: Sequence[Invocation], expecteds: Sequence[Invocation], metric: EvalMetric
    ) -> EvaluateResult:
        """Score with the final-response evaluator (imported now if it was not yet)."""
        return await self._evaluator().evaluate(actuals, expecteds, metric)


class Registry:
    """Evaluators by metric name. The built-in metrics are registered on construction.

    ``judge_settings`` travel to the LLM-judge metrics; ``compares`` holds the named custom comparisons that
    criteria refer to with ``compareName``. Lookups use ``metric.evaluator_key`` (``evaluatorName``, else
    ``metricName``). Registering a name again replaces the earlier evaluator.
    """

    def __init__(self, *, judge_settings: JudgeSettings | None = None, compares: CompareRegistry | None = None) -> None:
        self.judge_settings = judge_settings
        self.compares = compares if compares is not None else CompareRegistry()
        self._evaluators: dict[str, Evaluator] = {}
        self._infos: dict[str, MetricInfo] = {}
        self._customs: dict[tuple[str, str], CustomMetricEvaluator] = {}
        evaluator: Evaluator
        for evaluator in (
            ToolTrajectoryEvaluator(self.compares),
            _FinalResponseOnFirstUse(self.compares),
            ResponseMatchEvaluator(),
        ):
            self.register(
                evaluator,
                info=MetricInfo(evaluator.name, evaluator.description, needs_expected=True, needs_judge=False),
            )
        self.register(ToolParameterMatchEvaluator())
        for assertion in assertion_evaluators():
            self.register(assertion, info=MetricInfo(assertion.name, assertion.description, False, False))
        for efficiency in efficiency_evaluators():
            info = MetricInfo(efficiency.name, efficiency.description, False, False, 0.0, math.inf)
            self.register(efficiency, info=info)
        # The judge metrics are registered on first need (a lookup of a name not registered yet, or a listing):
        # importing them costs more than a whole short run that uses none. A name registered before that keeps its
        # evaluator, as if it had replaced the built-in one.
        self._judge_metrics_pending = True

    def _register_llm_builtins(self) -> None:
        if not self._judge_metrics_pending:
            return
        self._judge_metrics_pending = False
        from .llm import build_llm_evaluators

        for evaluator in build_llm_evaluators(self.judge_settings):
            m = evaluator.metric
            if m.name not in self._evaluators:
                info = MetricInfo(m.name, m.description, m.needs_expected, True, m.min_value, m.max_value)
                self.register(evaluator, name=m.name, info=info)

    def register(self, evaluator: Evaluator, *, name: str | None = None, info: MetricInfo | None = None) -> None:
        """Register ``evaluator`` under ``name`` (default ``evaluator.name``), replacing any earlier one.

        Without ``info`` the listing uses the evaluator's description, its optional ``needs_expected`` /
        ``needs_judge`` attributes (default: needs expected data, no judge) and the range [0, 1].
        """
        key = name or evaluator.name
        if not key:
            raise ValueError("an evaluator needs a non-empty name")
        if info is None:
            info = MetricInfo(
                key,
                evaluator.description,
                needs_expected=bool(getattr(evaluator, "needs_expected", True)),
                needs_judge=bool(getattr(evaluator, "needs_judge", False)),
            )
        elif info.name != key:
            info = MetricInfo(
                key, info.description, info.needs_expected, info.needs_judge, info.min_value, info.max_value
            )
        self._evaluators[key] = evaluator
        self._infos[key] = info

    def load_plugins(self, modules: Sequence[str] = (), *, start: Path | None = None) -> list[str]:
        """Register plug-ins: ``agentgauge.evaluators`` / ``agentgauge.compares`` / ``agentgauge.tokenizers`` entry
        points, ``[tool.agentgauge] plugins`` of the nearest ``pyproject.toml`` (searched from ``start``, default
        the current folder) and ``modules`` (each defines ``register(registry)``). Returns what was loaded; a
        plug-in that fails raises :class:`InputError` naming it."""
        from ._plugins import load_plugins

        return load_plugins(self, modules, start=start)

    def get(self, name: str) -> Evaluator:
        """The evaluator registered as ``name``; :class:`NotFoundError` listing the valid names otherwise."""
        if name not in self._evaluators:
            self._register_llm_builtins()
        try:
            return self._evaluators[name]
        except KeyError:
            raise NotFoundError(self._unknown(name)) from None

    def _unknown(self, name: str) -> str:
        """The message for an unregistered metric name, with the right spelling when only the case differs."""
        names = self.names()
        # ADK-TS's sample test_config.json spells the PrebuiltMetrics enum member (TOOL_TRAJECTORY_AVG_SCORE):
        # ADK (Python and TypeScript) registers the lower-case values only, so the name is refused there too.
        hint = next((f" (did you mean {n!r}? metric names are case-sensitive)" for n in names if n == name.lower()), "")
        return f"unknown metric {name!r}{hint}; valid metrics: {', '.join(names)}"

    def resolve(self, metric: EvalMetric) -> Evaluator:
        """The evaluator for ``metric`` (by ``evaluatorName``, else ``metricName``); an ADK custom metric
        (``custom_metrics`` in ``test_config.json``) runs its function instead."""
        if custom_function_path(metric) is not None:
            try:
                return self._custom(metric)
            except ValueError as exc:
                raise EvaluatorError(f"{metric.metric_name}: {exc}") from None
        return self.get(metric.evaluator_key)

    def _custom(self, metric: EvalMetric, file: str | None = None) -> CustomMetricEvaluator:
        """The evaluator of an ADK custom metric, its function imported once (``ValueError`` when it cannot be)."""
        path = custom_function_path(metric) or ""
        key = (metric.metric_name, path)
        evaluator = self._customs.get(key)
        if evaluator is None:
            ext = metric.extension if isinstance(metric.extension, dict) else {}
            description = str((ext.get("custom_metric") or {}).get("description") or "")
            evaluator = CustomMetricEvaluator(
                metric.metric_name, path, load_custom_function(path, near=file), description
            )
            self._customs[key] = evaluator
        return evaluator

    def names(self) -> list[str]:
        """Registered metric names, sorted."""
        self._register_llm_builtins()
        return sorted(self._evaluators)

    def info(self, name: str) -> MetricInfo:
        """The listing facts of ``name``; :class:`NotFoundError` when unknown."""
        self.get(name)
        return self._infos[name]

    def infos(self) -> list[MetricInfo]:
        """Listing facts of every registered metric, sorted by name."""
        return [self._infos[n] for n in self.names()]

    def __contains__(self, name: object) -> bool:
        if name not in self._evaluators:
            self._register_llm_builtins()
        return name in self._evaluators

    def check_judges_ready(
        self, metrics: Sequence[EvalMetric], *, file: str | None = None, skip: Collection[str] = ()
    ) -> None:
        """Resolve the judge of every judge metric in ``metrics`` before a run (see
        :func:`~agentgauge.evaluators.llm.check_judge_ready`); nothing to do, and nothing imported, without one.
        Metrics named in ``skip`` (left out of the run) are not checked; errors keep their positions in ``metrics``."""
        wanted = [m for m in metrics if m.metric_name not in skip]
        if any(m.evaluator_key in self and self.info(m.evaluator_key).needs_judge for m in wanted):
            from .llm import check_judge_ready

            check_judge_ready(self, metrics, file=file, skip=skip)

    def validate_metrics(
        self,
        metrics: Iterable[EvalMetric],
        *,
        file: str | None = None,
        warn: Callable[[str], None] | None = None,
        skip: Collection[str] = (),
    ) -> None:
        """Check metric names and criteria before a run; the first problem raises :class:`InputError`.

        The error names the metric's position (``metrics[2].criterion``) and, for an unknown name, lists the
        valid ones. With ``warn`` (file checks, not runs), a trpc judge metric without ``judgeModel`` is reported
        through ``warn`` instead: trpc gives that judge in code, and a run takes it from its options. Metrics
        named in ``skip`` (left out of the run) are not checked.
        """
        for i, metric in enumerate(metrics):
            if metric.metric_name in skip:
                continue
            if custom_function_path(metric) is not None:
                try:
                    self._custom(metric, file)
                except ValueError as exc:
                    where = f"custom_metrics.{metric.metric_name}.code_config.name"
                    raise InputError(f"{metric.metric_name}: {exc}", file=file, location=where) from None
                continue
            key = metric.evaluator_key
            if key not in self:
                field = "evaluatorName" if metric.evaluator_name else "metricName"
                raise InputError(
                    self._unknown(key),
                    file=file,
                    location=f"metrics[{i}].{field}",
                )
            lacks_judge = warn is not None and _lacks_judge_model(self._evaluators[key], metric)
            if lacks_judge and warn is not None:
                from .llm._default_judge import NO_JUDGE_HINT

                where = f"{file}: " if file else ""
                warn(
                    f"{where}metrics[{i}].criterion.llmJudge: {metric.metric_name}: judgeModel is not set; "
                    f"{NO_JUDGE_HINT} when running"
                )
            try:
                _parse_blocks(metric)
                check = getattr(self._evaluators[key], "validate_metric", None)
                if callable(check):
                    check(metric)
            except (ValueError, EvaluatorError) as exc:  # CriterionError and pydantic errors are ValueErrors
                from .llm._default_judge import NO_JUDGE_HINT, NoJudgeModelError

                if isinstance(exc, NoJudgeModelError):
                    if lacks_judge:
                        continue
                    raise InputError(
                        f"{metric.metric_name}: llmJudge.judgeModel not configured and no default judge: "
                        f"{NO_JUDGE_HINT}",
                        file=file,
                        location=f"metrics[{i}].criterion.llmJudge",
                    ) from None
                message = str(exc)
                # Evaluator errors usually start with the metric's name already; say it once.
                if not message.startswith(f"{metric.metric_name}:"):
                    message = f"{metric.metric_name}: {message}"
                raise InputError(message, file=file, location=f"metrics[{i}].criterion") from None


def _lacks_judge_model(evaluator: Evaluator, metric: EvalMetric) -> bool:
    """A judge metric configured by an ``llmJudge`` block (not ADK's ``judge_model_options``) without
    ``judgeModel``."""
    if getattr(getattr(evaluator, "metric", None), "dialect", None) is None:
        return False
    criterion = metric.criterion_or_empty()
    if criterion.adk is not None:
        return False
    block = criterion.llm_judge
    return block is not None and not any(block.get(k) for k in ("judgeModel", "judge_model"))


def _parse_blocks(metric: EvalMetric) -> None:
    """Parse every native criterion block present, whichever metric it is attached to."""
    from .. import criteria

    crit = metric.criterion
    if crit is None:
        return
    if crit.tool_trajectory is not None:
        criteria.ToolTrajectoryCriterion.model_validate(crit.tool_trajectory)
    if crit.final_response is not None:
        criteria.FinalResponseCriterion.model_validate(crit.final_response)
    if crit.llm_judge is not None:
        criteria.LLMCriterion.model_validate(crit.llm_judge)
