"""GEPA through the ``gepa`` package (the algorithm ``adk optimize`` runs), each candidate scored by the run engine.

GEPA's engine runs in a worker thread; each of its evaluations and reflection calls is a coroutine on the event loop
of the optimisation (its cases in parallel, at ``--parallelism``). Every surface is one GEPA component (round robin,
as ADK's optimizers), with a reflection prompt for its kind. Train and validation cases enter GEPA as
``train:<id>`` / ``validation:<id>``, so the two splits never alias even when they share case ids. GEPA keeps its
state in the search's state folder, so a search run again with the same ``--out`` continues where it stopped; it
stops at the metric-call budget (``max_metric_calls``) and between iterations once ``--budget`` is spent. An
iteration that fails (the reflection model unreachable, say) is a note; GEPA goes on with the next.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import json
import logging
import threading
from collections.abc import Coroutine, Mapping, Sequence
from typing import Any, TypeVar, cast

from ..errors import InputError
from ._search import ScoredCase, SearchCandidate, SearchOutcome, SearchSession, SplitName
from ._templates import reflection_template

__all__ = ["GepaOptimizer"]

_log = logging.getLogger("agentgauge.optimize.gepa")
_T = TypeVar("_T")
_THREAD_GRACE = 30.0
"""Seconds a cancelled search waits for GEPA's thread to end (it ends at its next step)."""


class _SearchStopped(Exception):
    """A call GEPA's thread made after the search was stopped (cancelled, or its evaluation cancelled)."""


class _Logger:
    """GEPA's log lines, to the ``agentgauge.optimize.gepa`` logger (``--log_level DEBUG`` shows them); the
    iterations that failed (an exception in an evaluation or a reflection call: GEPA goes on with the next) are kept
    as notes."""

    def __init__(self, session: SearchSession) -> None:
        self.session = session
        self.failures: list[str] = []

    def log(self, message: str) -> None:
        _log.debug("%s", message)
        failed = "Exception during optimization" in message or message.startswith("Per-task reflection failed")
        if failed and len(self.failures) < 20:
            self.failures.append(message)
            self.session.note(message)


def _split(data_id: str) -> tuple[SplitName, str]:
    split, _, case = data_id.partition(":")
    return ("validation" if split == "validation" else "train"), case


def _mentions(record: Mapping[str, Any], name: str) -> bool:
    return name in json.dumps(record, ensure_ascii=False, default=str)


class _Adapter:
    """GEPA's adapter: evaluate candidates on batches, build each component's reflective dataset (GEPA's own
    proposer asks the reflection model, with the prompts of :mod:`._templates`)."""

    propose_new_texts = None

    def __init__(self, session: SearchSession, loop: asyncio.AbstractEventLoop, stop: threading.Event) -> None:
        self.session = session
        self.loop = loop
        self.stop = stop
        self.pending: set[concurrent.futures.Future[Any]] = set()
        self.lock = threading.Lock()
        self.owners = {s.surface_id: (s.kind, s.owner) for s in session.surfaces}

    def bridge(self, coroutine: Coroutine[Any, Any, _T]) -> _T:
        """Run ``coroutine`` on the optimisation's event loop and wait for it (from GEPA's thread); once the search
        is stopped, refuse: GEPA's iteration ends with no further call and its stop check ends the thread."""
        with self.lock:  # halt() sees every call made before it, and none is made after it
            if self.stop.is_set():
                coroutine.close()
                raise _SearchStopped("the search was stopped")
            future = asyncio.run_coroutine_threadsafe(coroutine, self.loop)
            self.pending.add(future)
        try:
            return future.result()
        except concurrent.futures.CancelledError:
            raise _SearchStopped("the search was stopped") from None
        finally:
            self.pending.discard(future)

    def halt(self) -> None:
        """Stop the search: no new call, and the calls in flight cancelled (on the event loop's thread)."""
        with self.lock:
            self.stop.set()
            pending = list(self.pending)
        for future in pending:
            future.cancel()

    def evaluate(self, batch: list[str], candidate: dict[str, str], capture_traces: bool = False) -> Any:
        from gepa.core.adapter import EvaluationBatch

        by_split: dict[SplitName, list[str]] = {}
        for data_id in batch:
            split, eval_id = _split(data_id)
            by_split.setdefault(split, []).append(eval_id)
        scored: dict[str, ScoredCase] = {}
        for split, ids in by_split.items():
            result = self.bridge(self.session.evaluate(candidate, split, ids, feedback=capture_traces))
            for case in result.cases:
                scored.setdefault(f"{split}:{case.eval_id}", case)
        cases_in_order = [scored.get(data_id) for data_id in batch]
        scores = [c.score if c is not None else 0.0 for c in cases_in_order]
        records = [dict(c.feedback or {}, score=c.score) if c is not None else {"score": 0.0} for c in cases_in_order]
        return EvaluationBatch(outputs=records, scores=scores, trajectories=records if capture_traces else None)

    def make_reflective_dataset(
        self, candidate: dict[str, str], eval_batch: Any, components_to_update: list[str]
    ) -> dict[str, list[dict[str, Any]]]:
        records: Sequence[dict[str, Any]] = eval_batch.trajectories or []
        dataset: dict[str, list[dict[str, Any]]] = {}
        for component in components_to_update:
            kind, owner = self.owners.get(component, ("text", component))
            relevant = [r for r in records if _mentions(r, owner)] if kind in ("skill", "tool") and owner else []
            dataset[component] = relevant or list(records)
        return dataset


