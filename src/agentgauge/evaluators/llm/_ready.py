"""Pre-flight for a run: every selected judge metric must be able to reach its judge before anything runs."""

from __future__ import annotations

from collections.abc import Collection, Iterable
from typing import TYPE_CHECKING, Protocol

from ...errors import InputError
from ...judges import JudgeConfigError
from .._base import EvaluatorError
from ._engine import LLMJudgeEvaluator

if TYPE_CHECKING:
    from ...model import EvalMetric
    from .._base import Evaluator

__all__ = ["check_judge_ready"]


class EvaluatorLookup(Protocol):
    """The two questions the pre-flight asks of a registry (:class:`~agentgauge.evaluators.Registry` answers them)."""

    def __contains__(self, name: object) -> bool:
        """Whether an evaluator is registered as ``name``."""
        ...

    def get(self, name: str) -> Evaluator:
        """The evaluator registered as ``name``."""
        ...


def check_judge_ready(
    registry: EvaluatorLookup, metrics: Iterable[EvalMetric], *, file: str | None = None, skip: Collection[str] = ()
) -> None:
    """Resolve the judge of every judge metric in ``metrics`` (config ``apiKey`` after ``${VAR}`` expansion, else
    the provider's key variable), so a configuration problem stops the run before any agent or judge is called.

    Raises :class:`~agentgauge.errors.InputError` (exit code 2 in the CLI) naming ``file`` and the metric's
    criterion there (:class:`~agentgauge.formats.MetricPaths`, from ``file``), e.g. ``[1].criterion:
    llm_final_response: no API key for judge provider 'openai' ...``.
    Keys found are registered for masking on the way. Metrics of an unknown name are left to
    ``Registry.validate_metrics``; metrics named in ``skip`` (left out of the run) are not checked.
    """
    from ...formats import MetricPaths

    paths = MetricPaths.of_file(file)
    for i, metric in enumerate(metrics):
        if metric.metric_name in skip or metric.evaluator_key not in registry:
            continue
        evaluator = registry.get(metric.evaluator_key)
        if not isinstance(evaluator, LLMJudgeEvaluator):
            continue
        try:
            evaluator.check_ready(metric)
        except (JudgeConfigError, EvaluatorError) as exc:
            message = str(exc)
            if not message.startswith(f"{metric.metric_name}:"):
                message = f"{metric.metric_name}: {message}"
            raise InputError(message, file=file, location=paths.criterion(i, metric)) from None
