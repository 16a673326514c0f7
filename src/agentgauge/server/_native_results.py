"""``/api`` routes of stored results: the list, one result as JSON or as the HTML report, and the comparison of
two."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query
from fastapi.responses import HTMLResponse, JSONResponse

from ..errors import InputError
from ._deps import StateDep, as_json
from ._headers import new_nonce, nonce_inline, page_headers, report_policy
from ._safety import public_result

__all__ = ["router"]

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
    from ..reporting import render

    state.check_app(app)
    page = render(public_result(state.results.get(app, result_id), state.config.debug), "html")
    nonce = new_nonce()
    return HTMLResponse(nonce_inline(page, nonce), headers=page_headers(report_policy(nonce), framed_by_self=True))


@router.get("/apps/{app}/compare")
def compare(
    app: str,
    base: Annotated[str, Query()],
    state: StateDep,
    new: Annotated[str | None, Query()] = None,
    head: Annotated[str | None, Query()] = None,
) -> JSONResponse:
    """What changed from result ``base`` to result ``new`` (``head`` is accepted as a synonym): the
    :class:`agentgauge.compare.Comparison` of ``agentgauge compare --json``."""
    from ..compare import compare_results

    state.check_app(app)
    later = new if new is not None else head
    if later is None:
        raise InputError("compare: give the later result as the query parameter 'new'")
    comparison = compare_results(
        state.results.get(app, base), state.results.get(app, later), base_source=base, new_source=later
    )
    return JSONResponse(as_json(comparison))
