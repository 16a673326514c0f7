"""Where a session's user turns come from: a fixed conversation, or (see :mod:`agentgauge.simulation`) a simulated
user; each turn with the tool mocks in force while the agent answers it. Also the recorded turns of a trace-mode case
(actuals and expecteds) and :class:`CaseError`, shared by plain and simulated inference."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from ..mocks import ActiveMocks, MockResultGenerator, mocks_for
from ..model import EvalCase, Invocation

__all__ = [
    "CaseError",
    "StaticTurns",
    "TurnSource",
    "expected_invocations",
    "trace_invocations",
    "turn_mismatches",
    "user_only",
]


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
    set                       set                 actualConversation (turns that line    conversation (same)
                                                  up: the shorter length)
    ========================  ==================  =====================================  ==================

    When the two conversations differ in length only the turns that line up are scored; the rest are named by
    :func:`turn_mismatches`, and fail the case.
    """
    expected, actual = case.conversation or [], case.actual_conversation or []
    if case.conversation_scenario is not None:
        raise CaseError("conversationScenario is not allowed in trace mode")
    if expected and actual:
        common = min(len(expected), len(actual))
        return list(actual[:common]), list(expected[:common])
    recorded = actual or expected
    if not recorded:
        raise CaseError("trace-mode case has neither conversation nor actualConversation")
    return list(recorded), [user_only(inv) for inv in recorded]


def _quoted(invocation: Invocation) -> str:
    text = " ".join(invocation.user_content.content.split())
    return repr(text if len(text) <= 60 else text[:59] + "…")


def turn_mismatches(case: EvalCase) -> tuple[list[str], list[Invocation]]:
    """Why a trace-mode case's recorded and expected conversations do not line up, and the recorded turns beyond
    the expected ones.

    One reason per turn: ``missing turn N`` (expected, not in the recording) or ``unexpected turn N`` (recorded,
    not expected), each with both lengths and the turn's user message. Empty for other cases and equal lengths.
    """
    expected, actual = case.conversation or [], case.actual_conversation or []
    if not case.is_trace or not expected or not actual or len(expected) == len(actual):
        return [], []
    lengths = f"the recording has {len(actual)} turn(s), the expected conversation {len(expected)}"
    reasons = [
        f"missing turn {n + 1}: expected user message {_quoted(expected[n])} has no recorded turn ({lengths})"
        for n in range(len(actual), len(expected))
    ]
    reasons += [
        f"unexpected turn {n + 1}: recorded user message {_quoted(actual[n])} has no expected turn ({lengths})"
        for n in range(len(expected), len(actual))
    ]
    return reasons, list(actual[len(expected) :])


def expected_invocations(case: EvalCase) -> list[Invocation]:
    """What a case's actual invocations are scored against."""
    if case.is_trace:
        return trace_invocations(case)[1]
    return list(case.conversation or [])
