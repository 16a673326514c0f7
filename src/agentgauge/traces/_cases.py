"""Traces as eval cases: reading conversations from files, golden eval sets, and matching traces to cases."""

from __future__ import annotations

import os
from dataclasses import dataclass, field

from ..errors import InputError
from ..model import EvalCase, EvalSet, Invocation, SessionInput
from ._export import TRACE_ID_KEY
from ._extract import EVAL_ID_ATTRIBUTE, TraceConversation, extract_conversation, is_genai_trace
from ._read import load_traces

__all__ = [
    "Conversations",
    "TraceMatch",
    "TraceMatching",
    "golden_eval_set",
    "match_traces",
    "merge_by_session",
    "read_conversations",
    "trace_eval_set",
]


@dataclass(slots=True)
class Conversations:
    """What a trace file or directory held: the conversations, and the traces skipped (no GenAI spans)."""

    conversations: list[TraceConversation]
    skipped: list[str] = field(default_factory=list)


def read_conversations(path: str | os.PathLike[str], *, by_session: bool = False) -> Conversations:
    """Read every trace at ``path`` (file or directory) and extract its conversation.

    Traces without any agent, LLM or tool span (HTTP-only traces in an export) are skipped and listed in
    ``skipped``; a file with no conversation at all is an :class:`~agentgauge.errors.InputError`. With
    ``by_session``, traces sharing a session id (``gen_ai.conversation.id``) form one conversation, their
    invocations in time order (frameworks that write one trace per user turn, such as Google ADK).
    """
    traces = load_traces(path)
    out = Conversations([])
    for trace in traces:
        if not is_genai_trace(trace):
            out.skipped.append(f"{trace.source}: trace {trace.trace_id}: no agent, LLM or tool spans")
            continue
        out.conversations.append(extract_conversation(trace))
    if by_session:
        out.conversations = merge_by_session(out.conversations)
    if not out.conversations:
        raise InputError(
            f"no agent conversation found in {len(traces)} trace(s): no agent, LLM or tool spans", file=os.fspath(path)
        )
    return out


def merge_by_session(conversations: list[TraceConversation]) -> list[TraceConversation]:
    """Conversations with the same non-empty session id merged into the first of them (invocations sorted by
    time); conversations without a session id stay as they are."""
    merged: list[TraceConversation] = []
    by_session: dict[str, TraceConversation] = {}
    for conversation in conversations:
        first = by_session.get(conversation.session_id) if conversation.session_id else None
        if first is None:
            if conversation.session_id:
                by_session[conversation.session_id] = conversation
            merged.append(conversation)
            continue
        first.invocations.extend(conversation.invocations)
        first.trace_ids.extend(conversation.trace_ids)
        first.warnings.extend(conversation.warnings)
        if not first.eval_id:
            first.eval_id, first.eval_id_attribute = conversation.eval_id, conversation.eval_id_attribute
        first.app_name = first.app_name or conversation.app_name
        first.user_id = first.user_id or conversation.user_id
    for conversation in merged:
        order = sorted(
            range(len(conversation.invocations)),
            key=lambda i: conversation.invocations[i].creation_timestamp or 0.0,
        )
        conversation.invocations = [conversation.invocations[i] for i in order]
        conversation.trace_ids = [conversation.trace_ids[i] for i in order]
    return merged


class _UniqueIds:
    """Case ids as :func:`trace_eval_set` gives them (``base``, then ``base_2``, ``base_3``, ... the first not
    taken), remembering per base where the numbering stopped: 100,000 traces of one case would otherwise cost
    5 billion membership tests."""

    def __init__(self) -> None:
        self.taken: set[str] = set()
        self._next: dict[str, int] = {}

    def __call__(self, base: str) -> str:
        candidate, number = base, self._next.get(base, 2)
        if candidate in self.taken:
            candidate = f"{base}_{number}"
            while candidate in self.taken:
                number += 1
                candidate = f"{base}_{number}"
            self._next[base] = number + 1
        self.taken.add(candidate)
        return candidate


def _case_id(conversation: TraceConversation, unique: _UniqueIds) -> str:
    return unique(conversation.eval_id or f"trace_{conversation.trace_id[:16]}")


def _session_input(conversation: TraceConversation) -> SessionInput | None:
    if not conversation.app_name and not conversation.user_id:
        return None
    return SessionInput(app_name=conversation.app_name, user_id=conversation.user_id)


