"""Online evaluation of received sessions (``serve --otlp --online rules.yaml``): a session is scored when it ends
— every trace has its root span (then ``settle_seconds`` without new spans), or ``idle_seconds`` without new spans —
by each rule that samples it, takes it (:func:`~._select.session_matches`) and has room under its hourly cap.

Nothing of it runs on the request path: the store's listener notes the changed session keys (O(1) each) and returns;
a thread of its own, with its own event loop, decides which ended sessions each rule samples, puts them on a bounded
queue (a session that finds it full is dropped and counted, the receiver never waits), checks each rule's filter and
hourly cap, has worker processes read and score them with the server's scoring entry (:class:`SessionScorer`, the
one the Live tab's *Score* uses; see :mod:`._process`) and delivers the scores to the rule's sinks. A session is
decided once: spans arriving after it was scored are stored, not scored again.
"""

from __future__ import annotations

import asyncio
import logging
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from concurrent.futures import Future, ProcessPoolExecutor
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from ..errors import NotFoundError
from ..launch import segment
from ._limits import period_start, sampled
from ._process import ScorerFactory, WorkerAnswer, score_in_worker, start_worker, worker_ready
from ._rule_state import RuleState, error_case, webhook_body
from ._select import session_matches
from ._sinks import PeriodResults, period_label

if TYPE_CHECKING:  # pragma: no cover
    from ..model import EvalCaseResult
    from ..storage import EvalResultManager
    from ..traces import LiveStore, Span, TraceConversation
    from ._rules import OnlineRule, OnlineRules

__all__ = ["OnlineEvaluator", "ScoredSession", "SessionScorer"]

_log = logging.getLogger(__name__)

_DECIDED_KEPT = 200_000  # session keys remembered as decided (a later span of one is not scored again)
_TICK = 0.2  # seconds between looks for ended sessions
_FLUSH = 5.0  # seconds between saves of the periods' results (each rewrites its period's file)


@dataclass(frozen=True, slots=True)
class ScoredSession:
    """What scoring a session gave: the app its result belongs to, its case results (one per conversation, a
    session is one) and the case pairing, ``(case id, how)``, when it was matched with an eval set."""

    app_name: str
    cases: list[EvalCaseResult]
    matches: list[tuple[str, str]]


class SessionScorer(Protocol):
    """How a session is scored: the server's scoring entry, as for the Live tab's *Score*. Raises
    :class:`~agentgauge.errors.InputError` for a session it cannot score (no case matches, ...)."""

    async def __call__(self, rule: OnlineRule, key: str, conversations: list[TraceConversation]) -> ScoredSession:
        """Score the session ``key`` (its ``conversations``) as ``rule`` says."""
        ...


