"""Preparing a trace run -- the one flow of recorded conversations, from a trace file or directory (``eval --traces``)
or received by the web server (a live session): pair each conversation with a case of the eval set it is compared
with (or score it with reference-free metrics), find and check the metrics, and name the app."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import InputError
from ..formats import default_id_for
from ..model import CaseNotRun
from ..service import LoadedEvalSet
from ..storage import check_segment
from ..traces import EVAL_ID_ATTRIBUTE, index_conversations, match_traces, plan_cases, trace_eval_set
from ._request import RecordedTraces
from ._run import Note, PreparedRun, SetHeading, SetRun, Shared, Warn
from ._sets import checked_metrics, find_metrics, given_metrics, load_golden
from ._trace_cases import TraceCases

if TYPE_CHECKING:  # pragma: no cover
    from ..evaluators import Registry
    from ..model import EvalMetric, EvalSet
    from ..traces import ConversationIndex, TraceConversation, TraceMatching
    from ._checks import CheckedRequest
    from ._request import EvalSetSpec

__all__ = ["NO_TRACE", "prepare_traces", "segment"]

NO_TRACE = "no trace"
"""Why a case of the eval set was not run by a trace run: no recorded trace matched it."""


def segment(name: str) -> str:
    """``name`` made safe as one path segment (app names and ids come from span attributes)."""
    return re.sub(r"[^A-Za-z0-9._-]+", "_", name).strip("._")


@dataclass
class _Conversations:
    """The conversations of a trace run: indexed from a file (each read back when its case runs) or given in
    memory, with what names them when no eval set or app does (the app of a file's: the eval set's id)."""

    found: list[TraceConversation]
    index: ConversationIndex | None
    source: str
    set_id: str
    app_fallback: str | None

    def cases(self, matching: TraceMatching | None, set_id: str, golden: EvalSet | None) -> tuple[Any, EvalSet]:
        """Where the run reads the cases from -- built one at a time from the index, else all at once -- and the
        eval set they form (its cases index-only when built later)."""
        if self.index is not None:
            description = golden.description if golden is not None else None
            cases = TraceCases(self.index, plan_cases(self.index, matching), set_id, description)
            return cases, cases.header
        eval_set = trace_eval_set(matching if matching is not None else self.found, set_id, golden=golden)
        return LoadedEvalSet(eval_set), eval_set

    def counted(self, by_session: bool) -> str:
        """``3 trace(s) from SOURCE``, or by session ``2 sessions (5 traces) from SOURCE``."""
        sessions = len(self.found)
        if not by_session:
            return f"{sessions} trace(s) from {self.source}"
        if self.index is not None:
            traces = self.index.conversation_traces
        else:
            traces = len({t for c in self.found for t in (c.trace_ids or [c.trace_id])})
        return f"{_plural(sessions, 'session')} ({_plural(traces, 'trace')}) from {self.source}"

    def shown(self, conversation: TraceConversation) -> str:
        """A conversation as messages name it (a file's also says where it was read)."""
        shown = f"trace {conversation.trace_id}"
        return f"{shown} ({conversation.source})" if self.index is not None else shown

    def close(self) -> None:
        """Remove the index's spill file (conversations given in memory hold none)."""
        if self.index is not None:
            self.index.close()


def _plural(count: int, noun: str) -> str:
    return f"{count} {noun}{'' if count == 1 else 's'}"


def _conversations(traces: Path | RecordedTraces, by_session: bool, on_note: Note) -> _Conversations:
    if isinstance(traces, RecordedTraces):
        found = list(traces.conversations)
        return _Conversations(found, None, traces.source, traces.eval_set_id, traces.app_name)
    index = index_conversations(traces, by_session=by_session)
    for skipped in index.skipped:
        on_note(f"note: skipped {skipped}")
    set_id = segment(default_id_for(str(traces))) or "traces"
    return _Conversations(index.conversations, index, str(traces), set_id, None)


def prepare_traces(checked: CheckedRequest, on_note: Note, on_warning: Warn) -> PreparedRun:
    """Check and load everything a trace run needs (:class:`~agentgauge.errors.InputError` before anything runs);
    the input checks' warnings go to ``on_warning``."""
    request = checked.request
    assert request.traces is not None
    registry = checked.registry()
    found = _conversations(request.traces, request.by_session, on_note)
    try:
        spec = checked.trace_set
        if spec is not None:
            against = _against_set(found, spec, checked, registry, on_note)
            (cases, header), metrics, source, matches, not_run = against
        else:
            (cases, header), metrics, source = _reference_free(found, checked, registry)
            matches, not_run = (), ()
        metrics = checked.scored(metrics, source)
        skipped = checked_metrics(checked.selection, metrics, registry, source, checked.report)
        checked.settle_inputs(on_warning)
        names = [
            request.app_name or "",
            *(c.app_name or "" for c in found.found),
            found.app_fallback or header.eval_set_id,
        ]
        app = check_segment(next((segment(n) for n in names if segment(n)), "traces"), "app name")
    except BaseException:
        found.close()
        raise
    by_session = request.by_session or isinstance(request.traces, RecordedTraces)
    heading = SetHeading(header.eval_set_id, found.counted(by_session), source, tuple(skipped))
    shared = Shared(app, None, registry)
    selected = tuple(case.eval_id for case in header.eval_cases)
    set_run = SetRun(heading, cases, metrics, selected, matches=matches, not_run=not_run)
    return PreparedRun(checked, shared, [set_run], on_note=on_note, close=found.close)


def _against_set(
    found: _Conversations, spec: EvalSetSpec, checked: CheckedRequest, registry: Registry, on_note: Note
) -> tuple[tuple[Any, EvalSet], list[EvalMetric], str, tuple[tuple[str, str], ...], tuple[CaseNotRun, ...]]:
    """The cases of the traces paired with the eval set's cases, its metrics and where they came from, each
    pairing (case id, how) and the cases no trace matched."""
    golden = load_golden(spec, checked)
    matching = match_traces(found.found, golden, selected=list(spec.case_ids) or None)
    if matching.unmatched:
        listed = "; ".join(f"{found.shown(c)}: {why}" for c, why in matching.unmatched)
        raise InputError(
            f"{len(matching.unmatched)} trace(s) match no case: {listed}. Name the case "
            f"{checked.surface.name('case_id')}, or set the span attribute {EVAL_ID_ATTRIBUTE} when recording",
            file=spec.source,
        )
    for match in matching.matches:
        on_note(f"trace {match.conversation.trace_id} -> case {match.case.eval_id} (by {match.how})")
    not_run = _cases_without_trace(golden, spec, matching, checked, on_note)
    if found.index is None:
        # A received session (live, online) is one conversation: the set's other cases are not missing from it,
        # and a 5,000-case set would fill each session's result with them.
        not_run = ()
    cases = found.cases(matching, golden.eval_set_id, golden)
    metrics, source, _ = find_metrics(spec, golden.eval_set_id, checked, registry)
    return cases, metrics, source, tuple((m.case.eval_id, m.how) for m in matching.matches), not_run


def _cases_without_trace(
    golden: EvalSet, spec: EvalSetSpec, matching: TraceMatching, checked: CheckedRequest, on_note: Note
) -> tuple[CaseNotRun, ...]:
    """Every case of the set (of its selection, when it names cases) that no trace matched: listed, and not run
    (the result counts them apart, see :class:`~agentgauge.model.CaseNotRun`), or an error with
    ``require_all_cases``."""
    paired = {m.case.eval_id for m in matching.matches}
    wanted = set(spec.case_ids)
    missing = [c.eval_id for c in golden.eval_cases if c.eval_id not in paired and (not wanted or c.eval_id in wanted)]
    if not missing:
        return ()
    listed = ", ".join(missing)
    if checked.request.require_all_cases:
        raise InputError(
            f"{len(missing)} case(s) of eval set {golden.eval_set_id!r} have no trace: {listed} "
            f"({checked.surface.name('require_all_cases')})",
            file=spec.source,
        )
    on_note(f"note: {len(missing)} case(s) not run: no trace: {listed}")
    return tuple(CaseNotRun(eval_id=eval_id, reason=NO_TRACE) for eval_id in missing)


def _reference_free(
    found: _Conversations, checked: CheckedRequest, registry: Registry
) -> tuple[tuple[Any, EvalSet], list[EvalMetric], str]:
    """The conversations as cases of their own, scored with reference-free metrics only."""
    name = checked.surface.name
    given = given_metrics(checked, registry)
    if given is None:
        raise InputError(
            f"no eval set: give one ({name('eval_set_argument')}) to compare the traces with expected conversations, "
            f"or {name('config')} with reference-free metrics (e.g. safety_v1, hallucinations_v1, llm_rubric_response)"
        )
    metrics, source, _ = given
    registry.validate_metrics(metrics, file=source, report=checked.report)
    needing = [
        m.metric_name for m in metrics if m.metric_name in registry and registry.info(m.metric_name).needs_expected
    ]
    if needing:
        raise InputError(
            f"metric(s) {', '.join(needing)} compare with expected data: give an eval set "
            f"({name('eval_set_argument')}) or use reference-free metrics only",
            file=source,
        )
    return found.cases(None, found.set_id, None), metrics, source
