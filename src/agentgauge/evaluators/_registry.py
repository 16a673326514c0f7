"""The evaluator registry: metric name → evaluator, with the facts ``list-metrics`` shows."""

from __future__ import annotations

import math
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..criteria import CompareRegistry, UnknownCriterionKey
from ..errors import InputError, NotFoundError
from ..model import EvalMetric, Invocation
from ._assertions import assertion_evaluators
from ._base import FINAL_RESPONSE_DESCRIPTION, FINAL_RESPONSE_METRIC, EvaluateResult, Evaluator, EvaluatorError
from ._custom import CustomMetricEvaluator, custom_function_path, load_custom_function
from ._efficiency import efficiency_evaluators
from ._replay_fidelity import ReplayFidelityEvaluator
from ._response_match import ResponseMatchEvaluator
from ._tool_parameter_match import ToolParameterMatchEvaluator
from ._trajectory import ToolTrajectoryEvaluator

if TYPE_CHECKING:
    from ..formats import InputProblem, InputReport, MetricPaths
    from ..judges import ChatUsage, JudgePool
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
        replay = ReplayFidelityEvaluator()
        self.register(replay, info=MetricInfo(replay.name, replay.description, False, False))
        # The judge metrics are registered on first need (a lookup of a name not registered yet, or a listing):
        # importing them costs more than a whole short run that uses none. A name registered before that keeps its
        # evaluator, as if it had replaced the built-in one.
        self._judge_metrics_pending = True
        self._judge_pool: JudgePool | None = None

    def _register_llm_builtins(self) -> None:
        if not self._judge_metrics_pending:
            return
        self._judge_metrics_pending = False
        from ..judges import JudgePool
        from .llm import build_llm_evaluators

        self._judge_pool = JudgePool(self.judge_settings)
        for evaluator in build_llm_evaluators(pool=self._judge_pool):
            m = evaluator.metric
            if m.name not in self._evaluators:
                info = MetricInfo(m.name, m.description, m.needs_expected, True, m.min_value, m.max_value)
                self.register(evaluator, name=m.name, info=info)

    def judge_usage(self) -> dict[str, ChatUsage]:
        """What the built-in judge metrics' endpoint judges have used so far, by judge model (empty before one is
        needed)."""
        return self._judge_pool.usage() if self._judge_pool is not None else {}

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
        """The message for an unregistered metric name, with the closest registered one (and a word on case when
        only the case differs)."""
        from ..formats import did_you_mean

        names = self.names()
        # ADK-TS's sample test_config.json spells the PrebuiltMetrics enum member (TOOL_TRAJECTORY_AVG_SCORE):
        # ADK (Python and TypeScript) registers the lower-case values only, so the name is refused there too.
        hint = next((f" (did you mean {n!r}? metric names are case-sensitive)" for n in names if n == name.lower()), "")
        if not hint:
            close = did_you_mean(name, names)
            hint = f" (did you mean {close!r}?)" if close else ""
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
        skip: Collection[str] = (),
        report: InputReport | None = None,
        paths: MetricPaths | None = None,
        checking_file: bool = False,
    ) -> None:
        """Check metric names, criteria, thresholds and keys before a run; the first problem raises
        :class:`InputError` naming the metric's place in its file (``criteria.response_match`` in a
        ``test_config.json``, ``[1].metricName`` in a metrics array, ``evaluators[1].name`` in an agentevals
        ``eval_config.yaml``: ``paths``, by default read from ``file``).

        An unknown metric name gets the closest registered one; a threshold outside the metric's value range
        (:class:`MetricInfo`) is refused. Unknown keys (``orderSensitve``) go to ``report``, as warnings or, where
        the file's own tool refuses them, errors (the caller decides when to raise them: see
        :meth:`InputReport.raise_errors`); without ``report`` only the errors are raised. ``checking_file``: a trpc
        judge metric without ``judgeModel`` is a warning (trpc gives that judge in code, and a run takes it from its
        options). Metrics named in ``skip`` (left out of the run) are not checked.
        """
        from ..formats import InputReport, MetricPaths

        where = paths if paths is not None else MetricPaths.of_file(file)
        found = report if report is not None else InputReport()
        for i, metric in enumerate(metrics):
            if metric.metric_name not in skip:
                self._validate_metric(i, metric, file, where, found, checking_file)
        if report is None:
            found.raise_errors()

    def _validate_metric(
        self, i: int, metric: EvalMetric, file: str | None, paths: MetricPaths, report: InputReport, checking: bool
    ) -> None:
        from ..formats import metric_key_problems

        if custom_function_path(metric) is not None:
            try:
                self._custom(metric, file)
            except ValueError as exc:
                where = f"custom_metrics.{metric.metric_name}.code_config.name"
                raise InputError(f"{metric.metric_name}: {exc}", file=file, location=where) from None
            report.extend(metric_key_problems(metric, i, paths, file))
            return
        key = metric.evaluator_key
        if key not in self:
            raise InputError(self._unknown(key), file=file, location=paths.name(i, metric))
        report.extend(metric_key_problems(metric, i, paths, file))
        evaluator = self._evaluators[key]
        lacks_judge = checking and _lacks_judge_model(evaluator, metric)
        if lacks_judge:
            from .llm._default_judge import NO_JUDGE_HINT

            report.warn(
                file,
                f"{paths.criterion(i, metric)}.llmJudge",
                f"{metric.metric_name}: judgeModel is not set; {NO_JUDGE_HINT} when running",
            )
        try:
            report.extend(_criterion_key_problems(metric, paths.criterion(i, metric), file))
            check = getattr(evaluator, "validate_metric", None)
            if callable(check):
                check(metric)
        except (ValueError, EvaluatorError) as exc:  # CriterionError and pydantic errors are ValueErrors
            from .llm._default_judge import NO_JUDGE_HINT, NoJudgeModelError

            if isinstance(exc, NoJudgeModelError):
                if lacks_judge:
                    return
                raise InputError(
                    f"{metric.metric_name}: llmJudge.judgeModel not configured and no default judge: {NO_JUDGE_HINT}",
                    file=file,
                    location=f"{paths.criterion(i, metric)}.llmJudge",
                ) from None
            message = str(exc)
            # Evaluator errors usually start with the metric's name already; say it once.
            if not message.startswith(f"{metric.metric_name}:"):
                message = f"{metric.metric_name}: {message}"
            raise InputError(message, file=file, location=paths.criterion(i, metric)) from None
        self._check_threshold(i, metric, file, paths)

    def _check_threshold(self, i: int, metric: EvalMetric, file: str | None, paths: MetricPaths) -> None:
        """A threshold the metric's scores can never reach, or always pass (``80`` for a 0-1 score), is refused; a
        metric that gives none (the default 0) is not checked."""
        info = self._infos[metric.evaluator_key]
        threshold = metric.threshold
        if "threshold" not in metric.model_fields_set or info.min_value <= threshold <= info.max_value:
            return
        shown = f"{threshold:g}" if math.isfinite(threshold) else str(threshold)
        span = f"[{info.min_value:g}, {info.max_value:g}]"
        raise InputError(
            f"threshold {shown} is outside the range of {info.name}'s scores, {span}",
            file=file,
            location=paths.threshold(i, metric),
        )


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


def _criterion_key_problems(metric: EvalMetric, at: str, file: str | None) -> list[InputProblem]:
    """Parse every native criterion block present, whichever metric it is attached to, and name the keys no field
    of it reads (a warning: trpc-agent-go's criteria ignore unknown keys too); ``at`` is the criterion's path. (A
    trajectory assertion's settings refuse unknown keys when the evaluator parses them.)"""
    from .. import criteria
    from ..formats import unknown_key_problem

    crit = metric.criterion
    if crit is None:
        return []
    found: list[UnknownCriterionKey] = []
    blocks = (  # model names: the final-response and judge criteria are imported only when a metric has them
        ("toolTrajectory", crit.tool_trajectory, "ToolTrajectoryCriterion"),
        ("finalResponse", crit.final_response, "FinalResponseCriterion"),
        ("llmJudge", crit.llm_judge, "LLMCriterion"),
    )
    for name, raw, model in blocks:
        if raw is not None:
            found += getattr(criteria, model).model_validate(raw).unknown_keys(raw, name)
    who = "trpc-agent-go ignores it"
    return [unknown_key_problem(file, f"{at}.{path}", key, known, None, who) for path, key, known in found]
