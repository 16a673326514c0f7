"""The scoring dialect of ADK metrics: Google ADK's (Python) rules or ADK-TS's (``@iqai/adk``).

An ADK metric keeps its ``test_config.json`` criterion in ``criterion.adk``; ``"dialect": "adk-ts"`` in that block
makes the evaluators score it as ADK-TS does. The block gets it from ``"dialect": "adk-ts"`` at the top of a
``test_config.json`` or from ``eval --dialect adk-ts`` (:func:`with_scoring_dialect`).
"""

from __future__ import annotations

from typing import Any, Literal, get_args

from ..errors import InputError
from ..model import Criterion, EvalMetric

__all__ = [
    "ADK_SCORED_METRICS",
    "SCORING_DIALECTS",
    "ScoringDialectName",
    "check_dialect_name",
    "common_dialect",
    "with_scoring_dialect",
]

ScoringDialectName = Literal["adk", "adk-ts"]
SCORING_DIALECTS: tuple[str, ...] = get_args(ScoringDialectName)
"""The values of ``--dialect`` and of a ``test_config.json``'s ``dialect``."""

ADK_SCORED_METRICS = frozenset({"tool_trajectory_avg_score", "response_match_score"})
"""The metrics whose numbers differ between ADK and ADK-TS; a native metric of these names without a criterion
takes the dialect's rules under ``--dialect``."""


def check_dialect_name(value: Any, source: str, location: str) -> ScoringDialectName:
    """``value`` as a dialect name; :class:`InputError` naming the file and key otherwise."""
    if value == "adk":
        return "adk"
    if value == "adk-ts":
        return "adk-ts"
    raise InputError(
        f"unknown scoring dialect {value!r}: expected one of {', '.join(SCORING_DIALECTS)}",
        file=source,
        location=location,
    )


def _with_dialect(adk: dict[str, Any], dialect: ScoringDialectName) -> dict[str, Any]:
    out = {k: v for k, v in adk.items() if k != "dialect"}
    if dialect == "adk-ts":
        out["dialect"] = "adk-ts"
    return out


def with_scoring_dialect(metrics: list[EvalMetric], dialect: ScoringDialectName, source: str) -> list[EvalMetric]:
    """``metrics`` scored in ``dialect``: every ADK criterion takes it, and so does a native
    ``tool_trajectory_avg_score`` / ``response_match_score`` without a criterion (it becomes an ADK metric with its
    threshold). A native ``toolTrajectory`` block has trpc semantics of its own: such a metric is refused
    (:class:`InputError`), never scored by other rules than its file says."""
    out: list[EvalMetric] = []
    for i, metric in enumerate(metrics):
        crit = metric.criterion
        if crit is not None and crit.adk is not None:
            adk = _with_dialect(crit.adk, dialect)
            out.append(metric.model_copy(update={"criterion": crit.model_copy(update={"adk": adk})}))
        elif metric.metric_name in ADK_SCORED_METRICS and (crit is None or crit == Criterion()):
            adk = _with_dialect({"threshold": metric.threshold}, dialect)
            out.append(metric.model_copy(update={"criterion": Criterion(adk=adk)}))
        elif metric.metric_name in ADK_SCORED_METRICS and crit is not None and crit.tool_trajectory is not None:
            raise InputError(
                f"--dialect {dialect}: {metric.metric_name} has a native toolTrajectory criterion (trpc rules); "
                "remove the criterion, or run without --dialect",
                file=source,
                location=f"[{i}].criterion",
            )
        else:
            out.append(metric)
    return out


def common_dialect(metrics: list[EvalMetric]) -> ScoringDialectName | None:
    """The dialect every ADK criterion of ``metrics`` names, when they all name ``adk-ts`` (``None`` otherwise)."""
    blocks = [m.criterion.adk for m in metrics if m.criterion is not None and m.criterion.adk is not None]
    if blocks and all(block.get("dialect") == "adk-ts" for block in blocks):
        return "adk-ts"
    return None
