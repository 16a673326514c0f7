"""Run metadata on the command line: the lines ``show`` prints and labels as ``results`` lists them (picking a result
by its labels, ``label:KEY=VALUE``, is a result selector: :mod:`._selectors`)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pragma: no cover
    from ..model import RunMetadata

__all__ = ["format_labels", "metadata_lines"]


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
