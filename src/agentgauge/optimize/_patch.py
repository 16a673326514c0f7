"""A candidate as a patch: surface id → new text, with the hash of the text each one replaces, and its diff.

``patch.json`` (what ``agentgauge optimize`` writes in ``--out``) is a :class:`Patch`; :func:`load_patch` reads one
and :func:`apply_patch` applies it to an agent's surfaces, refusing a patch made for other texts than the agent has
now (a surface's hash differs).
"""

from __future__ import annotations

import difflib
import json
from collections.abc import Mapping
from pathlib import Path

from pydantic import Field

from ..errors import InputError
from ..model import GaugeModel
from ..model._base import empty_dict
from ._surfaces import AgentSurfaces, text_hash

__all__ = ["Patch", "apply_patch", "load_patch", "make_patch", "patch_diff", "patch_id"]


class Patch(GaugeModel):
    """New texts for some of an agent's surfaces (only the surfaces that change)."""

    agent: str = ""
    """The agent the patch was made for, as it was named (a file, a directory or ``module:attribute``)."""
    texts: dict[str, str] = Field(default_factory=empty_dict)
    """Surface id → new text."""
    replaces: dict[str, str] = Field(default_factory=empty_dict)
    """Surface id → SHA-256 of the text it replaces."""

    @property
    def empty(self) -> bool:
        """Whether the patch changes nothing."""
        return not self.texts


def patch_id(texts: Mapping[str, str]) -> str:
    """A short, stable id of a set of texts (the first 16 hex digits of the SHA-256 of their canonical JSON)."""
    canonical = json.dumps(dict(sorted(texts.items())), ensure_ascii=False, separators=(",", ":"))
    return text_hash(canonical)[:16]


def make_patch(surfaces: AgentSurfaces, texts: Mapping[str, str]) -> Patch:
    """The patch turning the agent's baseline texts into ``texts`` (unchanged surfaces are left out)."""
    base = surfaces.texts()
    changed = {sid: text for sid, text in texts.items() if sid in base and base[sid] != text}
    return Patch(agent=surfaces.spec, texts=changed, replaces={sid: text_hash(base[sid]) for sid in changed})


def patch_diff(base: Mapping[str, str], patch: Patch) -> str:
    """The patch as a unified diff, one file per surface (``a/<surface id>`` → ``b/<surface id>``)."""
    parts: list[str] = []
    for sid, text in patch.texts.items():
        before = base.get(sid, "")
        lines = difflib.unified_diff(
            before.splitlines(keepends=True), text.splitlines(keepends=True), f"a/{sid}", f"b/{sid}"
        )
        parts.append("".join(line if line.endswith("\n") else line + "\n" for line in lines))
    return "".join(parts)


def load_patch(path: str | Path) -> Patch:
    """Read ``patch.json``; a file that is not a patch raises :class:`InputError` naming it."""
    from ..formats import load_json_model

    return load_json_model(path, Patch)


def apply_patch(surfaces: AgentSurfaces, patch: Patch, *, source: str = "patch") -> object:
    """The agent of ``surfaces`` with ``patch`` applied. A surface the agent lacks, or whose text changed since the
    patch was made (its hash differs from ``patch.replaces``), raises :class:`InputError` naming ``source``."""
    base = surfaces.texts()
    for sid in patch.texts:
        if sid not in base:
            raise InputError(f"the agent has no text {sid!r} (its texts: {', '.join(base)})", file=source)
        expected = patch.replaces.get(sid)
        if expected is not None and expected != text_hash(base[sid]):
            raise InputError(
                f"the agent's text {sid!r} changed since the patch was made: optimise it again", file=source
            )
    return surfaces.patched(patch.texts)
