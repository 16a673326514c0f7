"""``/api`` routes of the Optimize view: the audit reports of ``agentgauge optimize`` found under the server's data
folder (``<data dir>/optimize/<id>/audit.json``) and under ``.agentgauge/optimize`` (the command's default ``--out``
root), read only. A report larger than :data:`MAX_REPORT_BYTES` or one that cannot be read is listed with the
reason instead of its figures."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Annotated, Any

from fastapi import APIRouter, Query, Response
from pydantic import Field

from ..errors import NotFoundError
from ._answers import Answer, json_answer
from ._deps import StateDep

__all__ = ["MAX_REPORT_BYTES", "OptimizationRow", "OptimizationsAnswer", "router"]

router = APIRouter()
"""``/optimizations`` and ``/optimizations/{optimization_id}`` (mounted under ``/api``)."""

MAX_REPORT_BYTES = 16 * 1024 * 1024
"""The largest ``audit.json`` read (a report holds texts and case ids, not case results: megabytes at most)."""

_AUDIT = "audit.json"


class OptimizationRow(Answer):
    """One optimisation: its id, agent, optimiser, verdict (``accepted``, ``rejected``, ``no candidate``), when, and
    the validation pass rates of the baseline and the candidate with the gain's 95% interval; ``error`` instead when
    its report cannot be read."""

    optimization_id: str
    folder: str
    agent: str = ""
    app_name: str = ""
    optimizer: str = ""
    verdict: str = ""
    created: float | None = None
    baseline: float | None = None
    candidate: float | None = None
    gain: float | None = None
    low: float | None = None
    high: float | None = None
    error: str | None = None


class OptimizationsAnswer(Answer):
    """The optimisations found, newest first."""

    optimizations: list[OptimizationRow]
    roots: list[str] = Field(default_factory=list, description="the folders searched")
    truncated: int = Field(0, description="older reports left out (see limit)")


def _roots(data_dir: Path) -> list[Path]:
    from ..optimize import DEFAULT_OUT_ROOT

    roots: list[Path] = []
    for root in (data_dir / "optimize", DEFAULT_OUT_ROOT):
        if root.is_dir() and all(root.resolve() != known.resolve() for known in roots):
            roots.append(root)
    return roots


def _reports(data_dir: Path) -> list[Path]:
    """Every ``<root>/<id>/audit.json``, newest first (by modification time)."""
    found: list[tuple[float, Path]] = []
    for root in _roots(data_dir):
        with os.scandir(root) as entries:
            for entry in entries:
                path = Path(entry.path) / _AUDIT
                try:
                    found.append((path.stat().st_mtime, path))
                except OSError:
                    continue
    return [path for _, path in sorted(found, key=lambda item: item[0], reverse=True)]


def _read(path: Path) -> Any:
    """The audit report at ``path``; :class:`ValueError` saying why when it is too large or not a report."""
    from ..formats import model_from_document, read_json
    from ..optimize import AuditReport

    size = path.stat().st_size
    if size > MAX_REPORT_BYTES:
        raise ValueError(f"the report is {size} bytes, over the {MAX_REPORT_BYTES}-byte limit")
    try:
        return model_from_document(read_json(path), AuditReport, str(path))
    except Exception as exc:  # a torn write, a foreign file: the row says so
        raise ValueError(str(exc)) from None


def _row(path: Path) -> OptimizationRow:
    row = OptimizationRow(optimization_id=path.parent.name, folder=str(path.parent))
    try:
        report = _read(path)
    except (OSError, ValueError) as exc:
        row.error = str(exc)
        return row
    row.agent, row.app_name, row.optimizer = report.agent, report.app_name, report.optimizer
    row.verdict, row.created = report.verdict, report.created
    row.baseline = report.baseline["validation"].pass_rate if "validation" in report.baseline else None
    evidence = report.evidence.get("validation")
    if evidence is not None:
        row.candidate = evidence.candidate.pass_rate
    if report.gate is not None and report.gate.gain is not None:
        row.gain, row.low, row.high = report.gate.gain.delta, report.gate.gain.low, report.gate.gain.high
    return row


@router.get("/optimizations", response_model=OptimizationsAnswer)
def optimizations(state: StateDep, limit: Annotated[int, Query(ge=1, le=1000)] = 200) -> Response:
    """The audit reports of ``agentgauge optimize`` the server can find, newest first (at most ``limit``)."""
    paths = _reports(state.config.data_dir)
    rows = [_row(path).model_dump(mode="json", by_alias=True) for path in paths[:limit]]
    roots = [str(root) for root in _roots(state.config.data_dir)]
    return json_answer({"optimizations": rows, "roots": roots, "truncated": max(0, len(paths) - limit)})


@router.get("/optimizations/{optimization_id}")
def optimization(optimization_id: str, state: StateDep) -> Response:
    """One optimisation's audit report (``agentgauge optimize``'s ``audit.json``, as its model reads it)."""
    for root in _roots(state.config.data_dir):
        path = root / optimization_id / _AUDIT
        if path.is_file():
            try:
                report = _read(path)
            except ValueError as exc:
                raise NotFoundError(f"optimization {optimization_id!r}: {exc}") from None
            return Response(report.model_dump_json(), media_type="application/json")
    raise NotFoundError(f"optimization {optimization_id!r} not found")
