"""Conversations of a large trace input without holding them: extracted one trace at a time, kept on disk.

:func:`index_conversations` reads the input with the streamed reader
(:func:`~agentgauge.traces._read.iter_trace_groups`: only the traces still open are in memory), extracts each
trace's conversation as soon as the trace is complete, writes it to a temporary spill file and keeps only a
*summary*: the same :class:`TraceConversation` with just its earliest invocation (user message and time), which is
all that matching a trace to a case needs (ids, session, first user text, app name).
:meth:`ConversationIndex.load` reads a conversation back in full when its case runs; with ``by_session`` the
summaries are merged by :func:`merge_by_session` exactly as whole conversations are, and a session's
conversations, wherever they sit in the input, are read back and merged the same way.
"""

from __future__ import annotations

import dataclasses
import gc
import os
import pickle
import tempfile
from typing import IO, cast

from ..errors import InputError
from ..model import EvalCase, Invocation, SessionInput
from ._cases import (
    TraceMatch,
    TraceMatching,
    _actual,
    _free_case,
    _matched_case,
    _session_input,
    _UniqueIds,
    merge_by_session,
)
from ._extract import TraceConversation, extract_conversation, is_genai_trace
from ._read import iter_trace_groups
from ._spans import Trace

__all__ = ["ConversationIndex", "PlannedCase", "index_conversations", "plan_cases"]

_TRACES_PER_COLLECTION = 500  # young-generation collections, whatever the collector's state (see _release)


class _UserText:
    """A user message reduced to its text (what ``TraceConversation.first_user_text`` reads)."""

    __slots__ = ("content",)

    def __init__(self, content: str) -> None:
        self.content = content


class _FirstTurn:
    """Stands in for an invocation in a summary: only what :func:`merge_by_session` (the time),
    ``first_user_text`` (the user message's text) and :func:`match_traces` (the invocation id a case made from the
    trace records) read; ~100 bytes instead of a few KB of model objects."""

    __slots__ = ("creation_timestamp", "invocation_id", "user_content")

    def __init__(self, creation_timestamp: float | None, text: str, invocation_id: str = "") -> None:
        self.creation_timestamp = creation_timestamp
        self.user_content = _UserText(text)
        self.invocation_id = invocation_id


def _summary(conversation: TraceConversation) -> TraceConversation:
    """The conversation with only its earliest invocation (the first of equal times, as a stable sort puts it),
    reduced to its user message text and time: merged summaries then start with the message merged
    conversations do."""
    invocations = conversation.invocations
    if not invocations:
        return dataclasses.replace(conversation, invocations=[], trace_ids=[], warnings=[])
    first = min(range(len(invocations)), key=lambda i: invocations[i].creation_timestamp or 0.0)
    earliest = invocations[first]
    turn = _FirstTurn(earliest.creation_timestamp, earliest.user_content.content, earliest.invocation_id)
    trace_ids = conversation.trace_ids
    trace_id = trace_ids[first] if first < len(trace_ids) else conversation.trace_id
    light = cast("list[Invocation]", [turn])
    return dataclasses.replace(conversation, invocations=light, trace_ids=[trace_id], warnings=[])


class ConversationIndex:
    """The conversations of a trace input as summaries (:attr:`conversations`), each loadable in full.

    Close it (or use it as a context manager) to remove the spill file.
    """

    def __init__(self, spill: IO[bytes]) -> None:
        self._spill = spill
        self._places: list[tuple[int, int]] = []  # (offset, length) of each extracted conversation
        self._groups: list[list[int]] = []  # the extracted conversations behind each summary
        self.conversations: list[TraceConversation] = []
        """One summary per conversation (per session with ``by_session``), in input order; see the module."""
        self.skipped: list[str] = []
        """The traces left out (no agent, LLM or tool span), one line each."""
        self.traces = 0
        """How many traces the input held."""

    @property
    def conversation_traces(self) -> int:
        """How many traces the conversations are made of (a session's traces each counted; skipped ones not)."""
        return sum(len(group) for group in self._groups)

    def _add(self, conversation: TraceConversation) -> int:
        data = pickle.dumps(conversation, protocol=pickle.HIGHEST_PROTOCOL)
        offset = self._spill.seek(0, os.SEEK_END)
        self._spill.write(data)
        self._places.append((offset, len(data)))
        return len(self._places) - 1

    def _read(self, number: int) -> TraceConversation:
        offset, length = self._places[number]
        self._spill.seek(offset)
        conversation = pickle.loads(self._spill.read(length))  # our own file, written by _add
        assert isinstance(conversation, TraceConversation)
        return conversation

    def load(self, number: int) -> TraceConversation:
        """The full conversation behind summary ``number`` (a session's traces merged, as ``merge_by_session``)."""
        group = self._groups[number]
        if len(group) == 1:
            return self._read(group[0])
        return merge_by_session([self._read(member) for member in group])[0]

    def close(self) -> None:
        """Remove the spill file."""
        self._spill.close()

    def __enter__(self) -> ConversationIndex:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def index_conversations(path: str | os.PathLike[str], *, by_session: bool = False) -> ConversationIndex:
    """Read every trace at ``path`` and index its conversation (see the module); raises as
    :func:`~agentgauge.traces.read_conversations` does, with the same messages: a reading error first, then the
    first trace (in input order) whose conversation cannot be extracted, then "no agent conversation found"."""
    # Closed by the index (its owner closes it when the run is over), so no context manager here.
    index = ConversationIndex(tempfile.TemporaryFile(prefix="agentgauge-traces-"))  # noqa: SIM115
    try:
        _fill(index, path, by_session)
    except BaseException:
        index.close()
        raise
    return index


