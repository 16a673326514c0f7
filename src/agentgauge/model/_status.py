"""Evaluation status values and the precedence lattice used to combine them."""

from __future__ import annotations

from collections.abc import Iterable
from enum import StrEnum
from typing import Annotated, Any

from pydantic import BeforeValidator

__all__ = [
    "DEFAULT_CASE_STATUS",
    "CaseStatusRule",
    "EvalStatus",
    "StatusField",
    "is_measurement",
    "parse_case_status_rule",
    "parse_status",
    "status_for_score",
    "summarize_statuses",
]


class EvalStatus(StrEnum):
    """Outcome of a metric, an invocation, a case, a run or a set.

    Written as lower-case strings. ``informational`` (ADK's ``INFORMATIONAL``) is reported but never counts as a
    pass or a failure. ``error`` means the outcome could not be decided: a metric whose evaluator (e.g. its judge)
    failed, or a case whose agent, inference or scoring failed before any metric could decide it. ADK has no such
    status: ADK-format output writes it as ``FAILED`` (2).
    """

    PASSED = "passed"
    FAILED = "failed"
    NOT_EVALUATED = "not_evaluated"
    INFORMATIONAL = "informational"
    ERROR = "error"


class CaseStatusRule(StrEnum):
    """How a case's status follows from its runs (``eval --case-status``).

    - ``mean``: each metric's scores over the runs are reduced (their mean, or the metric's own reducer) and
      compared with its threshold; the case passes when every such metric passes. This is how Google ADK's
      ``AgentEvaluator`` and trpc-agent-go decide a case over ``num_runs``, so ADK-dialect results keep ADK's
      statuses: the default.
    - ``all``: the case passes only when every run passed.
    - ``majority``: the case passes when more than half of its runs passed.
    - ``any``: the case passes when at least one run passed.

    With one run every rule gives that run's status. A case that does not pass under ``all``, ``majority`` or
    ``any`` is ``failed`` when a run failed, else ``error`` when a run errored, else ``not_evaluated``.
    """

    MEAN = "mean"
    ALL = "all"
    MAJORITY = "majority"
    ANY = "any"


DEFAULT_CASE_STATUS = CaseStatusRule.MEAN
"""The rule of a result that names none (every result written before the rule could be chosen)."""


def parse_case_status_rule(value: str | CaseStatusRule | None) -> CaseStatusRule:
    """The rule named ``value`` (``None``: :data:`DEFAULT_CASE_STATUS`); ``ValueError`` naming the rules otherwise."""
    if value is None:
        return DEFAULT_CASE_STATUS
    try:
        return CaseStatusRule(str(value).strip().lower())
    except ValueError:
        names = ", ".join(rule.value for rule in CaseStatusRule)
        raise ValueError(f"unknown case status rule {value!r}: expected one of {names}") from None


_BY_INT = {
    1: EvalStatus.PASSED,
    2: EvalStatus.FAILED,
    3: EvalStatus.NOT_EVALUATED,
    4: EvalStatus.INFORMATIONAL,
}
_BY_NAME = {s.value: s for s in EvalStatus} | {"notevaluated": EvalStatus.NOT_EVALUATED}


def parse_status(value: Any) -> EvalStatus:
    """Read a status from our strings, ADK ints (1-4) or enum names (``PASSED``, ``EvalStatus.FAILED``).

    Raises ``ValueError`` naming the accepted values for anything else.
    """
    if isinstance(value, EvalStatus):
        return value
    if isinstance(value, int) and not isinstance(value, bool) and value in _BY_INT:
        return _BY_INT[value]
    if isinstance(value, str):
        key = value.strip()
        if key.isdigit() and int(key) in _BY_INT:
            return _BY_INT[int(key)]
        key = key.removeprefix("EvalStatus.").lower().replace("-", "_").replace(" ", "_")
        if key in _BY_NAME:
            return _BY_NAME[key]
    raise ValueError(
        f"unknown status {value!r}: expected one of 'passed', 'failed', 'error', 'not_evaluated', 'informational' "
        "(or ADK's 1, 2, 3, 4 / PASSED, FAILED, NOT_EVALUATED, INFORMATIONAL)"
    )


StatusField = Annotated[EvalStatus, BeforeValidator(parse_status)]
"""Pydantic field type for a status that accepts every spelling :func:`parse_status` accepts."""


def status_for_score(score: float | None, threshold: float) -> EvalStatus:
    """``passed`` when ``score >= threshold``, ``failed`` below it, ``not_evaluated`` when there is no score."""
    if score is None:
        return EvalStatus.NOT_EVALUATED
    return EvalStatus.PASSED if score >= threshold else EvalStatus.FAILED


def summarize_statuses(statuses: Iterable[EvalStatus]) -> EvalStatus:
    """Combine statuses: any failed → failed; else any error → error; else any passed → passed; else not_evaluated.

    A failure is known whatever the errors beside it; an error leaves a pass undecided. ``not_evaluated`` and
    ``informational`` never decide the outcome; an empty input gives ``not_evaluated``.
    """
    seen_pass = seen_error = False
    for status in statuses:
        if status is EvalStatus.FAILED:
            return EvalStatus.FAILED
        if status is EvalStatus.ERROR:
            seen_error = True
        elif status is EvalStatus.PASSED:
            seen_pass = True
    if seen_error:
        return EvalStatus.ERROR
    return EvalStatus.PASSED if seen_pass else EvalStatus.NOT_EVALUATED


def is_measurement(statuses: Iterable[EvalStatus]) -> bool:
    """Whether a metric with results of these statuses is a measurement rather than a score: at least one result
    is ``informational`` and none passed, failed or errored (``not_evaluated`` results say nothing either way).

    ADK's efficiency metrics (tool calls, model calls, tokens, seconds) and any metric without a pass rule are
    measurements: every report shows them apart from the scores, without threshold, pass/fail counts, intervals
    read as verdicts or significance tests.
    """
    seen_informational = False
    for status in statuses:
        if status is EvalStatus.INFORMATIONAL:
            seen_informational = True
        elif status is not EvalStatus.NOT_EVALUATED:
            return False
    return seen_informational