def golden_eval_set(conversations: list[TraceConversation], eval_set_id: str) -> EvalSet:
    """An eval set with one case per trace (or session) whose ``conversation`` is the recorded one (the "golden
    session" flow: record a good run, then evaluate the agent against it). Case ids are the ``agentgauge.eval_id``
    attribute when present, else ``trace_<first 16 hex digits of the trace id>``. Each invocation records the trace
    it came from (``traceId``), so :func:`match_traces` pairs the case with that trace before anything else."""
    unique = _UniqueIds()
    cases = [
        EvalCase(eval_id=_case_id(c, unique), conversation=_actual(c), session_input=_session_input(c))
        for c in conversations
    ]
    return EvalSet(
        eval_set_id=eval_set_id,
        name=eval_set_id,
        description=f"Recorded from {len(conversations)} trace(s)",
        eval_cases=cases,
    )


@dataclass(slots=True)
class TraceMatch:
    """A trace paired with an eval case, and how (``"eval id attribute"`` / ``"agentevals.eval.case.id
    attribute"``, ``"session id"``, ``"user text"``, ``"selected case"``, :data:`ONLY_CASE`)."""

    conversation: TraceConversation
    case: EvalCase
    how: str


@dataclass(slots=True)
class TraceMatching:
    """Traces paired with cases; ``unmatched`` traces with the reason no case fits."""

    matches: list[TraceMatch] = field(default_factory=list)
    unmatched: list[tuple[TraceConversation, str]] = field(default_factory=list)


ONLY_CASE = "the set's only case and the only trace, as agentevals pairs them"
"""How a trace is paired when the eval set has one case and the input one trace (or session) that matches it by
nothing else: agentevals 0.11 pairs them (its ``single_case``), and so does agentgauge, saying so."""


def _normalise(text: str) -> str:
    return " ".join(text.split()).lower()


RECORDED_TRACE = "recorded trace"
"""How a trace is paired with the case made from it (``traces to-evalset``): the case records the trace id."""


class _RecordedTraces:
    """The trace each case was made from: the ``traceId`` its invocations record (native files), else its first
    invocation's id (kept by every format: ADK's invocation id, else the turn's first span id), which the trace
    made from it gives its first invocation too."""

    def __init__(self, cases: list[EvalCase]) -> None:
        self.by_trace: dict[str, EvalCase] = {}
        self.by_invocation: dict[str, EvalCase] = {}
        for case in cases:
            for invocation in case.conversation or ():
                trace_id = (invocation.model_extra or {}).get(TRACE_ID_KEY)
                if isinstance(trace_id, str) and trace_id:
                    self.by_trace.setdefault(trace_id, case)
            if case.conversation and case.conversation[0].invocation_id:
                self.by_invocation.setdefault(case.conversation[0].invocation_id, case)

    def case_of(self, conversation: TraceConversation) -> EvalCase | None:
        """The case made from one of the conversation's traces, if any."""
        found = next(
            (self.by_trace[t] for t in (conversation.trace_id, *conversation.trace_ids) if t in self.by_trace), None
        )
        if found is None and conversation.invocations and conversation.invocations[0].invocation_id:
            found = self.by_invocation.get(conversation.invocations[0].invocation_id)
        return found


