"""Where a session's user turns come from: a fixed conversation, or (see :mod:`agentgauge.simulation`) a simulated
user; each turn with the tool mocks in force while the agent answers it. Also the recorded turns of a trace-mode case
(actuals and expecteds) and :class:`CaseError`, shared by plain and simulated inference."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from ..mocks import ActiveMocks, MockResultGenerator, mocks_for
from ..model import EvalCase, Invocation

__all__ = ["CaseError", "StaticTurns", "TurnSource", "expected_invocations", "trace_invocations", "user_only"]


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


class CaseError(ValueError):
    """A case cannot be run as written (reported as the case's ``errorMessage``).

    ``traceback`` is the formatted traceback of the agent exception behind it (secrets masked), if any.
    """

    def __init__(self, message: str, traceback: str | None = None) -> None:
        super().__init__(message)
        self.traceback = traceback


def user_only(invocation: Invocation) -> Invocation:
    """A copy of ``invocation`` keeping only its id and user content (an expectation with nothing expected)."""
    return Invocation(invocation_id=invocation.invocation_id, user_content=invocation.user_content)


def trace_invocations(case: EvalCase) -> tuple[list[Invocation], list[Invocation]]:
    """The (actuals, expecteds) of a trace-mode case, per the trace-mode table.

    ========================  ==================  =====================================  ==================
    conversation              actualConversation  actuals                                expecteds
    ========================  ==================  =====================================  ==================
    set                       –                   conversation                           user-input-only
    –                         set                 actualConversation                     user-input-only
    set                       set (same length)   actualConversation                     conversation
    ========================  ==================  =====================================  ==================
    """
    expected, actual = case.conversation or [], case.actual_conversation or []
    if case.conversation_scenario is not None:
        raise CaseError("conversationScenario is not allowed in trace mode")
    if expected and actual:
        if len(expected) != len(actual):
            raise CaseError(
                f"actualConversation has {len(actual)} invocations but conversation has {len(expected)}; "
                "trace mode needs the same length"
            )
        return list(actual), list(expected)
    recorded = actual or expected
    if not recorded:
        raise CaseError("trace-mode case has neither conversation nor actualConversation")
    return list(recorded), [user_only(inv) for inv in recorded]


def expected_invocations(case: EvalCase) -> list[Invocation]:
    """What a case's actual invocations are scored against."""
    if case.is_trace:
        return trace_invocations(case)[1]
    return list(case.conversation or [])
