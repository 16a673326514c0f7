"""The ``--out`` folder of an optimisation: its state (what is done, for a run again to continue), the proposed
patch, the patched agent and the audit report. Only these names are ever written there, and a folder that holds
anything else (the user's files) is refused."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ..errors import InputError
from ._audit import AuditReport
from ._patch import Patch

__all__ = ["OutDir", "load_patched_agent"]

STATE = "state.json"
PATCH = "patch.json"
AUDIT = "audit.json"
_OURS = {STATE, PATCH, AUDIT, "audit.md", "audit.html", "agent_cache", "search"}

_AGENT_FILE = '''"""An agent with the texts agentgauge optimize proposed (../patch.json), {verdict}.

Optimisation: {oid}
Original agent: {spec}

The original agent is loaded and the texts the patch names are replaced; run this one as you run the original, e.g.
``agentgauge eval {here} EVAL_SET``.
"""

from pathlib import Path

from agentgauge.optimize import load_patched_agent

root_agent = load_patched_agent({spec!r}, Path(__file__).resolve().parents[1] / "patch.json")
'''


def load_patched_agent(spec: str, patch_file: str | Path) -> object:
    """The agent ``spec`` names with the patch of ``patch_file`` applied (what the patched agent files call)."""
    from ..agents import load_agent_object
    from ._patch import apply_patch, load_patch
    from ._surfaces import surfaces_of

    patch = load_patch(patch_file)
    return apply_patch(surfaces_of(load_agent_object(spec), spec), patch, source=str(patch_file))


def _agent_spec(spec: str) -> str:
    """``spec`` as the patched agent file names it: a file or folder by its absolute path, ``module:attr`` as is."""
    path = Path(spec)
    return str(path.resolve()) if path.exists() else spec


def _folder_name(spec: str) -> str:
    """The patched agent's folder: the agent folder's name (as ADK names the app), a file's stem, or a module's last
    name; ``agent`` when that is empty or one of the names the folder already uses."""
    path = Path(spec)
    if path.exists():
        name = path.resolve().name if path.is_dir() else path.stem
    else:
        name = spec.partition(":")[0].rpartition(".")[2]
    return name if name and name not in _OURS and name.isidentifier() else "agent"


class OutDir:
    """The ``--out`` folder (created on first write)."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def check(self, fingerprint: str, protected: list[Path]) -> bool:
        """Refuse a folder that holds the agent's files (``protected``), someone else's files or another
        optimisation; ``True`` when it holds this one's state (a run again continues it)."""
        where = self.path.resolve()
        for item in protected:
            target = item.resolve()
            if where == target or where in target.parents:
                raise InputError(f"--out {self.path}: holds the agent's files; choose a folder of its own")
        if not self.path.exists():
            return False
        if not self.path.is_dir():
            raise InputError(f"--out {self.path}: not a folder")
        state = self.state()
        foreign = sorted(
            p.name
            for p in self.path.iterdir()
            if p.name not in _OURS and not (self.path / p.name / "agent.py").is_file()
        )
        if state is None and foreign:
            raise InputError(f"--out {self.path}: holds other files ({', '.join(foreign[:3])}); choose an empty folder")
        if state is not None and state.get("fingerprint") != fingerprint:
            raise InputError(
                f"--out {self.path}: holds another optimisation (other agent, sets, metrics or settings); choose "
                "another folder"
            )
        return state is not None

    def state(self) -> dict[str, Any] | None:
        """The saved state (``None`` when there is none or it cannot be read: a torn write starts over)."""
        try:
            data = json.loads((self.path / STATE).read_bytes())
        except (OSError, ValueError):
            return None
        return data if isinstance(data, dict) else None

    def save_state(self, state: dict[str, Any]) -> None:
        """Write the state atomically."""
        from .._util.fileio import atomic_write

        atomic_write(self.path / STATE, json.dumps(state, indent=1, sort_keys=True).encode("utf-8"))

    @property
    def search_dir(self) -> Path:
        """Where the optimiser keeps its own state."""
        return self.path / "search"

    @property
    def agent_cache(self) -> Path:
        """Where candidates' agent answers are cached."""
        return self.path / "agent_cache"

    def write_patch(self, patch: Patch, report: AuditReport) -> Path:
        """``patch.json`` and the patched agent (``<name>/agent.py`` with ``__init__.py``); the agent's folder."""
        from .._util.fileio import atomic_write

        atomic_write(self.path / PATCH, patch.model_dump_json(indent=2).encode("utf-8"))
        folder = self.path / _folder_name(report.agent)
        spec = _agent_spec(report.agent)
        text = _AGENT_FILE.format(
            oid=report.optimization_id, verdict=report.verdict, spec=spec, here=folder / "agent.py"
        )
        atomic_write(folder / "agent.py", text.encode("utf-8"))
        atomic_write(folder / "__init__.py", b"from . import agent  # noqa: F401\n")
        return folder

    def write_audit(self, report: AuditReport) -> list[Path]:
        """``audit.json``, ``audit.md`` and ``audit.html``."""
        from .._util.fileio import atomic_write
        from ._report import render_audit_html, render_audit_markdown

        written = []
        for name, data in (
            (AUDIT, report.model_dump_json(indent=2)),
            ("audit.md", render_audit_markdown(report)),
            ("audit.html", render_audit_html(report)),
        ):
            atomic_write(self.path / name, data.encode("utf-8"))
            written.append(self.path / name)
        return written