def match_traces(
    conversations: list[TraceConversation], eval_set: EvalSet, *, selected: list[str] | None = None
) -> TraceMatching:
    """Pair each trace with one case of ``eval_set``, explicitly and never by position.

    In order: the trace's ``agentgauge.eval_id`` attribute names the case; else the case was made from this trace
    (``traces to-evalset`` records the trace id on each invocation, and every format keeps the first invocation's
    id); else its session id
    (``gen_ai.conversation.id``) equals a case id; else its first user message equals exactly one case's first
    user message (whitespace and case ignored). ``selected`` restricts the candidate cases (the ``SET:case``
    filter); when exactly one case is selected, a trace that matches nothing else is paired with it — the user
    named the case. An eval set of one case with a single trace (or session) is paired the same way, as
    agentevals pairs them (:data:`ONLY_CASE`). A trace that still has no case is ``unmatched``, with the reason.
    The eval id is ``agentgauge.eval_id``, else agentevals' ``agentevals.eval.case.id``.
    """
    cases = eval_set.eval_cases
    if selected:
        chosen = set(selected)
        cases = [c for c in cases if c.eval_id in chosen]
    by_id = {c.eval_id: c for c in cases}
    recorded_in = _RecordedTraces(cases)
    by_text: dict[str, list[EvalCase]] = {}
    for case in cases:
        if case.conversation:
            by_text.setdefault(_normalise(case.conversation[0].user_content.content), []).append(case)
    result = TraceMatching()
    for conversation in conversations:
        if conversation.eval_id:
            attribute = conversation.eval_id_attribute or EVAL_ID_ATTRIBUTE
            how = "eval id attribute" if attribute == EVAL_ID_ATTRIBUTE else f"{attribute} attribute"
            if conversation.eval_id in by_id:
                result.matches.append(TraceMatch(conversation, by_id[conversation.eval_id], how))
            else:
                result.unmatched.append((conversation, f"{attribute}={conversation.eval_id!r} names no selected case"))
            continue
        recorded = recorded_in.case_of(conversation)
        if recorded is not None:
            result.matches.append(TraceMatch(conversation, recorded, RECORDED_TRACE))
            continue
        if conversation.session_id in by_id:
            result.matches.append(TraceMatch(conversation, by_id[conversation.session_id], "session id"))
            continue
        candidates = by_text.get(_normalise(conversation.first_user_text), [])
        if len(candidates) == 1:
            result.matches.append(TraceMatch(conversation, candidates[0], "user text"))
        elif len(cases) == 1 and selected:
            result.matches.append(TraceMatch(conversation, cases[0], "selected case"))
        elif len(cases) == 1 and len(conversations) == 1:
            result.matches.append(TraceMatch(conversation, cases[0], ONLY_CASE))
        elif len(candidates) > 1:
            ids = ", ".join(c.eval_id for c in candidates)
            result.unmatched.append((conversation, f"its first user message matches several cases ({ids})"))
        else:
            result.unmatched.append(
                (conversation, f"no case starts with its first user message {conversation.first_user_text[:80]!r}")
            )
    return result


def trace_eval_set(
    conversations: list[TraceConversation] | TraceMatching, eval_set_id: str, *, golden: EvalSet | None = None
) -> EvalSet:
    """The in-memory trace-mode eval set scored by ``agentgauge eval --traces``.

    With matched traces, each case keeps the golden case's id (suffixed ``_2``, ... when several traces match it),
    ``conversation``, session input and rubrics, and gets the trace as ``actualConversation``. With plain
    conversations (no eval set), each case has only ``actualConversation`` (reference-free metrics).
    """
    unique = _UniqueIds()
    if isinstance(conversations, TraceMatching):
        cases = [
            _matched_case(match, unique(match.case.eval_id), _actual(match.conversation))
            for match in conversations.matches
        ]
    else:
        cases = [_free_case(c, _case_id(c, unique), _actual(c)) for c in conversations]
    description = golden.description if golden is not None else None
    return EvalSet(eval_set_id=eval_set_id, name=eval_set_id, description=description, eval_cases=cases)


def _matched_case(match: TraceMatch, eval_id: str, actual: list[Invocation]) -> EvalCase:
    """A trace-mode case of a matched trace: a copy of the golden case with the trace as its actual conversation."""
    update = {"eval_id": eval_id, "eval_mode": "trace", "actual_conversation": actual}
    return match.case.model_copy(deep=True, update=update)


def _free_case(conversation: TraceConversation, eval_id: str, actual: list[Invocation]) -> EvalCase:
    """A trace-mode case of a trace without a golden case (reference-free metrics only)."""
    return EvalCase(
        eval_id=eval_id, eval_mode="trace", actual_conversation=actual, session_input=_session_input(conversation)
    )


def _actual(conversation: TraceConversation, *, copy_invocations: bool = True) -> list[Invocation]:
    """The trace's invocations, each tagged with the trace id (extra key ``traceId``, kept in results) so that
    exported evaluation spans join the evaluated trace: copies, unless the conversation is the caller's to change
    (``copy_invocations=False``: one just read back from a spill file)."""
    out = []
    for index, invocation in enumerate(conversation.invocations):
        copy = invocation.model_copy(deep=True) if copy_invocations else invocation
        if copy.__pydantic_extra__ is not None:
            trace_ids = conversation.trace_ids
            copy.__pydantic_extra__[TRACE_ID_KEY] = (
                trace_ids[index] if index < len(trace_ids) else conversation.trace_id
            )
        out.append(copy)
    return out
