"""Run metadata on the command line: the lines ``show`` prints, and ``label:KEY=VALUE`` result selectors
(``compare label:env=prod label:env=staging``) resolved to the newest result carrying those labels."""

from __future__ import annotations

import os
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pragma: no cover
    from ..model import EvalSetResult, RunMetadata
    from ..sqlstore import SqlEvalResultManager

__all__ = [
    "LABEL_SELECTOR",
    "format_labels",
    "load_compared",
    "metadata_lines",
    "parse_selector",
    "resolve_selector",
]

LABEL_SELECTOR = "label:"
"""The prefix of a result selector by labels: ``label:KEY=VALUE[,KEY=VALUE...]`` (every label must match)."""


def format_labels(labels: dict[str, str]) -> str:
    """``env=prod, team=core`` (empty when there are none)."""
    return ", ".join(f"{key}={value}" for key, value in labels.items())


def _when(stamp: float) -> str:
    return f"{datetime.fromtimestamp(stamp, UTC):%Y-%m-%d %H:%M:%S} UTC"


def metadata_lines(metadata: RunMetadata | None) -> list[str]:
    """What ``show`` prints about a run: labels, git state, agent, models, version and times (only what is known)."""
    if metadata is None:
        return []
    rows: list[tuple[str, str]] = []
    if metadata.labels:
        rows.append(("labels", format_labels(metadata.labels)))
    if metadata.git_commit or metadata.git_dirty is not None:
        git = (metadata.git_commit or "no commit")[:12]
        if metadata.git_branch:
            git += f" on {metadata.git_branch}"
        if metadata.git_dirty is not None:
            git += " (uncommitted changes)" if metadata.git_dirty else " (clean)"
        rows.append(("git", git))
    if metadata.agent:
        source = f" (source {metadata.agent_source_hash[:12]})" if metadata.agent_source_hash else ""
        rows.append(("agent", metadata.agent + source))
    if metadata.models:
        rows.append(("models", ", ".join(metadata.models)))
    if metadata.judge_models:
        rows.append(("judges", ", ".join(metadata.judge_models)))
    if metadata.agentgauge_version:
        rows.append(("agentgauge", metadata.agentgauge_version))
    if metadata.started_at is not None:
        took = ""
        if metadata.finished_at is not None:
            took = f", took {metadata.finished_at - metadata.started_at:.2f} s"
        rows.append(("started", _when(metadata.started_at) + took))
    if not rows:
        return []
    return ["Run metadata:", *(f"  {name:<11} {value}" for name, value in rows)]


def parse_selector(spec: str) -> dict[str, str] | None:
    """The labels of a ``label:KEY=VALUE[,KEY=VALUE...]`` selector (``None`` when ``spec`` is not one, or is an
    existing file); ``InputError`` names a bad label."""
    if not spec.startswith(LABEL_SELECTOR) or Path(spec).exists():
        return None
    from ..errors import InputError
    from ..model import parse_labels

    given = spec[len(LABEL_SELECTOR) :]
    try:
        labels = parse_labels(part for part in given.split(",") if part)
    except ValueError as exc:
        raise InputError(f"{spec!r}: {exc}") from None
    if not labels:
        raise InputError(f"{spec!r}: no label given; expected {LABEL_SELECTOR}KEY=VALUE[,KEY=VALUE...]")
    return labels


def _result_files(output_dir: Path) -> list[Path]:
    """The result files under ``output_dir``, newest first."""
    found = [p for p in output_dir.rglob("*.evalset_result.json") if p.is_file()]
    return sorted(found, key=lambda p: (os.stat(p).st_mtime_ns, p.name), reverse=True)


def resolve_selector(
    labels: dict[str, str],
    output_dir: Path,
    *,
    results: SqlEvalResultManager | None = None,
    app_name: str | None = None,
    eval_set_id: str | None = None,
) -> tuple[EvalSetResult, str]:
    """The newest result with every label of ``labels`` (of ``eval_set_id`` when given) and its source: from the
    store when one is given, else among the result files under ``output_dir`` (read newest first)."""
    from ..errors import InputError, NotFoundError

    wanted = f"{LABEL_SELECTOR}{format_labels(labels).replace(', ', ',')}"
    scope = f" of eval set {eval_set_id!r}" if eval_set_id else ""
    if results is not None:
        from ..sqlstore._cli import load_stored_result

        found = results.find(app=app_name, eval_set_id=eval_set_id, labels=labels, limit=1)
        if not found:
            raise NotFoundError(f"no result{scope} with {wanted} in the store")
        info = found[0]
        return load_stored_result(results, info.eval_set_result_id, info.app_name), info.eval_set_result_id
    from ..formats import load_result

    for path in _result_files(output_dir):
        try:
            result = load_result(path)
        except InputError:
            continue  # not ours to judge here: another command reports a broken file
        metadata = result.run_metadata
        if eval_set_id and result.eval_set_id != eval_set_id:
            continue
        if metadata is not None and metadata.matches(labels):
            return result, str(path)
    raise NotFoundError(f"no result{scope} with {wanted} under {output_dir}")


def load_compared(
    base: str, new: str, output_dir: Path, *, results: SqlEvalResultManager | None, app_name: str | None
) -> tuple[tuple[EvalSetResult, str], tuple[EvalSetResult, str]]:
    """``compare``'s two results with their sources. A ``label:`` selector picks the newest result with those
    labels, of the other side's eval set when that side is a file or id (or was picked first: BASE is)."""
    from ._targets import load_result_spec

    base_labels, new_labels = parse_selector(base), parse_selector(new)
    if base_labels is None:
        before = load_result_spec(base, output_dir, results=results, app_name=app_name)
    if new_labels is None:
        after = load_result_spec(new, output_dir, results=results, app_name=app_name)
    if base_labels is not None:
        set_id = after[0].eval_set_id if new_labels is None else None
        before = resolve_selector(base_labels, output_dir, results=results, app_name=app_name, eval_set_id=set_id)
    if new_labels is not None:
        set_id = before[0].eval_set_id
        after = resolve_selector(new_labels, output_dir, results=results, app_name=app_name, eval_set_id=set_id)
    return before, after
