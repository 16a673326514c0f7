"""Online evaluation: scoring a sample of the sessions ``serve --otlp`` receives, as they end.

A rules file (``serve --otlp --online rules.yaml``, see :class:`OnlineRules`) says which sessions each rule takes
(service, agent, attributes), the share it samples (a seeded, deterministic sampler), its hourly cap and judge
budget, its metrics (reference-free, or an eval set its sessions are matched with as ``eval --traces`` matches) and
its sinks (the result store per period, OTLP ``gen_ai.evaluation.result`` events, a webhook).
:class:`OnlineEvaluator` does the work in a thread of its own, off the receiver's request path.
"""

from ._engine import OnlineEvaluator, ScoredSession, SessionScorer
from ._limits import period_start, sampled
from ._rule_state import DEFAULT_MAX_PER_HOUR
from ._rules import (
    JudgeBudget,
    OnlineRule,
    OnlineRules,
    RuleSinks,
    SessionEnd,
    SessionFilter,
    WebhookSink,
    load_rules,
    parse_rules,
)
from ._select import session_matches
from ._sinks import result_id_for

__all__ = [
    "DEFAULT_MAX_PER_HOUR",
    "JudgeBudget",
    "OnlineEvaluator",
    "OnlineRule",
    "OnlineRules",
    "RuleSinks",
    "ScoredSession",
    "SessionEnd",
    "SessionFilter",
    "SessionScorer",
    "WebhookSink",
    "load_rules",
    "parse_rules",
    "period_start",
    "result_id_for",
    "sampled",
    "session_matches",
]
