"""The metadata of one run (:class:`~agentgauge.model.RunMetadata`): the user's labels plus what is recorded
automatically -- the git state of the working directory, the agent's source hash, the agentgauge version and the
start time when the run starts; the models seen and the end time when it ends.

Nothing here can fail a run: git missing, not a repository, a timeout, an unreadable agent source all leave the
field absent.
"""

from __future__ import annotations

import contextlib
import inspect
import os
import subprocess
import time
from collections.abc import Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from .._util.version import VERSION
from ..model import EvalMetric, RunMetadata, check_label_key, parse_labels

__all__ = [
    "GIT_TIMEOUT",
    "agent_source",
    "checked_labels",
    "default_judge",
    "finish_metadata",
    "git_state",
    "judge_models",
    "start_metadata",
]

GIT_TIMEOUT = 2.0
"""Seconds each ``git`` command may take before its field is left out (a huge or network-mounted repository)."""


def _repository_root(start: Path) -> Path | None:
    """The nearest directory at or above ``start`` holding ``.git`` (a directory, or a worktree's file)."""
    for folder in (start, *start.parents):
        if (folder / ".git").exists():
            return folder
    return None


def _git(root: Path, *args: str) -> str | None:
    """The stripped output of ``git args`` in ``root``; ``None`` when git is missing, fails or is too slow."""
    # GIT_OPTIONAL_LOCKS=0: `git status` must not take the index lock another git process (an IDE) may hold.
    env = {**os.environ, "GIT_OPTIONAL_LOCKS": "0", "GIT_TERMINAL_PROMPT": "0"}
    try:
        done = subprocess.run(
            ["git", *args],
            cwd=root,
            capture_output=True,
            text=True,
            timeout=GIT_TIMEOUT,
            env=env,
            check=False,
            stdin=subprocess.DEVNULL,
        )
    except (OSError, subprocess.SubprocessError, ValueError):
        return None
    return done.stdout.strip() if done.returncode == 0 else None


def git_state(directory: str | os.PathLike[str] | None = None) -> dict[str, Any]:
    """``git_commit``, ``git_branch`` and ``git_dirty`` of the repository holding ``directory`` (default: the
    working directory), each present only when git answered; empty outside a repository.

    ``git_dirty`` is true when tracked files differ from the commit (staged or not); untracked files do not count,
    as with ``git describe --dirty``.
    """
    root = _repository_root(Path(directory if directory is not None else Path.cwd()).absolute())
    if root is None:
        return {}
    # One git process for all three (each costs ~15 ms of start-up before the run begins).
    status = _git(root, "status", "--porcelain=v2", "--branch", "--untracked-files=no")
    if status is None:
        return {}
    out: dict[str, Any] = {}
    dirty = False
    for line in status.splitlines():
        if line.startswith("# branch.oid "):
            commit = line.removeprefix("# branch.oid ")
            if commit != "(initial)":
                out["git_commit"] = commit
        elif line.startswith("# branch.head "):
            branch = line.removeprefix("# branch.head ")
            if branch != "(detached)":
                out["git_branch"] = branch
        elif line and not line.startswith("#"):
            dirty = True
    out["git_dirty"] = dirty
    return out


def _public_url(url: str) -> str:
    """``url`` without credentials, query or fragment (they may hold tokens)."""
    parts = urlsplit(url)
    host = parts.hostname or ""
    if parts.port is not None:
        host = f"{host}:{parts.port}"
    return urlunsplit((parts.scheme, host, parts.path, "", ""))


