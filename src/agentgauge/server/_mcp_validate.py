"""The MCP ``validate_file`` tool: an eval set or metrics file under the server's eval set folder checked as
``agentgauge validate`` and the server's editor check them (unknown keys with their JSON paths, metric names,
criteria and thresholds), never a file outside that folder, never more than the server's body limit."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import InputError

if TYPE_CHECKING:  # pragma: no cover
    from ._state import ServerState

__all__ = ["validate_path"]


def _inside_root(state: ServerState, path: str) -> Path:
    """``path`` (relative to the eval set folder, or absolute inside it) as a regular file there."""
    root = state.config.eval_root.resolve()
    given = Path(path.strip())
    if not path.strip():
        raise InputError("path: give a file under the eval set folder")
    target = (given if given.is_absolute() else root / given).resolve()
    if not target.is_relative_to(root):
        raise InputError(f"path: {path!r} is outside the eval set folder {root}")
    if not target.is_file():
        raise InputError(f"path: {path!r} is not a file under {root}")
    return target


def _read_bounded(target: Path, limit: int, shown: str) -> bytes:
    with target.open("rb") as handle:
        data = handle.read(limit + 1)
    if len(data) > limit:
        raise InputError(f"path: {shown!r} is larger than the server's limit of {limit} bytes")
    return data


def validate_path(state: ServerState, path: str) -> dict[str, Any]:
    """``{file, kind, valid, errors, warnings}`` (and the eval set's id and case count) of the file at ``path``."""
    from ..formats import MetricPaths, detect_kind, parse_metrics
    from ..formats._jsonio import parse_json
    from ._editor import server_report
    from ._native_validate import parse_checked

    target = _inside_root(state, path)
    shown = str(target.relative_to(state.config.eval_root.resolve()))
    data = _read_bounded(target, state.config.max_upload_bytes, shown)
    report = server_report(state)
    answer: dict[str, Any] = {"file": shown}
    try:
        doc = parse_json(data, shown)
        kind = detect_kind(doc)
        if kind == "eval_set":
            eval_set, dialect = parse_checked(data, shown, report)
            answer.update(kind="eval set", dialect=dialect, evalSetId=eval_set.eval_set_id)
            answer["cases"] = len(eval_set.eval_cases)
        elif kind == "metrics":
            metrics = parse_metrics(json.dumps(doc), source=shown, report=report)
            paths = MetricPaths("test_config") if isinstance(doc, dict) else MetricPaths()
            state.registry.validate_metrics(metrics, file=shown, report=report, paths=paths)
            answer.update(kind="metrics", metrics=[m.metric_name for m in metrics])
        else:
            raise InputError("not an eval set or a metrics file", file=shown)
    except InputError as exc:
        answer.update(valid=False, errors=[p.line() for p in report.errors] + [str(exc)])
        return answer
    answer.update(valid=not report.errors, errors=[p.line() for p in report.errors])
    answer["warnings"] = [p.line() for p in report.warnings]
    return answer
