"""Evaluation status values and the precedence lattice used to combine them."""

from __future__ import annotations

from collections.abc import Iterable
from enum import StrEnum
from typing import Annotated, Any

from pydantic import BeforeValidator

__all__ = ["EvalStatus", "StatusField", "parse_status", "status_for_score", "summarize_statuses"]


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
