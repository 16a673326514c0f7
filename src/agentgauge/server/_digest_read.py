"""The digest of a result file read from its raw JSON, without validating the parts no list shows.

Parsing a 5,000-case result into the model takes about a second, most of it validating invocations no list shows;
reading the few fields the lists need takes a tenth of that. The light reading accepts exactly what the full parse
(:func:`agentgauge.formats._results.result_from_document`) would read the same way: native and ADK files,
camelCase or snake_case, ADK's integer and upper-case statuses, ADK's legacy string-wrapped JSON. Anything else in
a field it reads (a number written as text, both spellings of one key, a missing required field, a
genai-shaped message that does not convert) is left to the full parse, which decides: the same digest, or the
file's :class:`~agentgauge.errors.InputError`. Fields no list reads are not checked here; opening the result
(replay, report) parses it whole and names any fault.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from pydantic import ValidationError
from pydantic.alias_generators import to_camel

from ..errors import InputError
from ..formats._adk_read import invocation_from_adk
from ..formats._jsonio import gc_paused, parse_json, read_bytes
from ..formats._results import result_from_document
from ..model import DEFAULT_CASE_STATUS, CaseStatusRule, EvalStatus, RunMetadata, parse_status
from ..summary._reasons import Mismatch
from ._digest import TEXT_LIMIT, CaseRun, ResultDigest, digest_of_result, make_digest, search_text

__all__ = ["digest_of_document", "read_digest"]

_MISSING: Any = object()


class _Unsure(Exception):
    """A value the light reading does not decide on: the full parse does."""


_SPELLINGS = {
    name: (name, to_camel(name))
    for name in (
        "actual_invocation",
        "cancelled",
        "cases_not_run",
        "content",
        "creation_timestamp",
        "error_message",
        "eval_case_results",
        "eval_id",
        "eval_metric_result_per_invocation",
        "eval_case_summaries",
        "eval_metric_results",
        "eval_set_id",
        "eval_set_result_id",
        "eval_status",
        "expected_invocation",
        "final_response",
        "final_eval_status",
        "interrupted",
        "metric_name",
        "num_runs",
        "overall_eval_metric_results",
        "overall_status",
        "case_status_rule",
        "reason",
        "reducer",
        "run_id",
        "run_metadata",
        "score",
        "summary",
        "threshold",
        "user_content",
    )
}
_STATUSES: dict[Any, EvalStatus] = {}  # each spelling met, read once by parse_status
_ROLES = frozenset({"system", "user", "assistant", "tool"})
_STATUS_REASON = {  # a case's reason when no metric failed (as summary._reasons.first_reason says it)
    EvalStatus.FAILED: "failed",
    EvalStatus.ERROR: "error",
    EvalStatus.NOT_EVALUATED: "not evaluated: no metric produced a score",
}


def _get(obj: dict[str, Any], snake: str) -> Any:
    """``obj``'s value under either spelling of ``snake`` (:data:`_MISSING` when absent); both spellings at once
    are left to the full parse."""
    first, second = _SPELLINGS[snake]
    if first in obj:
        if second != first and second in obj:
            raise _Unsure
        return obj[first]
    return obj.get(second, _MISSING)


def _str(value: Any, default: str) -> str:
    if value is _MISSING:
        return default
    if type(value) is not str:
        raise _Unsure
    return value


def _optional_str(value: Any) -> str | None:
    return None if value is None else _str(value, "")


def _int(value: Any, default: int) -> int:
    if value is _MISSING:
        return default
    if type(value) is not int:
        raise _Unsure
    return value


def _float(value: Any, default: float) -> float:
    if value is _MISSING:
        return default
    if type(value) is float:
        return value
    if type(value) is not int:
        raise _Unsure  # pydantic's lax float (text, booleans) is left to it
    try:
        return float(value)
    except OverflowError:
        raise _Unsure from None


def _optional_float(value: Any) -> float | None:
    return None if value is None or value is _MISSING else _float(value, 0.0)


def _bool(value: Any) -> bool:
    if value is _MISSING:
        return False
    if type(value) is not bool:
        raise _Unsure
    return value


def _status(value: Any) -> EvalStatus:
    if value is _MISSING:
        return EvalStatus.NOT_EVALUATED
    kind = type(value)
    if kind is not str and kind is not int:  # (not bool: True == 1 as a key)
        raise _Unsure
    found = _STATUSES.get(value)
    if found is None:
        try:
            found = parse_status(value)
        except ValueError:
            raise _Unsure from None
        if len(_STATUSES) < 256:  # files are few spellings; a hostile one may not grow the table
            _STATUSES[value] = found
    return found


def _list(value: Any) -> list[Any]:
    if value is _MISSING:
        return []
    if type(value) is not list:
        raise _Unsure
    return value


def _dict(value: Any) -> dict[str, Any]:
    if type(value) is not dict:
        raise _Unsure
    return value


class _Metric:
    """What a case's reason needs of one metric result."""

    __slots__ = ("name", "reason", "reducer", "score", "status", "threshold")

    def __init__(self, raw: Any) -> None:
        raw = _dict(raw)
        name = _get(raw, "metric_name")
        if name is _MISSING:
            raise _Unsure
        self.name = _str(name, "")
        self.score = _optional_float(_get(raw, "score"))
        self.status = _status(_get(raw, "eval_status"))
        if "threshold" in raw and raw["threshold"] is None:
            # ADK writes a null threshold when its criterion holds it (as the full parse reads it).
            criterion = raw.get("criterion")
            given = criterion.get("threshold", _MISSING) if type(criterion) is dict else _MISSING
            self.threshold = _float(given, 0.0) if isinstance(given, (int, float)) else 0.0
        else:
            self.threshold = _float(_get(raw, "threshold"), 0.0)
        details = raw.get("details")
        self.reason = "" if details is None else _optional_str(_dict(details).get("reason")) or ""
        reducer = _get(raw, "reducer")
        self.reducer = None if reducer is _MISSING else _optional_str(reducer)

    def headline(self, invocation: int | None) -> str:
        """The case's reason when this metric is its first failure (``invocation``: the 0-based turn it judged)."""
        found = Mismatch(self.name, self.score, self.threshold, self.reason, invocation, None, None)
        return found.headline + (f": {self.reason}" if self.reason else "")


