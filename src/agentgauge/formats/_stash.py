"""Native-only data carried through an ADK file in the eval case's ``agentgauge`` key.

ADK's ``Invocation`` and genai types reject unknown keys, but ``EvalCase`` keeps them. When an invocation cannot be
written in ADK form without losing something (context messages, message extras, non-object tool results, ...), the
full native invocation is stored here with a fingerprint of what the ADK form reads back as. On reading, the stored
invocation is used only while the ADK invocation still reads back to that fingerprint, so edits made with ADK tools
win over the stash.
"""

from __future__ import annotations

import hashlib
from typing import Any

import orjson

from ..model import Invocation
from ._jsonexact import dumps

__all__ = ["STASH_KEY", "fingerprint"]

STASH_KEY = "agentgauge"


def fingerprint(invocation: Invocation) -> str:
    """A short stable hash of an invocation's native JSON form."""
    data: Any = invocation.model_dump(mode="json")
    return hashlib.sha256(dumps(data, option=orjson.OPT_SORT_KEYS)).hexdigest()[:24]