class OnlineEvaluator:
    """Online evaluation of the sessions of ``store`` by ``rules`` (see the module): ``scorer`` is the factory of
    the worker processes' scorer and its argument, ``results`` where the store sink saves (``None``: no result
    store). :meth:`start` and :meth:`stop` run it."""

    def __init__(
        self,
        rules: OnlineRules,
        store: LiveStore,
        scorer: tuple[ScorerFactory, Any],
        results: EvalResultManager | None,
        *,
        source: str = "",
        clock: Callable[[], float] = time.monotonic,
        wall: Callable[[], float] = time.time,
    ) -> None:
        self.rules = rules
        self.source = source
        self._store, self._scorer = store, scorer
        self._pool: ProcessPoolExecutor | None = None
        self._ready: list[Future[int]] = []
        self._results = PeriodResults(results) if results is not None else None
        self._clock, self._wall = clock, wall
        self._states = [RuleState(rule, None) for rule in rules.rules]
        self._lock = threading.Lock()
        self._active: OrderedDict[str, float] = OrderedDict()  # key -> last change (oldest first)
        self._ending: OrderedDict[str, float] = OrderedDict()  # ended keys -> last change (oldest first)
        self._decided: OrderedDict[str, None] = OrderedDict()
        self.dropped = 0
        self._queue: asyncio.Queue[tuple[str, list[RuleState]]] | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._stopping: asyncio.Event | None = None
        self._thread: threading.Thread | None = None
        self._idle_queue = threading.Event()
        store.listeners.append(self._changed)

    # --- watching (the receiving thread) ----------------------------------------------------------------------

    def _changed(self, keys: list[str]) -> None:
        now = self._clock()
        on_root = self.rules.session_end.on_root_span
        with self._lock:
            for key in keys:
                if key in self._decided:
                    continue
                try:
                    ended = on_root and self._store.session(key).ended
                except NotFoundError:  # joined another session meanwhile
                    self._active.pop(key, None)
                    self._ending.pop(key, None)
                    continue
                self._active[key] = now
                self._active.move_to_end(key)
                if ended:
                    self._ending[key] = now
                    self._ending.move_to_end(key)
                else:
                    self._ending.pop(key, None)

    def _due(self) -> list[str]:
        """The sessions that ended since the last look (taken off the watch lists, marked decided)."""
        end = self.rules.session_end
        now = self._clock()
        due: list[str] = []
        with self._lock:
            for waiting, after in ((self._ending, end.settle_seconds), (self._active, end.idle_seconds)):
                while waiting and next(iter(waiting.values())) <= now - after:
                    key, _ = waiting.popitem(last=False)
                    due.append(key)
            for key in due:
                self._active.pop(key, None)
                self._ending.pop(key, None)
                self._decided[key] = None
            while len(self._decided) > _DECIDED_KEPT:
                self._decided.popitem(last=False)
        return due

    def _decide(self, key: str) -> None:
        try:
            self._store.session(key)
        except NotFoundError:  # a trace's own key until its session id arrived: it lives on in its session
            return
        chosen = []
        for state in self._states:
            state.tally.count("ended")
            if sampled(state.rule.seed, state.rule.name, key, state.rule.sample_rate):
                state.tally.count("sampled")
                chosen.append(state)
        if not chosen:
            return
        assert self._queue is not None
        try:
            self._queue.put_nowait((key, chosen))
        except asyncio.QueueFull:
            self.dropped += 1
            for state in chosen:
                state.tally.count("dropped")

    # --- running (its own thread) -----------------------------------------------------------------------------

    def start(self) -> None:
        """Start watching in a thread of its own (with its own event loop), scoring in ``concurrency`` worker
        processes."""
        import multiprocessing

        factory, argument = self._scorer
        self._pool = ProcessPoolExecutor(
            self.rules.concurrency,
            mp_context=multiprocessing.get_context("spawn"),
            initializer=start_worker,
            initargs=(factory, argument, str(self._store.files.folder), self.rules.niceness),
        )
        # Each worker starts now (importing the scoring stack takes seconds), not when the first session ends.
        self._ready = [self._pool.submit(worker_ready) for _ in range(self.rules.concurrency)]
        started = threading.Event()
        self._thread = threading.Thread(target=self._run, args=(started,), name="agentgauge-online", daemon=True)
        self._thread.start()
        started.wait(10)

    def _run(self, started: threading.Event) -> None:
        asyncio.run(self._main(started))

    async def _main(self, started: threading.Event) -> None:
        self._loop = asyncio.get_running_loop()
        self._stopping = asyncio.Event()
        self._queue = asyncio.Queue(self.rules.queue_size)
        workers = [asyncio.create_task(self._work()) for _ in range(self.rules.concurrency)]
        watcher = asyncio.create_task(self._watch())
        started.set()
        try:
            await self._stopping.wait()
        finally:
            for task in (*workers, watcher):
                task.cancel()
            await asyncio.gather(*workers, watcher, return_exceptions=True)
            for state in self._states:
                for post in (state.otlp, state.webhook):
                    if post is not None:
                        await post.aclose()

    async def _watch(self) -> None:
        flushed = self._clock()
        while True:
            for key in self._due():
                self._decide(key)
            if self._results is not None and self._clock() - flushed >= _FLUSH:
                flushed = self._clock()
                await asyncio.to_thread(self._flush)
            await asyncio.sleep(_TICK)

    def _flush(self) -> None:
        try:
            if self._results is not None:
                self._results.flush()
        except Exception as exc:  # a full disk: the periods stay in memory and are saved at the next flush
            _log.warning("online results could not be saved: %s", exc)

    def stop(self) -> None:
        """Stop scoring (sessions still queued are left) and save every period's result."""
        loop, stopping = self._loop, self._stopping
        if loop is not None and stopping is not None and not loop.is_closed():
            loop.call_soon_threadsafe(stopping.set)
        if self._thread is not None:
            self._thread.join(30)
        self._flush()  # first: a worker still busy must not keep the periods from being saved
        self._end_pool()

    def _end_pool(self) -> None:
        """End the worker processes now: a scoring still under way is dropped (its session stays counted as
        sampled, not scored). None may outlive the server: a worker left running would hold the server's output
        open, and a server stopped by a signal runs no exit handler that would end it."""
        pool, self._pool = self._pool, None
        if pool is None:
            return
        # ProcessPoolExecutor can only terminate its workers itself from Python 3.14 (terminate_workers).
        workers = list((getattr(pool, "_processes", None) or {}).values())
        pool.shutdown(wait=False, cancel_futures=True)
        for worker in workers:
            worker.terminate()
        for worker in workers:
            worker.join(5)

    async def _work(self) -> None:
        assert self._queue is not None
        while True:
            key, chosen = await self._queue.get()
            try:
                await self._score(key, chosen)
            except Exception:  # a bug must not stop the worker: the session is counted as errored
                _log.exception("online scoring of session %s failed", key)
                for state in chosen:
                    state.tally.count("errors")
            finally:
                self._queue.task_done()
                if self._queue.empty():
                    self._idle_queue.set()

    async def _score(self, key: str, chosen: list[RuleState]) -> None:
        try:
            trace_spans = await asyncio.to_thread(self._store.trace_spans, key)
        except NotFoundError:
            return  # forgotten (beyond the listing limit) or joined another session
        spans = [span for found in trace_spans.values() for span in found]
        for state in chosen:
            if not session_matches(state.rule.match, spans):
                state.tally.count("filtered")
            elif not state.cap.take():
                state.tally.count("capped")
            else:
                await self._score_rule(state, key, trace_spans)

    async def _score_rule(self, state: RuleState, key: str, trace_spans: dict[str, list[Span]]) -> None:
        rule, now = state.rule, self._wall()
        if state.meter is None:
            answer = await self._in_worker(rule, key, trace_spans, None)
        else:  # one session at a time: each takes what the budget leaves and gives back what it did not use
            async with state.budget_lock:
                counter = state.meter.counter
                allowance = counter.reserve()
                answer = await self._in_worker(rule, key, trace_spans, allowance)
                counter.give_back(allowance - answer.judge_calls)
                state.meter.refused += answer.judge_refused
        app = segment(answer.app)[:100] or "online"
        period = period_label(period_start(now, rule.period), rule.period)
        for number, case in enumerate(answer.cases, start=1):
            case.eval_id = (segment(key)[:100] or "session") + (f"_{number}" if number > 1 else "")
            case.session_id = key
            result_id = None
            if rule.sinks.store and self._results is not None:
                result_id = self._results.add(rule.name, rule.period, app, case, now)
            state.tally.scored(period, key, case, (app, result_id), now)
            await self._deliver(state, key, case, app, result_id, answer)

    async def _in_worker(
        self, rule: OnlineRule, key: str, trace_spans: dict[str, list[Span]], allowance: int | None
    ) -> WorkerAnswer:
        try:
            loop = asyncio.get_running_loop()
            return await loop.run_in_executor(
                self._pool, score_in_worker, rule.model_dump(mode="json"), key, trace_spans, allowance
            )
        except Exception as exc:  # the worker died (killed, out of memory): this session errors
            return WorkerAnswer(rule.app or "", [error_case(f"the scoring process failed: {exc!r}")])

    async def _deliver(
        self,
        state: RuleState,
        key: str,
        case: EvalCaseResult,
        app: str,
        result_id: str | None,
        answer: WorkerAnswer,
    ) -> None:
        from ..traces import evaluation_events

        rule = state.rule
        deliveries = []
        if state.otlp is not None and case.overall_eval_metric_results:
            trace_id, span_id = answer.evaluated
            if trace_id:
                attributes = {"agentgauge.online.rule": rule.name, "gen_ai.conversation.id": key}
                document = evaluation_events(
                    case, trace_id, span_id, time_ns=int(self._wall() * 1e9), attributes=attributes
                )
                deliveries.append(state.otlp.post(document))
        if state.webhook is not None:
            deliveries.append(state.webhook.post(webhook_body(rule.name, key, app, case, result_id, answer.matches)))
        for delivery in deliveries:
            try:
                await delivery
            except Exception as exc:  # a sink that fails is counted and named; the score is kept
                state.tally.count("sink_failures")
                state.tally.last_error = str(exc)

    # --- what the UI shows ------------------------------------------------------------------------------------

    def status(self) -> dict[str, Any]:
        """The rules with their counts, latest scores and trends; the queue and what is waiting to end."""
        queue = self._queue
        with self._lock:
            waiting = len(self._active)
        return {
            "file": self.source or None,
            "queue": {
                "size": queue.qsize() if queue is not None else 0,
                "capacity": self.rules.queue_size,
                "dropped": self.dropped,
            },
            "waiting": waiting,
            "workers": {"started": sum(f.done() and not f.exception() for f in self._ready), "count": len(self._ready)},
            "rules": [state.as_json() for state in self._states],
        }

    def replace_rules(self, rules: OnlineRules) -> None:
        """Use ``rules`` from now on (a rule keeping its name keeps its counts; the queue's size and the
        concurrency stay as the server started with)."""
        tallies = {state.rule.name: state.tally for state in self._states}
        self._states = [RuleState(rule, tallies.get(rule.name)) for rule in rules.rules]
        kept = {"queue_size": self.rules.queue_size, "concurrency": self.rules.concurrency}
        kept["niceness"] = self.rules.niceness
        self.rules = rules.model_copy(update=kept)

    def wait_idle(self, timeout: float) -> bool:
        """Wait until the queue is empty after some work (tests, benchmarks); ``False`` on timeout."""
        return self._idle_queue.wait(timeout)
