"""Merging an eval case's own rubrics into (a copy of) the metrics that judge it."""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

from ..model import CaseRubric, Criterion, EvalCase, EvalMetric

__all__ = ["RubricError", "merge_case_rubrics"]


class RubricError(ValueError):
    """A case rubric cannot be attached (unknown metric, metric without a judge criterion, duplicate id)."""


def _native(rubric: CaseRubric, rubric_id: str) -> dict[str, Any]:
    entry: dict[str, Any] = {"id": rubric_id, "content": {"text": rubric.content.text if rubric.content else ""}}
    if rubric.description:
        entry["description"] = rubric.description
    if rubric.type:
        entry["type"] = rubric.type
    return entry


def _adk(rubric: CaseRubric, rubric_id: str) -> dict[str, Any]:
    # "source": "case" lets ADK's typed rubric metrics apply case rubrics only when their type matches the metric.
    entry: dict[str, Any] = {
        "rubric_id": rubric_id,
        "rubric_content": {"text_property": rubric.content.text if rubric.content else ""},
        "source": "case",
    }
    if rubric.description:
        entry["description"] = rubric.description
    if rubric.type:
        entry["type"] = rubric.type
    return entry


def _existing_ids(entries: list[Any]) -> set[str]:
    ids: set[str] = set()
    for entry in entries:
        if isinstance(entry, dict):
            value = entry.get("id", entry.get("rubric_id", entry.get("rubricId")))
            if isinstance(value, str):
                ids.add(value)
    return ids


def _attach(metric: EvalMetric, rubrics: list[tuple[int, CaseRubric]]) -> EvalMetric:
    criterion = metric.criterion or Criterion()
    if criterion.llm_judge is not None:
        block, key, convert = "llm_judge", "rubrics", _native
    elif criterion.adk is not None:
        block, key, convert = "adk", "rubrics", _adk
    else:
        raise RubricError(f"metric {metric.metric_name!r} has no llmJudge criterion to take the case rubrics")
    config = dict(getattr(criterion, block))
    entries = list(config.get(key) or [])
    seen = _existing_ids(entries)
    for index, rubric in rubrics:
        rubric_id = rubric.id or f"case_rubric_{index}"
        if rubric_id in seen:
            raise RubricError(f"duplicate rubric id {rubric_id!r} for metric {metric.metric_name!r}")
        seen.add(rubric_id)
        entries.append(convert(rubric, rubric_id))
    config[key] = entries
    new_criterion = criterion.model_copy(update={block: config})
    return metric.model_copy(update={"criterion": new_criterion})


def merge_case_rubrics(metrics: list[EvalMetric], case: EvalCase, *, skipped: Collection[str] = ()) -> list[EvalMetric]:
    """The metrics to score ``case`` with: copies of ``metrics`` with the case's rubrics attached.

    A rubric naming a ``metricName`` joins that metric's judge criterion (``llmJudge.rubrics``, or the ADK
    criterion's ``rubrics`` in ADK form); the metric must be configured and have such a criterion. A rubric
    without a metric name (ADK case rubrics) joins every ADK-dialect ``rubric_based_*`` metric. Missing ids
    become ``case_rubric_<i>`` (``i`` = position in the case's rubric list); a duplicate id is an error. A rubric
    naming a metric in ``skipped`` (left out of this run on purpose) is ignored. ``metrics`` themselves are never
    modified.
    """
    if not case.rubrics:
        return metrics
    names = {m.metric_name for m in metrics}
    by_metric: dict[str, list[tuple[int, CaseRubric]]] = {}
    unnamed: list[tuple[int, CaseRubric]] = []
    for index, rubric in enumerate(case.rubrics):
        if rubric.metric_name:
            if rubric.metric_name in skipped and rubric.metric_name not in names:
                continue
            if rubric.metric_name not in names:
                raise RubricError(
                    f"case rubric {rubric.id or f'case_rubric_{index}'!r} names metric {rubric.metric_name!r}, "
                    f"which is not configured (configured: {', '.join(sorted(names)) or 'none'})"
                )
            by_metric.setdefault(rubric.metric_name, []).append((index, rubric))
        else:
            unnamed.append((index, rubric))
    merged: list[EvalMetric] = []
    for metric in metrics:
        wanted = list(by_metric.get(metric.metric_name, []))
        criterion = metric.criterion
        if unnamed and criterion is not None and criterion.is_adk and metric.evaluator_key.startswith("rubric_based_"):
            wanted.extend(unnamed)
        merged.append(_attach(metric, sorted(wanted, key=lambda item: item[0])) if wanted else metric)
    return merged
