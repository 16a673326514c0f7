"""``POST /api/validate/eval-set``: agentevals' check of an uploaded eval set, with agentgauge's input checks (those of
``agentgauge validate``)."""

from __future__ import annotations

import asyncio
from typing import Annotated, Any

from fastapi import APIRouter, File, UploadFile
from fastapi.responses import JSONResponse

from ..errors import InputError
from ..formats import InputReport
from ..model import EvalSet
from ._deps import StateDep
from ._editor import problems_json, server_report

__all__ = ["parse_checked", "router"]

router = APIRouter()
"""``/validate/eval-set`` (mounted under ``/api``)."""


def parse_checked(data: bytes, source: str, report: InputReport) -> tuple[EvalSet, str]:
    """An uploaded eval set and its dialect; its unknown keys go to ``report``."""
    from ..formats import eval_set_of_document
    from ..formats._dialect import document_dialect
    from ..formats._jsonio import parse_json

    doc = parse_json(data, source)
    dialect = document_dialect(doc)
    return eval_set_of_document(doc, source, report=report), dialect


@router.post("/validate/eval-set")
async def validate_eval_set(eval_set_file: Annotated[UploadFile, File()], state: StateDep) -> JSONResponse:
    """Check an uploaded eval set (multipart field ``eval_set_file``, any supported dialect), as agentevals:
    ``{"data": {"valid", "evalSetId", "numCases", "errors"}, "error": null}``. Also in ``data``: ``dialect``,
    ``warnings`` and ``unknownKeys`` (``[{"path", "key", "didYouMean", "message", "severity", "file"}]``): an
    unknown key is an error where the file's own tool refuses it (``valid: false``: ADK's ``Invocation``) and a
    warning where it accepts it, as ``agentgauge validate`` reports them (``serve --strict``: every one an
    error)."""
    data = await eval_set_file.read()
    source = eval_set_file.filename or "eval_set_file"
    report = server_report(state)
    try:
        parsed, dialect = await asyncio.to_thread(parse_checked, data, source, report)
    except InputError as exc:
        lines = [p.line() for p in report.errors] + [str(exc)]
        body: dict[str, Any] = {"valid": False, "evalSetId": None, "numCases": 0, "errors": lines}
        return JSONResponse({"data": body, "error": None})
    body = {
        "valid": not report.errors,
        "evalSetId": parsed.eval_set_id,
        "numCases": len(parsed.eval_cases),
        "errors": [p.line() for p in report.errors],
        "warnings": [p.line() for p in report.warnings],
        "dialect": dialect,
        "unknownKeys": problems_json(report.problems),
    }
    return JSONResponse({"data": body, "error": None})
