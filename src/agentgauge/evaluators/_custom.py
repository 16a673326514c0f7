"""ADK ``custom_metrics``: a metric implemented by a Python function named by its code path in ``test_config.json``.

``{"criteria": {"my_metric": 0.5}, "custom_metrics": {"my_metric": {"code_config": {"name": "pkg.mod.fn"}}}}``

The function is imported as ADK imports it (``importlib.import_module`` of the path up to the last dot); when the
package is not importable from ``sys.path``, the folders around the metrics file and the current folder are tried
too (ADK's command line puts the agent's parent folder on the path). It is called with ADK's signature and
objects, ``fn(eval_metric, actual_invocations, expected_invocations, conversation_scenario)`` (google-adk must be
installed), may be async, and must return ADK's ``EvaluationResult``, whose scores, statuses, rubric scores and
efficiency details become the metric's results.
"""

from __future__ import annotations

import importlib
import inspect
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from ..model import EvalMetric, EvalStatus, Invocation, RubricScore, parse_status
from ._base import EvaluateResult, EvaluatorError, NamedEvaluator, PerInvocationResult, current_scenario

__all__ = ["CustomMetricEvaluator", "custom_function_path", "load_custom_function"]


def custom_function_path(metric: EvalMetric) -> str | None:
    """The ``code_config.name`` of an ADK custom metric, or ``None`` for other metrics."""
    ext = metric.extension
    custom = ext.get("custom_metric") if isinstance(ext, dict) else None
    if not isinstance(custom, dict):
        return None
    config = custom.get("code_config", custom.get("codeConfig"))
    name = config.get("name") if isinstance(config, dict) else None
    return name if isinstance(name, str) else ""


def _one_line(exc: BaseException) -> str:
    text = " ".join(str(exc).split())
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def load_custom_function(path: str, near: str | None = None) -> Callable[..., Any]:
    """Import the function ``pkg.mod.fn``; ``ValueError`` with one line saying why it cannot be used."""
    module_name, _, attr = path.rpartition(".")
    if not module_name or not attr:
        raise ValueError(f"{path!r} is not a code path of the form package.module.function")
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as first:
        extra = [Path.cwd()]
        if near:
            folder = Path(near).resolve().parent
            extra = [folder, folder.parent, folder.parent.parent, *extra]
        added = [str(p) for p in extra if str(p) not in sys.path]
        sys.path.extend(added)  # at the end: never shadow an installed module
        try:
            module = importlib.import_module(module_name)
        except ModuleNotFoundError:
            raise ValueError(f"cannot import {path!r} ({_one_line(first)})") from None
        except Exception as exc:
            raise ValueError(f"cannot import {path!r} ({_one_line(exc)})") from None
    except Exception as exc:  # the module itself raised while importing
        raise ValueError(f"cannot import {path!r} ({_one_line(exc)})") from None
    fn = getattr(module, attr, None)
    if fn is None:
        raise ValueError(f"cannot import {path!r}: module {module_name} has no function {attr}")
    if not callable(fn):
        raise ValueError(f"{path!r} is not callable")
    return fn  # type: ignore[no-any-return]


def _adk_status(value: Any) -> EvalStatus:
    name = getattr(value, "name", None)
    return parse_status(name if isinstance(name, str) else value)


def _rubric_scores(items: Any) -> list[RubricScore]:
    return [
        RubricScore(id=str(getattr(s, "rubric_id", "")), reason=getattr(s, "rationale", None) or "", score=s.score)
        for s in items or []
    ]


def _dump(details: Any) -> dict[str, Any] | None:
    return None if details is None else dict(details.model_dump())


class CustomMetricEvaluator(NamedEvaluator):
    """Runs one ADK custom metric function."""

    needs_expected = False
    needs_judge = False

    def __init__(self, name: str, path: str, fn: Callable[..., Any], description: str = "") -> None:
        super().__init__(name, description or f"ADK custom metric ({path})")
        self.path = path
        self.fn = fn

    def _adk_args(self, actuals: Sequence[Invocation], expecteds: Sequence[Invocation], metric: EvalMetric) -> Any:
        from google.adk.evaluation.conversation_scenarios import ConversationScenario
        from google.adk.evaluation.eval_case import Invocation as AdkInvocation
        from google.adk.evaluation.eval_metrics import BaseCriterion
        from google.adk.evaluation.eval_metrics import EvalMetric as AdkEvalMetric

        from ..formats._adk_write import invocation_to_adk

        adk = metric.criterion.adk if metric.criterion is not None and metric.criterion.adk is not None else {}
        # As ADK: the function gets a copy of the metric without a threshold (the criterion keeps it).
        eval_metric = AdkEvalMetric(
            metric_name=metric.metric_name,
            criterion=BaseCriterion.model_validate({"threshold": metric.threshold, **adk}),
            custom_function_path=self.path,
        )
        scenario = current_scenario()
        adk_scenario = None
        if scenario is not None:
            try:
                adk_scenario = ConversationScenario.model_validate(scenario.model_dump(mode="json", by_alias=False))
            except ValueError:
                adk_scenario = None
        actual = [AdkInvocation.model_validate(invocation_to_adk(inv)) for inv in actuals]
        expected = None if scenario is not None else [
            AdkInvocation.model_validate(invocation_to_adk(inv)) for inv in expecteds
        ]  # fmt: skip
        return eval_metric, actual, expected, adk_scenario

    async def evaluate(
        self, actuals: Sequence[Invocation], expecteds: Sequence[Invocation], metric: EvalMetric
    ) -> EvaluateResult:
        """Call the function with ADK's objects and map its ``EvaluationResult``."""
        try:
            args = self._adk_args(actuals, expecteds, metric)
        except ImportError:
            message = f"{self._name}: ADK custom metrics need google-adk: pip install 'agentgauge[adk]'"
            raise EvaluatorError(message) from None
        result = self.fn(*args)
        if inspect.isawaitable(result):
            result = await result
        if not hasattr(result, "per_invocation_results"):
            raise EvaluatorError(
                f"{self._name}: {self.path} returned {type(result).__name__}, expected ADK's EvaluationResult"
            )
        per_results = list(result.per_invocation_results or [])
        if per_results and len(per_results) != len(actuals):
            raise EvaluatorError(
                f"{self._name}: {self.path} returned {len(per_results)} per-invocation results for {len(actuals)} "
                "invocations"
            )
        if not per_results:  # the function scored the case only: its invocations are not evaluated
            per = [
                PerInvocationResult(a, e, None, EvalStatus.NOT_EVALUATED)
                for a, e in zip(actuals, expecteds, strict=True)
            ]
        else:
            per = [
                PerInvocationResult(
                    actual,
                    expected,
                    item.score,
                    _adk_status(item.eval_status),
                    rubric_scores=_rubric_scores(item.rubric_scores),
                    token_usage_details=_dump(getattr(item, "token_usage_details", None)),
                    duration_details=_dump(getattr(item, "duration_details", None)),
                )
                for actual, expected, item in zip(actuals, expecteds, per_results, strict=True)
            ]
        return EvaluateResult(
            result.overall_score,
            _adk_status(result.overall_eval_status),
            per,
            rubric_scores=_rubric_scores(getattr(result, "overall_rubric_scores", None)),
            token_usage_details=_dump(getattr(result, "overall_token_usage_details", None)),
            duration_details=_dump(getattr(result, "overall_duration_details", None)),
        )