def _is_genai(actual: dict[str, Any]) -> bool:
    """:func:`~agentgauge.formats._adk_read.is_genai_invocation` without its key helpers (it runs once a case)."""
    if "intermediate_data" in actual or "intermediateData" in actual:
        return True
    for snake, camel in (("user_content", "userContent"), ("final_response", "finalResponse")):
        value = actual[snake] if snake in actual else actual.get(camel)
        if isinstance(value, dict) and "parts" in value and "content" not in value:
            return True
    return False


def _message_text(invocation: Any, key: str) -> str:
    """The text of an invocation's ``user_content`` (required) or ``final_response`` (``""`` when it has none)."""
    invocation = _dict(invocation)
    if _is_genai(invocation):
        try:  # the full parse converts it so (its errors name the file: here they only send the file to it)
            invocation = invocation_from_adk(invocation, "", "")
        except InputError:
            raise _Unsure from None
        message = invocation.get(key, _MISSING)
    else:
        message = _get(invocation, key)
    if message is _MISSING or message is None:
        if key == "user_content":
            raise _Unsure
        return ""
    message = _dict(message)
    if message.get("role", "user") not in _ROLES:
        raise _Unsure
    return _str(_get(message, "content"), "")


def _turn_words(item: dict[str, Any], actual: Any) -> tuple[str, str]:  # as _digest._turn_words
    """A turn's user message and its expected final answer (``""``: none), as the case list searches them."""
    expected = _get(item, "expected_invocation")
    answer = "" if expected is _MISSING or expected is None else _message_text(expected, "final_response")
    return _message_text(actual, "user_content"), answer


