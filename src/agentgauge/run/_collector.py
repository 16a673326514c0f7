"""Helpers of one evaluation run: the garbage-collector freeze, the ordered hand-over of case results to the result
writer and the summary rows, and the background import of scorers."""

from __future__ import annotations

import asyncio
import contextlib
import gc
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, NamedTuple

from ..model import EvalCase, EvalCaseResult, EvalMetric
from ..summary._row_table import RowTable

if TYPE_CHECKING:  # pragma: no cover
    from ..formats._result_writer import ResultWriter
    from ..service import CaseRow, CompactResult

__all__ = ["LONGEST_FIRST_WINDOW", "_Collector", "_collector_ignores_loaded_data", "_prepare_scorers", "dispatch_order"]

LONGEST_FIRST_WINDOW = 1000
"""Cases are reordered longest-first within windows of this many consecutive cases, which bounds the results that
wait for an earlier case before they are handed on in eval-set order."""

_MIDDLE_GENERATION_EVERY = 100  # young collections per middle-generation collection during a run (default 10)

_SCENARIO_TURNS = 20  # ADK's default turn limit of a simulated conversation, for scenarios that set none


@contextmanager
def _collector_ignores_loaded_data() -> Iterator[None]:
    """Keep the objects alive at the start of a run (eval set, metrics, agent, modules) out of garbage collection
    until it ends.

    A run allocates many short-lived objects; without this every full collection re-walks all the loaded data,
    which costs a large share of the run's CPU at high parallelism. Objects created during the run are collected as
    usual (the middle generation less often, see below), and the frozen ones are handed back to the collector
    afterwards, with the collector's thresholds as they were.
    """
    gc.freeze()
    thresholds = gc.get_threshold()
    young, middle, old = thresholds
    # The cases in flight (hundreds at high parallelism) are young objects that survive a few collections; every
    # middle-generation collection walks them all again (~1 ms each, ~11 ms of a 200-case run at default settings).
    # Collecting the middle generation ten times less often leaves the youngest collections as they are and keeps
    # what waits for collection small (at most ~100 young collections' survivors).
    gc.set_threshold(young, max(middle, _MIDDLE_GENERATION_EVERY), old)
    try:
        yield
    finally:
        gc.set_threshold(*thresholds)
        gc.unfreeze()


class _Ready(NamedTuple):
    """A case result prepared for handing on: its compact row and, for a writer of a JSON document, its indented JSON
    (``None``: the writer takes the result itself)."""

    result: EvalCaseResult | CompactResult
    row: CaseRow
    detail: bytes | None
    dumped: dict[str, Any] | None