def _release(trace: Trace) -> None:
    """Unlink the span tree (parents and children refer to each other), so its memory is freed as soon as the
    trace is done with even while the cyclic collector is off (the command line pauses it until the run)."""
    for span in trace.spans:
        span.parent = None
        span.children = []
    trace.roots = []


def _fill(index: ConversationIndex, path: str | os.PathLike[str], by_session: bool) -> None:
    found: list[tuple[int, TraceConversation, int]] = []  # (ordinal, summary, spill number)
    skipped: list[tuple[int, str]] = []
    failure: tuple[int, InputError] | None = None
    for ordinal, trace in iter_trace_groups(path):
        index.traces += 1
        try:
            if not is_genai_trace(trace):
                skipped.append((ordinal, f"{trace.source}: trace {trace.trace_id}: no agent, LLM or tool spans"))
                continue
            conversation = extract_conversation(trace)
        except InputError as exc:  # the first in input order is raised once everything has been read
            if failure is None or ordinal < failure[0]:
                failure = (ordinal, exc)
            continue
        finally:
            _release(trace)
            if index.traces % _TRACES_PER_COLLECTION == 0:
                gc.collect(1)
        if failure is None:
            found.append((ordinal, _summary(conversation), index._add(conversation)))
    if failure is not None:
        raise failure[1]
    found.sort(key=lambda item: item[0])
    index.skipped = [note for _, note in sorted(skipped)]
    summaries = [summary for _, summary, _ in found]
    if by_session:
        members: dict[str, list[int]] = {}
        for _, summary, number in found:
            key = summary.session_id or f"\x00{number}"  # conversations without a session id stay alone
            members.setdefault(key, []).append(number)
        index._groups = list(members.values())
        summaries = merge_by_session(summaries)
    else:
        index._groups = [[number] for _, _, number in found]
    index.conversations = summaries
    if not summaries:
        raise InputError(
            f"no agent conversation found in {index.traces} trace(s): no agent, LLM or tool spans",
            file=os.fspath(path),
        )


@dataclasses.dataclass(frozen=True, slots=True)
class PlannedCase:
    """One trace-mode case of a run before it is built: its id, the summary number of its conversation, the
    golden case it was matched with (``None`` without an eval set) and how, and its session input."""

    eval_id: str
    number: int
    golden: EvalCase | None
    how: str
    session_input: SessionInput | None

    def build(self, index: ConversationIndex) -> EvalCase:
        """The case in full, as :func:`trace_eval_set` makes it, with the conversation read back from ``index``."""
        conversation = index.load(self.number)
        actual = _actual(conversation, copy_invocations=False)  # read back just now: nobody else holds it
        if self.golden is None:
            return _free_case(conversation, self.eval_id, actual)
        return _matched_case(TraceMatch(conversation, self.golden, self.how), self.eval_id, actual)


def plan_cases(index: ConversationIndex, matching: TraceMatching | None = None) -> list[PlannedCase]:
    """The cases :func:`trace_eval_set` would make of ``matching`` (traces paired with cases), or of every
    conversation of ``index`` when there is no eval set: same ids, same order, nothing built yet."""
    unique = _UniqueIds()
    if matching is None:
        return [
            PlannedCase(
                unique(summary.eval_id or f"trace_{summary.trace_id[:16]}"), number, None, "", _session_input(summary)
            )
            for number, summary in enumerate(index.conversations)
        ]
    numbers = {id(summary): number for number, summary in enumerate(index.conversations)}
    return [
        PlannedCase(
            unique(match.case.eval_id),
            numbers[id(match.conversation)],
            match.case,
            match.how,
            match.case.session_input,
        )
        for match in matching.matches
    ]