class _Stopper:
    """Stops GEPA between iterations once the cost or time budget is spent, or the search was cancelled (GEPA counts
    the metric calls itself, its earlier runs included)."""

    def __init__(self, session: SearchSession, stop: threading.Event) -> None:
        self.session, self.stop = session, stop

    def __call__(self, gepa_state: Any) -> bool:
        reason = self.session.exhausted()
        return self.stop.is_set() or (reason is not None and reason != "calls")


class GepaOptimizer:
    """GEPA (see the module's description)."""

    name = "gepa"
    uses_reflection = True

    async def search(self, session: SearchSession) -> SearchOutcome:
        """Run GEPA from ``session.seed``."""
        try:
            from gepa.api import optimize
        except ImportError:
            raise InputError("--optimizer gepa needs the gepa package: pip install 'agentgauge[optimize]'") from None
        loop = asyncio.get_running_loop()
        stop = threading.Event()
        adapter = _Adapter(session, loop, stop)
        settings = session.settings

        def reflect(prompt: str | list[dict[str, Any]]) -> str:
            text = prompt if isinstance(prompt, str) else json.dumps(prompt, ensure_ascii=False)
            return adapter.bridge(session.reflect(text))

        stopper = _Stopper(session, stop)
        logger = _Logger(session)

        templates = {sid: reflection_template(kind, owner) for sid, (kind, owner) in adapter.owners.items()}

        def run() -> Any:
            return optimize(
                seed_candidate=dict(session.seed),
                trainset=[f"train:{case}" for case in session.train_ids],
                valset=[f"validation:{case}" for case in session.validation_ids],
                adapter=cast(Any, adapter),
                reflection_lm=reflect,
                reflection_prompt_template=templates,
                reflection_minibatch_size=settings.minibatch,
                max_metric_calls=settings.max_metric_calls,
                stop_callbacks=[stopper],
                run_dir=str(settings.state_dir) if settings.state_dir is not None else None,
                logger=logger,
                seed=settings.seed,
                track_best_outputs=False,
                display_progress_bar=False,
                raise_on_exception=False,
            )

        thread = asyncio.ensure_future(asyncio.to_thread(run))
        try:
            result = await asyncio.shield(thread)
        except asyncio.CancelledError:
            # Cancelled (interrupted, or a time limit): GEPA's thread gets no further call and ends at its stop
            # check; it is waited for, so no search outlives the optimisation and writes its state behind it.
            adapter.halt()
            done, _ = await asyncio.wait([thread], timeout=_THREAD_GRACE)
            for ended in done:
                if not ended.cancelled():
                    ended.exception()  # read: the thread's own end (stopped mid-step) is no news
            raise
        outcome = _outcome(session, result)
        if logger.failures:
            outcome.details["failed_iterations"] = logger.failures
        return outcome


def _outcome(session: SearchSession, result: Any) -> SearchOutcome:
    candidates = [
        SearchCandidate(
            texts={**session.seed, **dict(texts)},
            score=float(score),
            parents=[p for p in parents if p is not None],
        )
        for texts, score, parents in zip(result.candidates, result.val_aggregate_scores, result.parents, strict=True)
    ]
    best: int | None = int(result.best_idx)
    if best is not None and (candidates[best].texts == session.seed or best == 0):
        best = None
    details = result.to_dict()
    return SearchOutcome(candidates, best, details)
