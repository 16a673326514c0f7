"""What online evaluation counted and scored, per rule: the counts (ended, sampled, filtered out, over the cap,
dropped, scored, errors, judge calls), the latest scores and a trend per period, as the Live tab shows them."""

from __future__ import annotations

import threading
from collections import OrderedDict, deque
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # pragma: no cover
    from ..model import EvalCaseResult

__all__ = ["COUNTS", "RuleTally"]

COUNTS = ("ended", "sampled", "filtered", "capped", "dropped", "scored", "errors", "sink_failures")
"""What each rule counts: sessions that ended, were sampled, left out by the filter, over the hourly cap, dropped
from a full queue, scored, errored, and sink deliveries that failed."""

_RECENT = 50  # latest scored sessions listed per rule
_TREND = 48  # periods kept in a rule's trend


@dataclass
class _PeriodTrend:
    scored: int = 0
    passed: int = 0
    failed: int = 0
    errors: int = 0
    metrics: dict[str, list[float]] = field(default_factory=dict)  # name -> [sum, count]


class RuleTally:
    """The counts, latest scores and per-period trend of one rule (thread-safe)."""

    def __init__(self) -> None:
        self.counts = dict.fromkeys(COUNTS, 0)
        self.recent: deque[dict[str, Any]] = deque(maxlen=_RECENT)
        self.trend: OrderedDict[str, _PeriodTrend] = OrderedDict()
        self.last_error = ""
        self._lock = threading.Lock()

    def count(self, what: str, by: int = 1) -> None:
        """Add ``by`` to count ``what`` (one of :data:`COUNTS`)."""
        with self._lock:
            self.counts[what] += by

    def scored(self, period: str, key: str, case: EvalCaseResult, where: tuple[str, str | None], at: float) -> None:
        """Record a scored (or errored) session of ``period``; ``where`` is the app and the result id (``None``
        without the store sink) it was saved under."""
        app, result_id = where
        status = case.final_eval_status.value
        metrics = {m.metric_name: m.score for m in case.overall_eval_metric_results}
        with self._lock:
            errored = case.error_message is not None
            self.counts["errors" if errored else "scored"] += 1
            if errored:
                self.last_error = case.error_message or ""
            self.recent.appendleft(
                {
                    "key": key,
                    "status": status,
                    "error": case.error_message,
                    "metrics": metrics,
                    "appName": app,
                    "resultId": result_id,
                    "at": at,
                }
            )
            trend = self.trend.get(period)
            if trend is None:
                trend = self.trend[period] = _PeriodTrend()
                while len(self.trend) > _TREND:
                    self.trend.popitem(last=False)
            trend.scored += 1
            trend.errors += errored
            trend.passed += status == "passed"
            trend.failed += status == "failed"
            for name, score in metrics.items():
                if score is not None:
                    total = trend.metrics.setdefault(name, [0.0, 0])
                    total[0] += score
                    total[1] += 1

    def as_json(self) -> dict[str, Any]:
        """The counts, latest scores and trend (oldest period first, each metric's mean) as JSON."""
        with self._lock:
            return {
                "counts": dict(self.counts),
                "lastError": self.last_error or None,
                "recent": list(self.recent),
                "trend": [
                    {
                        "period": period,
                        "scored": t.scored,
                        "passed": t.passed,
                        "failed": t.failed,
                        "errors": t.errors,
                        "means": {name: total / n for name, (total, n) in t.metrics.items() if n},
                    }
                    for period, t in self.trend.items()
                ],
            }
