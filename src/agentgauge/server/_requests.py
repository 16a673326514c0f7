"""What a request may hold: the ids in its path and the JSON types of its body.

Bad input is answered with a 4xx that names the field, never a 5xx: ids in the path are checked before the body is
read (400, naming the id and the rule it breaks), bodies are typed models (422, naming the field and the type that
was expected, as ADK's FastAPI server answers), and a body that is not JSON at all gets 415.
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Annotated, Any

from fastapi import Request
from fastapi.exceptions import RequestValidationError
from pydantic import AfterValidator, BaseModel, ConfigDict
from pydantic.alias_generators import to_camel

from ..model import CaseStatusRule
from ..model._ids import check_case_id
from ..storage import check_segment

if TYPE_CHECKING:  # pragma: no cover
    from ._state import ServerState

__all__ = [
    "AddSessionBody",
    "Content",
    "CreateEvalSetBody",
    "CreateSessionBody",
    "JsonState",
    "NativeCreateSetBody",
    "RunEvalBody",
    "StartRunBody",
    "no_form_post",
    "path_id_check",
    "validation_error_answer",
]

# Path parameters that are ids, by the name the error message gives them. App names are checked by the state (which
# also refuses hidden folders); case ids never name a file and have their own rule.
_PATH_IDS = {
    "eval_set_id": "eval set id",
    "set_id": "eval set id",
    "eval_result_id": "eval set result id",
    "result_id": "eval set result id",
    "user_id": "user id",
    "session_id": "session id",
    "optimization_id": "optimization id",
}
_APP_PARAMS = frozenset({"app_name", "app"})
_CASE_PARAMS = frozenset({"eval_case_id", "case_id"})


def path_id_check(state: ServerState) -> Callable[[Request], Awaitable[None]]:
    """A dependency for every route: the ids in the request's path, checked before its body is read (an
    :class:`~agentgauge.errors.InvalidIdError` answers 400 naming the id and its limit)."""

    async def check_path_ids(request: Request) -> None:
        # async: the checks are pure CPU work of microseconds, not worth a hop to the thread pool.
        for name, value in request.path_params.items():
            if name in _APP_PARAMS:
                state.check_app(value)
            elif name in _CASE_PARAMS:
                check_case_id(value)
            elif name in _PATH_IDS:
                check_segment(value, _PATH_IDS[name])

    return check_path_ids


def validation_error_answer(request: Request, exc: RequestValidationError) -> tuple[int, str]:
    """The status and one-line message for a request FastAPI could not validate: 415 when the body is not JSON
    (FastAPI hands the raw bytes over then), else 422 naming the first field and what was expected."""
    errors = exc.errors()
    for error in errors:
        if tuple(error.get("loc", ()))[:1] == ("body",) and isinstance(error.get("input"), (bytes, bytearray)):
            given = request.headers.get("content-type")
            got = f"Content-Type {given!r}" if given else "no Content-Type"
            return 415, f"request body: expected JSON (Content-Type: application/json), got {got}"
    if not errors:
        return 422, "invalid request"
    first = errors[0]
    # Leave out the tags pydantic adds for the branches of a union (``list[any]``, ``function-after[...]``).
    where = ".".join(str(p) for p in first.get("loc", ()) if not (isinstance(p, str) and "[" in p))
    more = f" (and {len(errors) - 1} more problems)" if len(errors) > 1 else ""
    return 422, f"{where}: {first.get('msg')}{more}"


_FORM_TYPES = frozenset({"text/plain", "application/x-www-form-urlencoded", "multipart/form-data"})


async def no_form_post(request: Request) -> None:
    """A dependency for the write routes that take no body: a request with a content type an HTML form can send
    is refused (415) unless it carries an ``Origin`` (which the server's guard has checked is this server's), as
    a route with a JSON body refuses it. Another site's page can send such a request without a CORS preflight; a
    browser old enough to leave out ``Origin`` must not turn it into a write."""
    from fastapi import HTTPException

    given = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if given in _FORM_TYPES and "origin" not in request.headers:
        raise HTTPException(
            415, f"request body: expected none or JSON (Content-Type: application/json), got Content-Type {given!r}"
        )


_SURROGATE = re.compile(r"[\ud800-\udfff]")


def _valid_text(value: Any) -> Any:
    """``value`` when none of its strings (keys included) holds a lone surrogate: Python's JSON reader accepts
    ``"\\ud800"``, but such text cannot be written to a file, so it is refused before anything is stored."""
    pending = [value]
    while pending:
        item = pending.pop()
        if isinstance(item, str):
            found = _SURROGATE.search(item)
            if found is not None:
                raise ValueError(f"not valid Unicode text: lone surrogate {found[0]!r} in {item[:40]!r}")
        elif isinstance(item, dict):
            pending.extend(item.keys())
            pending.extend(item.values())
        elif isinstance(item, list):
            pending.extend(item)
    return value


JsonState = Annotated[dict[str, Any], AfterValidator(_valid_text)]
"""A session state: any JSON object of valid text."""


class _Body(BaseModel):
    """A request body: camelCase or snake_case keys, unknown keys ignored (as ADK's request models)."""

    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, extra="ignore")


class Part(BaseModel):
    """One part of a genai ``Content``; only ``text`` is read, other kinds of part are kept as they are."""

    model_config = ConfigDict(extra="allow")

    text: Annotated[str | None, AfterValidator(_valid_text)] = None


class Content(BaseModel):
    """A genai ``Content``: ``{"role", "parts": [{"text": ...}, ...]}``."""

    model_config = ConfigDict(extra="allow")

    role: str | None = None
    parts: list[Part] | None = None

    def text(self) -> str:
        """The text of every text part, joined."""
        return "".join(p.text or "" for p in self.parts or [])


class CreateSessionBody(_Body):
    """``POST /apps/{app}/users/{user}/sessions``: ``{sessionId?, state?}`` (ADK's ``CreateSessionRequest``)."""

    session_id: str | None = None
    state: JsonState | None = None


class _EvalSetRef(_Body):
    eval_set_id: str | None = None


class CreateEvalSetBody(_Body):
    """ADK's ``CreateEvalSetRequest``: ``{"evalSet": {"evalSetId": ...}}`` (only the id is used)."""

    eval_set: _EvalSetRef | None = None


class AddSessionBody(_Body):
    """ADK's ``AddSessionToEvalSetRequest``: ``{evalId, sessionId, userId}``."""

    eval_id: str | None = None
    session_id: str | None = None
    user_id: str | None = None


class RunEvalBody(_Body):
    """ADK's ``RunEvalRequest``: ``{evalCaseIds?, evalMetrics?}`` (``evalIds`` is the legacy spelling)."""

    eval_case_ids: list[str] | None = None
    eval_ids: list[str] | None = None
    eval_metrics: list[Any] | None = None


class NativeCreateSetBody(_Body):
    """``POST /api/apps/{app}/eval-sets``: ``{"evalSetId": ...}``."""

    eval_set_id: str | None = None


class StartRunBody(_Body):
    """``POST /api/apps/{app}/eval-sets/{set}/runs``: ``{caseIds?, metrics?, numRuns?, parallelism?, caseStatus?}``.
    Counts are integers (``2.0`` and ``"2"`` too; ``1.5``, infinities and NaN are refused); ``caseStatus`` is how a
    case's status follows from its runs (``mean``, ``all``, ``majority`` or ``any``; default ``mean``)."""

    case_ids: list[str] | None = None
    metrics: Any = None
    num_runs: int = 1
    parallelism: int | None = None
    case_status: CaseStatusRule | None = None
