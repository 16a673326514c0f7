"""What a replayed turn did with its recording: the tool calls the recording answered, the calls whose arguments
drifted, the calls it had no result for and the recorded results nobody asked for (saved on the actual invocation).
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from ._base import GaugeModel, empty_list, omit_empty

__all__ = ["REPLAY_MODES", "ReplayCall", "ReplayDrift", "ReplayMode", "ReplayRecord"]

ReplayMode = Literal["fifo", "strict"]
"""How recorded tool results answer a replayed turn's calls: ``fifo`` (the calls of one tool take the recorded
results in order, whatever their arguments) or ``strict`` (a call takes a recorded result only when its arguments
are the recorded ones; any other call is answered with an error the agent sees)."""

REPLAY_MODES: tuple[ReplayMode, ...] = ("fifo", "strict")


class ReplayCall(GaugeModel):
    """One tool call of a replayed turn: ``call`` is its position among the turn's tool calls (1-based; for an
    unconsumed recorded result, the position it had in the recording)."""

    call: int
    name: str
    arguments: Any = None
    reason: str | None = omit_empty()
    """Why the recording could not answer it (unrecorded calls only)."""


class ReplayDrift(GaugeModel):
    """A call whose arguments differ from the recorded call it was matched with (``recorded_call``, its position in
    the recording): both sides and the difference (``actual 'Lyon' != expected 'Paris' at $.city``). ``served``: the
    recorded result answered it (``fifo``); else the agent got an error (``strict``)."""

    call: int
    recorded_call: int = 0
    name: str
    recorded: Any = None
    arguments: Any = None
    difference: str = ""
    served: bool = False


class ReplayRecord(GaugeModel):
    """How one invocation's tool calls were served from its recording (``toolMock.replay``).

    ``recorded`` counts the recorded calls; ``answered`` are the calls answered with identical arguments (the
    canonical JSON comparison of the trajectory criterion), ``drift`` those matched with a recorded call of the
    same tool but other arguments, ``unrecorded`` the calls the recording has no result for (a tool it never saw,
    or more calls of a tool than it recorded) and ``unconsumed`` the recorded results no call took.
    """

    mode: ReplayMode
    recorded: int = 0
    answered: list[ReplayCall] = Field(default_factory=empty_list)
    drift: list[ReplayDrift] = omit_empty(factory=list)
    unrecorded: list[ReplayCall] = omit_empty(factory=list)
    unconsumed: list[ReplayCall] = omit_empty(factory=list)

    @property
    def faithful(self) -> int:
        """Recorded calls consumed with identical arguments."""
        return len(self.answered)

    @property
    def denominator(self) -> int:
        """What fidelity is a share of: every recorded call, plus every call the recording does not have."""
        return self.recorded + len(self.unrecorded)

    @property
    def fidelity(self) -> float:
        """``faithful / denominator`` (1.0 for a turn with no recorded and no unrecorded call)."""
        return self.faithful / self.denominator if self.denominator else 1.0
