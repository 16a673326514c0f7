"""A rule as the online engine runs it (its counters, judge meter and sinks), and what the engine makes of a scored
session for its sinks: the case of a session that could not be scored, the span its scores are parented to, the
webhook's body."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

from ._limits import JudgeMeter, PeriodCounter
from ._sinks import SinkPost
from ._tally import RuleTally

if TYPE_CHECKING:  # pragma: no cover
    from ..model import EvalCaseResult
    from ..traces import Span, TraceConversation
    from ._rules import OnlineRule

__all__ = ["DEFAULT_MAX_PER_HOUR", "RuleState", "error_case", "evaluated_span", "webhook_body"]

DEFAULT_MAX_PER_HOUR = 1000
"""The hourly cap of a rule that names none (``max_per_hour``): online scoring is bounded by default."""


class RuleState:
    """A rule with what it counts (``tally``, kept over a change of the rules file), its hourly cap, its judge
    meter and its sinks."""

    def __init__(self, rule: OnlineRule, tally: RuleTally | None) -> None:
        self.rule = rule
        self.tally = tally or RuleTally()
        cap = DEFAULT_MAX_PER_HOUR if rule.max_per_hour is None else rule.max_per_hour
        self.cap = PeriodCounter(cap, "hour")
        budget = rule.judge_budget
        self.meter = JudgeMeter(rule.name, PeriodCounter(budget.calls, budget.per)) if budget is not None else None
        self.budget_lock = asyncio.Lock()  # sessions of a rule with a judge budget are scored one at a time
        sinks = rule.sinks
        self.otlp = SinkPost.otlp_logs(sinks.otlp) if sinks.otlp else None
        self.webhook = SinkPost.webhook(sinks.webhook) if sinks.webhook is not None else None

    def as_json(self) -> dict[str, Any]:
        """The rule's settings, counts, latest scores and trend, as the Live tab shows them."""
        rule = self.rule
        budget = None
        if self.meter is not None:
            counter = self.meter.counter
            budget = {"calls": counter.limit, "per": counter.per, "used": counter.current(), "refused": 0}
            budget["refused"] = self.meter.refused
        return {
            "name": rule.name,
            "sampleRate": rule.sample_rate,
            "maxPerHour": self.cap.limit,
            "scoredThisHour": self.cap.current(),
            "period": rule.period,
            "evalSet": rule.eval_set,
            "app": rule.app,
            "judgeBudget": budget,
            **self.tally.as_json(),
        }


def error_case(message: str) -> EvalCaseResult:
    from ..model import EvalCaseResult, EvalStatus

    return EvalCaseResult(final_eval_status=EvalStatus.ERROR, error_message=message)


def evaluated_span(spans: list[Span], conversations: list[TraceConversation]) -> tuple[str, str]:
    """The span the scores are parented to: the root span of the session's first conversation's trace."""
    first = conversations[0].trace_id if conversations else (spans[0].trace_id if spans else "")
    mine = [s for s in spans if s.trace_id == first]
    root = next((s for s in mine if not s.parent_id), mine[0] if mine else None)
    return (first, root.span_id) if root is not None else ("", "")


def webhook_body(
    rule: str, key: str, app: str, case: EvalCaseResult, result_id: str | None, matches: list[tuple[str, str]]
) -> dict[str, Any]:
    return {
        "rule": rule,
        "session": key,
        "appName": app,
        "resultId": result_id,
        "status": case.final_eval_status.value,
        "error": case.error_message,
        "matches": [{"caseId": case_id, "by": how} for case_id, how in matches],
        "metrics": [
            {
                "name": m.metric_name,
                "score": m.score,
                "threshold": m.threshold,
                "status": m.eval_status.value,
                "reason": m.details.reason if m.details is not None else None,
            }
            for m in case.overall_eval_metric_results
        ],
    }
