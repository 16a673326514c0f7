"""A process-wide gate around outgoing model calls (agent turns, judge requests).

Nothing is gated by default. A distributed run installs a gate in each worker process (the Ray executor's
cluster-wide rate limiter), so every judge and agent call of that process waits for its endpoint's turn.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager

__all__ = ["CallGate", "gated", "set_call_gate"]

CallGate = Callable[[str], AbstractAsyncContextManager[None]]
"""``gate(endpoint)``: an async context manager held for the duration of one call to ``endpoint``."""

_gate: CallGate | None = None


def set_call_gate(gate: CallGate | None) -> CallGate | None:
    """Install ``gate`` for this process (``None`` removes it); return the previous one."""
    global _gate
    previous, _gate = _gate, gate
    return previous


@asynccontextmanager
async def _open() -> AsyncIterator[None]:
    yield


def gated(endpoint: str) -> AbstractAsyncContextManager[None]:
    """The context to hold around one call to ``endpoint`` (``"agent"``, ``"judge:<model>"``)."""
    gate = _gate
    return _open() if gate is None else gate(endpoint)
