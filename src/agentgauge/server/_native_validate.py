"""``POST /api/validate/eval-set``: agentevals' check of an uploaded eval set, with agentgauge's unknown keys."""

from __future__ import annotations

import asyncio
from typing import Annotated, Any

from fastapi import APIRouter, File, UploadFile
from fastapi.responses import JSONResponse

from ..errors import InputError
from ..formats import KeyReport
from ..model import EvalSet
from ._editor import key_report_json

__all__ = ["router"]

router = APIRouter()
"""``/validate/eval-set`` (mounted under ``/api``)."""


def _parse_checked(data: bytes, source: str) -> tuple[EvalSet, KeyReport]:
    """An uploaded eval set and its unknown keys."""
    from ..formats import check_keys, parse_eval_set
    from ..formats._jsonio import parse_json

    report = check_keys(parse_json(data, source))
    return parse_eval_set(data, source=source), report


@router.post("/validate/eval-set")
async def validate_eval_set(eval_set_file: Annotated[UploadFile, File()]) -> JSONResponse:
    """Check an uploaded eval set (multipart field ``eval_set_file``, any supported dialect), as agentevals:
    ``{"data": {"valid", "evalSetId", "numCases", "errors"}, "error": null}``. Also in ``data``: ``dialect``,
    ``unknownKeys`` (``[{"path", "key", "didYouMean"}]``) and ``warnings``; unknown keys are errors in an ADK
    file (``valid: false``) and warnings in a native one, as ``agentgauge validate`` reports them."""
    data = await eval_set_file.read()
    source = eval_set_file.filename or "eval_set_file"
    try:
        parsed, report = await asyncio.to_thread(_parse_checked, data, source)
    except InputError as exc:
        body: dict[str, Any] = {"valid": False, "evalSetId": None, "numCases": 0, "errors": [str(exc)]}
        return JSONResponse({"data": body, "error": None})
    lines = [f"{source}: {key.path}: {key.message()}" for key in report.unknown]
    body = {
        "valid": not report.blocking,
        "evalSetId": parsed.eval_set_id,
        "numCases": len(parsed.eval_cases),
        "errors": lines if report.blocking else [],
        "warnings": [] if report.blocking else lines,
        **key_report_json(report),
    }
    return JSONResponse({"data": body, "error": None})
