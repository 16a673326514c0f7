"""What an optimisation may rewrite in an agent (its *surfaces*) and how a patched copy of the agent is made.

A surface is one named text: an ADK agent's instruction (``<agent name>#instruction``, the root and every
sub-agent) and the instructions of the skills of its ``SkillToolset``s (``<agent name>#skill:<skill name>``), an
:class:`~agentgauge.agents.OpenAIAgent`'s system prompt (``system_prompt``) and tool descriptions
(``tool:<name>``), or any field a Python agent names through :class:`~agentgauge.agents.TextFields`. A patch maps
surface ids to new texts; :meth:`AgentSurfaces.patched` builds a new agent with them and never changes the agent it
was given.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from ..agents import has_text_fields
from ..errors import InputError
from ..model import GaugeModel

__all__ = ["AgentSurfaces", "Surface", "SurfaceKind", "surfaces_of", "text_hash"]

SurfaceKind = str
"""``instruction``, ``skill``, ``system_prompt``, ``tool`` or ``text`` (any other field of a Python agent)."""


def text_hash(text: str) -> str:
    """The SHA-256 of a text (UTF-8), as the audit report names prompts."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


class Surface(GaugeModel):
    """One rewritable text of an agent: its id (what patches name), kind, owner (the agent or tool it belongs to)
    and baseline text."""

    surface_id: str
    kind: SurfaceKind
    owner: str = ""
    text: str

    @property
    def sha256(self) -> str:
        """The hash of the baseline text."""
        return text_hash(self.text)


@dataclass
class AgentSurfaces:
    """An agent as loaded (``obj``), named by ``spec``, with its surfaces (all of them, or the ones chosen)."""

    spec: str
    obj: object
    surfaces: list[Surface] = field(default_factory=list)

    def texts(self) -> dict[str, str]:
        """Surface id → baseline text."""
        return {s.surface_id: s.text for s in self.surfaces}

    def surface(self, surface_id: str) -> Surface:
        """The surface of this id (``KeyError`` when there is none)."""
        for found in self.surfaces:
            if found.surface_id == surface_id:
                return found
        raise KeyError(surface_id)

    def patched(self, texts: Mapping[str, str]) -> object:
        """A new agent object with ``texts`` (surface id → text) in place of the baseline texts; ids that are
        not surfaces raise :class:`InputError`."""
        known = self.texts()
        unknown = [sid for sid in texts if sid not in known]
        if unknown:
            raise InputError(f"{self.spec}: the agent has no text {unknown[0]!r}; its texts are {', '.join(known)}")
        changed = {sid: text for sid, text in texts.items() if text != known[sid]}
        if not changed:
            return self.obj
        if _is_adk(self.obj):
            from ._adk_surfaces import patched_adk_agent

            return patched_adk_agent(self.obj, changed)
        return self.obj.with_text_fields(changed)  # type: ignore[attr-defined]

    def choose(self, wanted: Iterable[str]) -> AgentSurfaces:
        """Only the surfaces named in ``wanted`` (an unknown id raises :class:`InputError` listing the ids)."""
        ids = list(wanted)
        if not ids:
            return self
        known = [s.surface_id for s in self.surfaces]
        for sid in ids:
            if sid not in known:
                raise InputError(f"--surface: {self.spec} has no text {sid!r}; its texts are {', '.join(known)}")
        return AgentSurfaces(self.spec, self.obj, [s for s in self.surfaces if s.surface_id in ids])


def _is_adk(obj: object) -> bool:
    return any(cls.__module__.startswith("google.adk.") for cls in type(obj).__mro__)


def _kind(name: str) -> SurfaceKind:
    if name == "system_prompt":
        return "system_prompt"
    return "tool" if name.startswith("tool:") else "text"


def _field_surfaces(obj: object, spec: str) -> list[Surface]:
    texts = obj.text_fields()  # type: ignore[attr-defined]
    if not isinstance(texts, Mapping) or not all(isinstance(k, str) and isinstance(v, str) for k, v in texts.items()):
        raise InputError("text_fields() must return a mapping of names to texts (str → str)", file=spec)
    return [
        Surface(
            surface_id=name,
            kind=_kind(name),
            owner=name.partition(":")[2] if name.startswith("tool:") else "",
            text=text,
        )
        for name, text in texts.items()
    ]


def surfaces_of(obj: object, spec: str) -> AgentSurfaces:
    """The surfaces of the agent object ``obj`` (named ``spec`` in messages); :class:`InputError` when it has none:
    an agent whose texts cannot be read (a plain function, a remote agent, an ADK agent with only instruction
    providers)."""
    if _is_adk(obj):
        from ._adk_surfaces import adk_surfaces

        found = adk_surfaces(obj)
    elif has_text_fields(obj):
        found = _field_surfaces(obj, spec)
    else:
        raise InputError(
            f"the agent ({type(obj).__name__}) has no texts to optimise: use a Google ADK agent, an OpenAIAgent, or "
            "give it text_fields() and with_text_fields() (agentgauge.agents.TextFields)",
            file=spec,
        )
    if not found:
        raise InputError("the agent has no static text to optimise (its instructions are all providers)", file=spec)
    return AgentSurfaces(spec, obj, found)
