"""Where a session's user turns come from: a fixed conversation, or (see :mod:`agentgauge.simulation`) a simulated
user; each turn with the tool mocks in force while the agent answers it."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from ..mocks import ActiveMocks, MockResultGenerator, mocks_for
from ..model import Invocation

__all__ = ["StaticTurns", "TurnSource"]


class TurnSource(Protocol):
    """Where a session's user turns come from: a fixed conversation (:class:`StaticTurns`) or a simulated user."""

    session_id: str

    async def next(self, actuals: Sequence[Invocation]) -> Invocation | None:
        """The next input invocation (its user content is sent) given the turns so far; ``None`` ends the session."""
        ...

    def mocks(self, invocation: Invocation) -> ActiveMocks | None:
        """The tool mocks in force while the agent answers ``invocation``."""
        ...

    def where(self, index: int, invocation: Invocation) -> str:
        """How error messages name turn ``index``."""
        ...


class StaticTurns:
    """The turns of a fixed conversation, with their ``toolMock`` rules of one ``side`` (actual or expected)."""

    def __init__(
        self,
        inputs: Sequence[Invocation],
        session_id: str,
        *,
        side: str = "actual",
        generator: MockResultGenerator | None = None,
    ) -> None:
        self.inputs = list(inputs)
        self.session_id = session_id
        self.side = side
        self.generator = generator

    async def next(self, actuals: Sequence[Invocation]) -> Invocation | None:
        """The input after the ``len(actuals)`` answered ones."""
        return self.inputs[len(actuals)] if len(actuals) < len(self.inputs) else None

    def mocks(self, invocation: Invocation) -> ActiveMocks | None:
        """The invocation's mocks for this side (see :func:`agentgauge.mocks.mocks_for`)."""
        return mocks_for(invocation, "expected" if self.side == "expected" else "actual", self.generator)

    def where(self, index: int, invocation: Invocation) -> str:
        """``invocation i of n (id)``."""
        label = f" ({invocation.invocation_id})" if invocation.invocation_id else ""
        run = " of the expected agent's run" if self.side == "expected" else ""
        return f"invocation {index + 1} of {len(self.inputs)}{label}{run}"
