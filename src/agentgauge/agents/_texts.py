"""The texts of an agent that an optimiser may rewrite: the :class:`TextFields` protocol.

An agent exposes named texts (instructions, a system prompt, tool descriptions) with ``text_fields()`` and builds a
copy of itself with other texts with ``with_text_fields(texts)``. ``agentgauge optimize`` reads the texts, proposes
new ones and evaluates the copies; it never changes the agent it was given. :class:`~agentgauge.agents.OpenAIAgent`
implements the protocol; any Python agent can::

    class Support:
        def __init__(self, instruction: str = "Answer politely.") -> None:
            self.instruction = instruction

        def text_fields(self) -> dict[str, str]:
            return {"instruction": self.instruction}

        def with_text_fields(self, texts):
            return Support(texts.get("instruction", self.instruction))

        def run(self, request): ...
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Protocol, runtime_checkable

__all__ = ["TextFields", "has_text_fields"]


@runtime_checkable
class TextFields(Protocol):
    """An agent whose named texts can be read and replaced (see the module's description)."""

    def text_fields(self) -> Mapping[str, str]:
        """The agent's rewritable texts by name (the names are the ids patches use; keep them stable)."""
        ...

    def with_text_fields(self, texts: Mapping[str, str]) -> object:
        """A new agent with ``texts`` in place of the texts of the same names (the others unchanged); ``self``
        stays as it is."""
        ...


def has_text_fields(obj: object) -> bool:
    """Whether ``obj`` implements :class:`TextFields` (both methods callable)."""
    return callable(getattr(obj, "text_fields", None)) and callable(getattr(obj, "with_text_fields", None))