def _case_run(raw: Any) -> CaseRun:
    raw = _dict(raw)
    status = _status(_get(raw, "final_eval_status"))
    message = _get(raw, "error_message")
    error = None if message is _MISSING else _optional_str(message)
    overall = [_Metric(m) for m in _list(_get(raw, "overall_eval_metric_results"))]
    turns = _list(_get(raw, "eval_metric_result_per_invocation"))
    failed: tuple[_Metric, int] | None = None
    text, words = "", []
    for index, item in enumerate(turns):
        item = _dict(item)
        actual = _get(item, "actual_invocation")
        if actual is _MISSING or actual is None:
            raise _Unsure  # required: the full parse names it
        user, answer = _turn_words(item, actual)
        text = user if index == 0 else text
        words.append("\n".join(w for w in (user, answer) if w))
        if failed is None:  # only the first failed metric of the turns counts (the case's reason)
            for metric in _list(_get(item, "eval_metric_results")):
                if _status(_get(_dict(metric), "eval_status")) is EvalStatus.FAILED:
                    failed = (_Metric(metric), index)
                    break
    if error:
        reason: str | None = f"error: {error}"
    elif failed is not None:
        reason = failed[0].headline(failed[1])
    else:
        first = next((m for m in overall if m.status is EvalStatus.FAILED), None)
        reason = first.headline(None) if first is not None else _STATUS_REASON.get(status)
    eval_id, run_id = _str(_get(raw, "eval_id"), ""), _int(_get(raw, "run_id"), 1)
    metrics = tuple([(m.name, m.score, m.status, m.threshold, m.reducer) for m in overall])
    return CaseRun(eval_id, run_id, status, error, reason, len(turns), text[:TEXT_LIMIT], metrics, search_text(words))


_NotRun = tuple[tuple[str, str], ...]


def _summary(raw: Any) -> tuple[tuple[EvalStatus, int], CaseStatusRule, dict[str, EvalStatus], _NotRun] | None:
    """A summary's overall status and number of runs, the rule it names, the status it gives each case and the
    cases it could not run (with why)."""
    if raw is _MISSING or raw is None:
        return None
    raw = _dict(raw)
    rule = _get(raw, "case_status_rule")
    try:
        decided = DEFAULT_CASE_STATUS if rule is _MISSING or rule is None else CaseStatusRule(_str(rule, ""))
    except ValueError:
        raise _Unsure from None
    saved: dict[str, EvalStatus] = {}
    for entry in _list(_get(raw, "eval_case_summaries")):
        entry = _dict(entry)
        saved[_str(_get(entry, "eval_id"), "")] = _status(_get(entry, "overall_status"))
    not_run = tuple(
        (_str(_get(entry, "eval_id"), ""), _str(_get(entry, "reason"), ""))
        for entry in map(_dict, _list(_get(raw, "cases_not_run")))
    )
    return (_status(_get(raw, "overall_status")), _int(_get(raw, "num_runs"), 1)), decided, saved, not_run


def digest_of_document(doc: Any, source: str) -> ResultDigest | None:
    """The digest of a parsed result document (see the module's docstring); ``None`` when a field it reads is
    written in a way only the full parse decides on."""
    try:
        if type(doc) is str:
            doc = parse_json(doc, source)  # ADK before 1.22 wrote json.dumps(model_dump_json())
        top = _dict(doc)
        if _get(top, "eval_case_results") is _MISSING and _get(top, "eval_set_result_id") is _MISSING:
            return None  # not a result: the full parse says so
        set_id = _get(top, "eval_set_id")
        if set_id is _MISSING:
            return None
        summary = _summary(_get(top, "summary"))
        meta = _get(top, "run_metadata")
        cases = _list(_get(top, "eval_case_results"))
        return make_digest(
            eval_set_id=_str(set_id, ""),
            timestamp=_optional_float(_get(top, "creation_timestamp")),
            summary=summary[0] if summary is not None else None,
            rule=summary[1] if summary is not None else DEFAULT_CASE_STATUS,
            saved=summary[2] if summary is not None else None,
            not_run=summary[3] if summary is not None else (),
            interrupted=_bool(_get(top, "interrupted")),
            cancelled=_bool(_get(top, "cancelled")),
            run_metadata=None if meta is _MISSING or meta is None else RunMetadata.model_validate(_dict(meta)),
            runs=tuple([_case_run(c) for c in cases]),
        )
    except (_Unsure, ValidationError, InputError):
        return None


def read_digest(path: Path) -> ResultDigest:
    """The digest of a result file: read lightly, else from the full parse; the file's :class:`InputError` when
    it is not a readable result."""
    source = os.fspath(path)
    doc = parse_json(read_bytes(source), source)
    with gc_paused():  # the many small tuples made would have the collector rescan the whole document
        found = digest_of_document(doc, source)
    return found if found is not None else digest_of_result(result_from_document(doc, source))
