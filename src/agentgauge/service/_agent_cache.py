"""A cache of agent responses, so a run can be scored again (new metrics, new thresholds) without calling the agent.

An entry holds what the agent produced for one case in one run (its invocations), keyed by

- the agent's identity: how it was named (``agent.py``, a directory, ``package.module:attr``) and a hash of its
  source (the agent file and the ``.py`` files beside it, or every ``.py`` file of the package directory), so editing
  the agent's code misses the cache;
- the request: the case's user turns and context messages, its session input (app, user, initial state) and the
  run number (run 2 of ``--num-runs 3`` gets run 2's answers back).

Only successful inferences are stored; a failed or timed-out case is asked again next time. Entries are written
atomically (one JSON file each, ``<dir>/<2 hex>/<sha256>.json``) with registered secrets masked; the request itself
is never written, only its hash. What the key cannot see -- a model name read from an environment variable, a remote
service behind the agent -- is not part of it: use another cache directory when those change.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
from pathlib import Path

import orjson
from pydantic import ValidationError

from .._util.fileio import atomic_write
from ..model import EvalCase, Invocation

__all__ = ["AgentResponseCache", "agent_identity"]

_VERSION = 1


def _hash_files(files: list[Path], root: Path) -> str:
    digest = hashlib.sha256()
    for file in sorted(files):
        digest.update(os.fsencode(file.relative_to(root).as_posix()) + b"\0")
        digest.update(hashlib.sha256(file.read_bytes()).digest())
    return digest.hexdigest()


def _python_files(folder: Path, *, recursive: bool) -> list[Path]:
    found = folder.rglob("*.py") if recursive else folder.glob("*.py")
    return [p for p in found if p.is_file() and not any(part.startswith((".", "__pycache__")) for part in p.parts)]


def agent_identity(spec: str) -> str:
    """``spec`` plus a hash of the agent's source: an ``agent.py`` file with the ``.py`` files beside it, an agent
    directory with every ``.py`` file below it, or the module file / package directory of ``package.module:attr``
    (call after the agent was loaded, so the module can be found)."""
    path = Path(spec)
    if path.is_dir():
        root = path.resolve()
        return f"{spec}#{_hash_files(_python_files(root, recursive=True), root)}"
    if spec.endswith(".py") and path.is_file():
        root = path.resolve().parent
        return f"{spec}#{_hash_files(_python_files(root, recursive=False), root)}"
    module = spec.partition(":")[0]
    try:
        found = importlib.util.find_spec(module)
    except (ImportError, ValueError):
        found = None
    origin = Path(found.origin) if found is not None and found.origin else None
    if origin is None or not origin.is_file():
        return spec  # a namespace or built-in module: the name is all there is
    if origin.name == "__init__.py":
        return f"{spec}#{_hash_files(_python_files(origin.parent, recursive=True), origin.parent)}"
    return f"{spec}#{_hash_files([origin], origin.parent)}"


class AgentResponseCache:
    """Agent responses per (agent identity, request, run) under ``directory`` (see the module docstring).

    ``hits`` and ``misses`` count lookups, ``stored`` the entries written.
    """

    def __init__(self, directory: str | os.PathLike[str], identity: str) -> None:
        self.directory = Path(directory).absolute()
        self.identity = identity
        self.hits = 0
        self.misses = 0
        self.stored = 0

    def key(self, case: EvalCase, run_id: int) -> str:
        """The entry's key: a sha256 over the agent identity, the case's request and the run number."""
        session = case.session_input
        request = {
            "version": _VERSION,
            "agent": self.identity,
            "run": run_id,
            "session": session.model_dump(mode="json") if session is not None else None,
            "context": [m.model_dump(mode="json") for m in case.context_messages],
            "turns": [
                {
                    "user": turn.user_content.model_dump(mode="json"),
                    "context": [m.model_dump(mode="json") for m in turn.context_messages],
                }
                for turn in case.conversation or []
            ],
        }
        return hashlib.sha256(orjson.dumps(request, option=orjson.OPT_SORT_KEYS)).hexdigest()

    def _path(self, key: str) -> Path:
        return self.directory / key[:2] / f"{key}.json"

    def get(self, case: EvalCase, run_id: int) -> list[Invocation] | None:
        """The cached invocations of this case and run, or ``None`` (an unreadable entry is a miss)."""
        try:
            doc = orjson.loads(self._path(self.key(case, run_id)).read_bytes())
            found = [Invocation.model_validate(item) for item in doc["inferences"]]
        except (OSError, orjson.JSONDecodeError, ValidationError, KeyError, TypeError):
            self.misses += 1
            return None
        self.hits += 1
        return found

    def put(self, case: EvalCase, run_id: int, inferences: list[Invocation]) -> None:
        """Store what the agent produced for this case and run (atomically, registered secrets masked)."""
        key = self.key(case, run_id)
        doc = {
            "version": _VERSION,
            "evalId": case.eval_id,
            "runId": run_id,
            "inferences": [inv.model_dump(mode="json") for inv in inferences],
        }
        atomic_write(self._path(key), orjson.dumps(doc), durable=False)  # cheap to recreate: no fsync
        self.stored += 1
