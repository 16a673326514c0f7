"""``/api`` routes of stored results: the list, one result as JSON or as the HTML report, and the comparison of
two."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Annotated

from fastapi import APIRouter, Query
from fastapi.responses import HTMLResponse, JSONResponse

from ..errors import InputError
from ..storage import FoundResult, Wanted
from ._deps import StateDep, as_json
from ._headers import new_nonce, nonce_inline, page_headers, report_policy
from ._safety import public_result

if TYPE_CHECKING:  # pragma: no cover
    from ..compare import Comparison, GateRule
    from ._state import ServerState

__all__ = ["AppResults", "compare_app_results", "router"]

_SELECTOR_MAX = 1024  # a result id is at most 255 characters; label: selectors a few labels more

router = APIRouter()
"""``/apps/{app}/results`` and ``/apps/{app}/compare`` (mounted under ``/api``)."""


@router.get("/apps/{app}/results")
def list_results(
    app: str,
    state: StateDep,
    eval_set_id: Annotated[str | None, Query(alias="evalSetId")] = None,
    label: Annotated[list[str] | None, Query()] = None,
) -> JSONResponse:
    """The app's results, newest first: id, eval set, time, status, counts, run labels and metadata, and where it
    was found (``source``): the server's runs, ``agentgauge eval``'s results, the store, ADK's eval history.
    ``label=KEY=VALUE`` (repeatable) keeps the results whose run has every one of those labels."""
    from ..model import parse_labels

    state.check_app(app)
    try:
        wanted = parse_labels(label or ())
    except ValueError as exc:
        raise InputError(f"query parameter 'label': {exc}") from None
    rows = [
        r
        for r in state.results.rows(app)
        if (eval_set_id is None or r["evalSetId"] == eval_set_id)
        and all(r["labels"].get(key) == value for key, value in wanted.items())
    ]
    return JSONResponse(rows)


@router.get("/apps/{app}/results/{result_id}")
def get_result(app: str, result_id: str, state: StateDep) -> JSONResponse:
    """A stored result (native JSON); its ``summary.statistics`` holds the pass rate's and metric means' bootstrap
    intervals and the flaky cases (as the JSON report)."""
    from ..reporting import build_view
    from ..reporting._intervals import intervals_document

    state.check_app(app)
    result = public_result(state.results.get(app, result_id), state.config.debug)
    document = as_json(result)
    if document.get("summary") is not None and result.eval_case_results:
        document["summary"]["statistics"] = intervals_document(build_view(result))
    return JSONResponse(document)


@router.get("/apps/{app}/results/{result_id}/report.html", response_class=HTMLResponse)
def result_report(app: str, result_id: str, state: StateDep) -> HTMLResponse:
    """The result as the HTML report (``agentgauge eval --report html``)."""
    from ..reporting import render, ui_links

    state.check_app(app)
    with ui_links("", app):  # a case's replay link opens it in the page that shows the report
        page = render(public_result(state.results.get(app, result_id), state.config.debug), "html")
    nonce = new_nonce()
    return HTMLResponse(nonce_inline(page, nonce), headers=page_headers(report_policy(nonce), framed_by_self=True))


@router.get("/apps/{app}/compare")
def compare(
    app: str,
    base: Annotated[str, Query(max_length=_SELECTOR_MAX)],
    state: StateDep,
    new: Annotated[str | None, Query(max_length=_SELECTOR_MAX)] = None,
    head: Annotated[str | None, Query(max_length=_SELECTOR_MAX)] = None,
    fail_on: Annotated[str, Query(alias="failOn", max_length=32)] = "broken",
    alpha: Annotated[float, Query()] = 0.05,
) -> JSONResponse:
    """What changed from result ``base`` to result ``new`` (``head`` is accepted as a synonym), and the verdict of
    the gate ``failOn`` at ``alpha``: the :class:`agentgauge.compare.Comparison` of ``agentgauge compare --json``.
    ``base`` and ``new`` are result ids of the app, ``label:KEY=VALUE[,KEY=VALUE]`` or ``latest`` (never files)."""
    from ..compare import check_alpha, fail_on_rule

    state.check_app(app)
    later = new if new is not None else head
    if later is None:
        raise InputError("compare: give the later result as the query parameter 'new'")
    rule = fail_on_rule(fail_on, given_as="query parameter 'failOn'")
    alpha = check_alpha(alpha, given_as="query parameter 'alpha'")
    return JSONResponse(as_json(compare_app_results(state, app, base, later, rule, alpha)))


def compare_app_results(state: ServerState, app: str, base: str, new: str, rule: GateRule, alpha: float) -> Comparison:
    """The comparison of two results of the app named by selectors (ids, ``label:``, ``latest``; never files),
    judged by ``rule`` at ``alpha``."""
    from ..compare import compare_results
    from ..storage import resolve_pair

    before, after = resolve_pair(base, new, AppResults(state, app), files=False)
    return compare_results(
        before.load(), after.load(), base_source=before.source, new_source=after.source, alpha=alpha, fail_on=rule
    )


@dataclass(frozen=True)
class AppResults:
    """The results the server lists for one app (its runs, ``eval``'s results, the store, ADK's eval history) as
    a :class:`~agentgauge.storage.ResultCatalog`: ids looked up, the newest picked by creation time."""

    state: ServerState
    app: str

    @property
    def where(self) -> str:
        """``of app '<app>'``."""
        return f"of app {self.app!r}"

    def by_id(self, result_id: str) -> FoundResult:
        """The app's result of this id (:class:`~agentgauge.errors.NotFoundError`: none)."""
        return FoundResult(result_id, app_name=self.app, result=self.state.results.get(self.app, result_id))

    def newest(self, wanted: Wanted) -> FoundResult | None:
        """The app's newest result matching ``wanted``."""
        for row in self.state.results.rows(self.app):
            result_id = row["evalSetResultId"]
            if (wanted.eval_set_id and row["evalSetId"] != wanted.eval_set_id) or result_id in wanted.exclude:
                continue
            if all(row["labels"].get(key) == value for key, value in wanted.labels.items()):
                return self.by_id(result_id)
        return None
