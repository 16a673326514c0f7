"""The cases of a trace run handed to the run one at a time, each built when it is dispatched from the conversation
index (:class:`~agentgauge.traces.ConversationIndex`), so a run over a large trace input holds a compact index and
the cases in flight, never every conversation."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from ..errors import NotFoundError
from ..model import EvalCase, EvalSet, SessionInput
from ..service import index_stub

if TYPE_CHECKING:  # pragma: no cover
    from ..traces import ConversationIndex, PlannedCase

__all__ = ["TraceCases"]


class TraceCases:
    """An eval-set source for one trace-mode eval set that streams its cases (a
    :class:`~agentgauge.service.CaseStream`: :meth:`index` for selection and checks, :meth:`iter_cases` for the
    run)."""

    def __init__(
        self, index: ConversationIndex, planned: list[PlannedCase], eval_set_id: str, description: str | None = None
    ) -> None:
        self._index = index
        self._planned = planned
        sessions: dict[str, SessionInput] = {}
        stubs = [
            index_stub(
                EvalCase.model_construct(eval_id=p.eval_id, eval_mode="trace", session_input=p.session_input), sessions
            )
            for p in planned
        ]
        self.header = EvalSet(eval_set_id=eval_set_id, name=eval_set_id, description=description)
        """The eval set with index-only cases (ids, mode, app name)."""
        self.header.eval_cases = stubs

    @property
    def eval_set_id(self) -> str:
        """The eval set's id."""
        return self.header.eval_set_id

    def _check(self, eval_set_id: str) -> None:
        if eval_set_id != self.header.eval_set_id:
            raise NotFoundError(f"eval set {eval_set_id!r} not found (this one is {self.header.eval_set_id!r})")

    def index(self, app_name: str, eval_set_id: str) -> EvalSet:
        """The eval set with index-only cases (see :attr:`header`)."""
        self._check(eval_set_id)
        return self.header

    def iter_cases(self, app_name: str, eval_set_id: str) -> Iterator[EvalCase]:
        """Every case in full, in order, each built (its conversation read back) as the iterator advances."""
        self._check(eval_set_id)
        for planned in self._planned:
            yield planned.build(self._index)

    def get(self, app_name: str, eval_set_id: str) -> EvalSet:
        """The whole eval set, every case built (for callers that need all cases at once)."""
        full = self.header.model_copy()
        full.eval_cases = list(self.iter_cases(app_name, eval_set_id))
        return full