class _Collector:
    """Takes case results in any order and hands them on in dispatch order: to the streaming writer (if any),
    into compact rows for the summary, and -- only while they are few or a consumer needs them -- in full."""

    def __init__(self, writer: ResultWriter | None, keep_full: bool, known_ids: Sequence[str] | None = None) -> None:
        self.writer = writer
        self.keep_full = keep_full
        self.rows = RowTable()
        # The case ids of a run in dispatch order: a row whose id equals the expected one keeps that string instead
        # of its own copy (a million-case run then holds each id once).
        self._known_ids = known_ids
        self.full: list[EvalCaseResult] = []
        self._pending: dict[int, _Ready] = {}
        self._next = 0
        self._add_json = getattr(writer, "add_json", None)  # a writer of a JSON document (a SQL store's has none)

    def add(self, seq: int, result: EvalCaseResult | CompactResult, dumped: dict[str, Any] | None = None) -> None:
        """Take the result of dispatch number ``seq`` (``dumped``: its JSON form, if made already, so the writer
        does not serialise it again)."""
        # The row and the JSON are made now, as the case finishes, not when its turn in eval-set order comes: a case
        # early in the set that is still running holds back every later one, and all of them would then be encoded
        # together once it ends -- after the last agent answer, where nothing else overlaps (~10 ms of 200 cases).
        self._pending[seq] = self._prepare(result, dumped)
        while self._next in self._pending:
            self._emit(self._pending.pop(self._next))
            self._next += 1

    def flush(self) -> None:
        """Hand on whatever is still waiting for an earlier case (used when a run stops early)."""
        for seq in sorted(self._pending):
            self._emit(self._pending.pop(seq))

    def _prepare(self, result: EvalCaseResult | CompactResult, dumped: dict[str, Any] | None) -> _Ready:
        from ..formats._result_writer import case_json
        from ..service import CompactResult, case_row

        if isinstance(result, CompactResult):  # from a remote worker: written as it came, parsed only when kept
            return _Ready(result, result.row, result.detail, None)
        if self.writer is None or self._add_json is None:
            return _Ready(result, case_row(result), None, dumped)
        document = result.model_dump(mode="json") if dumped is None else dumped
        return _Ready(result, case_row(result), case_json(document), None)

    def _emit(self, ready: _Ready) -> None:
        from ..service import CompactResult

        result = ready.result
        if self.writer is not None:
            if ready.detail is not None and self._add_json is not None:
                self._add_json(ready.detail)
            elif isinstance(result, CompactResult):  # a writer without a JSON document takes the result itself
                self.writer.add(result.full())
            elif ready.dumped is not None:
                self.writer.add(result, ready.dumped)
            else:
                self.writer.add(result)
        self._add_row(ready.row)
        if self.keep_full:
            self.full.append(result.full() if isinstance(result, CompactResult) else result)

    def _add_row(self, row: CaseRow) -> None:
        known = self._known_ids
        if known:  # runs go one after the other over the same cases: row k is case k modulo their number
            expected = known[len(self.rows) % len(known)]
            if expected == row.eval_id:
                self.rows.append(row, eval_id=expected)
                return
        self.rows.append(row)


def expected_turns(case: EvalCase) -> int:
    """How many agent turns ``case`` will take: its conversation's length, a scenario's turn limit, 0 in trace mode."""
    if case.is_trace:
        return 0
    if case.conversation:
        return len(case.conversation)
    scenario = case.conversation_scenario
    if scenario is not None:
        return scenario.max_allowed_invocations or _SCENARIO_TURNS
    return 1


def dispatch_order(cases: Sequence[EvalCase], parallelism: int) -> Iterator[int]:
    """The positions of ``cases`` in the order their pipelines start.

    With more than one case in flight, the cases with the most agent turns start first (longest processing time
    first): a long conversation started last would otherwise run alone at the end, and when every case starts at
    once, its next turns come before the scoring of the short cases. Equal lengths keep the eval set's order; so does
    a run one case at a time. Results are handed on in eval-set order whatever the order of the runs.
    """
    count = len(cases)
    if parallelism <= 1:
        yield from range(count)
        return
    for start in range(0, count, LONGEST_FIRST_WINDOW):
        window = range(start, min(count, start + LONGEST_FIRST_WINDOW))
        yield from sorted(window, key=lambda i: -expected_turns(cases[i]))


def _rouge_needs(metrics: Sequence[EvalMetric]) -> tuple[bool, bool]:
    """(stemming is needed, rouge-score's ROUGE-N/L scorer is needed) for these metrics."""
    scorer = any("rouge" in m.model_dump_json().lower() for m in metrics)
    return scorer or any(m.metric_name == "response_match_score" for m in metrics), scorer


def _prepare_scorers(metrics: Sequence[EvalMetric]) -> asyncio.Future[None] | None:
    """Start importing what scoring will need (the Porter stemmer; rouge-score's scorer pulls in all of nltk, ~0.25 s)
    in a thread, so the first agent calls run meanwhile; cases await the returned future before scoring (``None``:
    nothing to prepare).

    Scoring must not import it itself while the thread does: it would block on the import lock, and with it the event
    loop and every case in flight.
    """
    stemming, scorer = _rouge_needs(metrics)
    if not stemming:
        return None
    from ..criteria import _rouge, _tokenize

    def load() -> None:
        # Scoring reports a missing package itself, for the case that needs it; here only the import time matters.
        with contextlib.suppress(Exception):
            _tokenize._load()
            if scorer:
                _rouge._scoring()

    return asyncio.ensure_future(asyncio.to_thread(load))