def agent_source(agent: object) -> dict[str, Any]:
    """``agent`` and ``agent_source_hash`` of an agent: a spec string (path, directory, ``module:attr``; a remote
    URL is recorded without credentials and not hashed) or an agent object (its module's source is hashed)."""
    if agent is None:
        return {}
    source: str | None = None
    if isinstance(agent, str):
        spec = agent
    else:
        if type(agent).__module__.startswith("agentgauge.") and hasattr(agent, "_fn"):
            agent = agent._fn  # a callable wrapped by agentgauge's adapter: the user's code is the callable
        target = agent if inspect.isroutine(agent) or inspect.isclass(agent) else type(agent)
        spec = f"{target.__module__}:{target.__qualname__}"
        with contextlib.suppress(TypeError, OSError):
            source = inspect.getsourcefile(target)
    if "://" in spec:
        return {"agent": _public_url(spec)}
    from ..service import agent_identity

    try:
        identity = agent_identity(source or spec)
    except (OSError, ValueError, ImportError):
        return {"agent": spec}
    _, sep, digest = identity.rpartition("#")
    return {"agent": spec, "agent_source_hash": digest} if sep else {"agent": spec}


def _judge_names(value: Any) -> Iterator[str]:
    """Judge model names anywhere in a metric's JSON: trpc's ``judgeModel.modelName``, ADK's
    ``judge_model_options.judge_model``."""
    if isinstance(value, Mapping):
        for key, item in value.items():
            if key in ("judgeModel", "judge_model"):
                if isinstance(item, str) and item:
                    yield item
                elif isinstance(item, Mapping):
                    name = item.get("modelName", item.get("model_name"))
                    if isinstance(name, str) and name:
                        yield name
            else:
                yield from _judge_names(item)
    elif isinstance(value, list):
        for item in value:
            yield from _judge_names(item)


def judge_models(
    metrics: Iterable[EvalMetric], default: str | None = None, registry: object | None = None
) -> list[str]:
    """The judge models the metrics name, in order; ``default`` (the run's default judge) is added when a judge
    metric (as ``registry`` tells) names none."""
    from ..service._selection import metric_needs_judge

    names: list[str] = []
    for metric in metrics:
        found = list(_judge_names(metric.model_dump(mode="json")))
        if not found and default and registry is not None and metric_needs_judge(registry, metric):
            found = [default]
        names.extend(n for n in found if n not in names)
    return names


def checked_labels(labels: Mapping[str, str] | Sequence[str] | None) -> dict[str, str]:
    """``labels`` as a checked dict (``KEY=VALUE`` strings are parsed); ``ValueError`` names the first bad one."""
    if labels is None:
        return {}
    if isinstance(labels, Mapping):
        for key in labels:  # a key holding "=" would otherwise be split as KEY=VALUE below
            check_label_key(key)
        return parse_labels(f"{key}={value}" for key, value in labels.items())
    return parse_labels([labels] if isinstance(labels, str) else labels)


def default_judge(registry: object) -> str | None:
    """The model of the run's default judge: the registry's ``default_judge_model`` setting, else
    ``AGENTGAUGE_JUDGE_MODEL`` (``None`` when neither names one)."""
    settings = getattr(registry, "judge_settings", None)
    block = getattr(settings, "default_judge_model", None)
    if isinstance(block, Mapping):
        name = block.get("modelName", block.get("model_name"))
        if isinstance(name, str) and name:
            return name
    return os.environ.get("AGENTGAUGE_JUDGE_MODEL") or None


def start_metadata(
    labels: Mapping[str, str] | None, agent: object, metrics: Iterable[EvalMetric], registry: object = None
) -> RunMetadata:
    """The metadata known when a run starts (labels, git, agent source, the judges of ``metrics`` as ``registry``
    runs them, version, start time)."""
    return RunMetadata(
        labels=dict(labels or {}),
        **git_state(),
        **agent_source(agent),
        judge_models=judge_models(metrics, default_judge(registry), registry),
        agentgauge_version=VERSION,
        started_at=time.time(),
    )


def finish_metadata(metadata: RunMetadata, models: Iterable[str], finished_at: float) -> RunMetadata:
    """``metadata`` with the agent models seen during the run and its end time."""
    seen = list(dict.fromkeys([*metadata.models, *models]))
    return metadata.model_copy(update={"models": seen, "finished_at": finished_at})
