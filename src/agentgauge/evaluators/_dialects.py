"""Which rules score a metric: trpc-agent-go's, Google ADK's (Python) or ADK-TS's.

A metric read from a ``test_config.json`` (or ADK's default criteria) carries its ADK criterion in
``criterion.adk``; that block's ``dialect`` key says ``"adk-ts"`` when ADK-TS's rules apply (set by ``"dialect":
"adk-ts"`` at the top of the file or by ``eval --dialect adk-ts``). Without an ADK criterion the metric is native
(trpc).
"""

from __future__ import annotations

from typing import Any, Literal

from ..criteria import CriterionError, MatchType, parse_match_type
from ..model import EvalMetric

__all__ = ["ADK_TS", "ScoringDialect", "check_adk_ts_criterion", "scoring_dialect"]

ScoringDialect = Literal["trpc", "adk", "adk-ts"]
ADK_TS = "adk-ts"
_ADK_DIALECTS = ("adk", ADK_TS)


def scoring_dialect(metric: EvalMetric) -> ScoringDialect:
    """``trpc`` without an ADK criterion; else the ADK block's ``dialect`` (``adk`` when absent)."""
    crit = metric.criterion
    if crit is None or crit.adk is None:
        return "trpc"
    value = crit.adk.get("dialect", "adk")
    if value not in _ADK_DIALECTS:
        raise CriterionError(f"dialect: unknown scoring dialect {value!r}: expected one of {', '.join(_ADK_DIALECTS)}")
    return "adk-ts" if value == ADK_TS else "adk"


def check_adk_ts_criterion(adk: dict[str, Any]) -> None:
    """Refuse an ADK criterion ADK-TS could not score as configured: ADK-TS compares EXACT trajectories with their
    arguments only, so ``match_type`` other than ``EXACT`` and ``ignore_args`` would give numbers ADK-TS never
    gives."""
    for key in ("match_type", "matchType"):
        if key in adk:
            try:
                kind = parse_match_type(adk[key])
            except ValueError as exc:
                raise CriterionError(f"{key}: {exc}") from None
            if kind is not MatchType.EXACT:
                raise CriterionError(
                    f"{key}: {kind.name} is not available in the adk-ts dialect (ADK-TS scores EXACT trajectories "
                    "only); use the adk dialect for IN_ORDER / ANY_ORDER"
                )
    for key in ("ignore_args", "ignoreArgs"):
        if adk.get(key):
            raise CriterionError(
                f"{key}: not available in the adk-ts dialect (ADK-TS always compares arguments); use the adk dialect"
            )
