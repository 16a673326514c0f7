"""Scoring in processes of their own: the receiver and the scoring never share an interpreter lock, so a busy
scorer cannot slow the acknowledgements (on the receiver benchmark, scoring 1,000 sessions in the server's process
took a third of its throughput).

The engine sends each sampled session's spans (copies, as the store gives them) to a worker process, which reads the
conversation as the live store reads it (:func:`~agentgauge.traces.session_conversations`), scores it with the
scorer the server made there (``factory(argument)``: module-level and picklable, so the spawned process imports it)
and answers the case results, the pairing and the judge calls it made. A rule's judge budget goes along as an
allowance: the worker refuses calls beyond it, the engine counts what was used.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ._limits import JudgeMeter, PeriodCounter, install_judge_meter
from ._rule_state import error_case, evaluated_span

if TYPE_CHECKING:  # pragma: no cover
    from ..model import EvalCaseResult
    from ..traces import Span
    from ._engine import SessionScorer

__all__ = ["ScorerFactory", "WorkerAnswer", "score_in_worker", "start_worker"]

_NICENESS = 19  # added to the worker processes' niceness by default (the lowest priority)

ScorerFactory = Callable[[Any], "SessionScorer"]
"""Makes the scorer of a worker process from its argument (a module-level function: it is pickled by name)."""


@dataclass
class WorkerAnswer:
    """What a worker made of one session: the app, the case results (one per conversation; one that could not be
    scored is an error case), the pairing with an eval set, the judge calls made and refused, and the evaluated
    span (trace id, span id) the scores are parented to."""

    app: str
    cases: list[EvalCaseResult]
    matches: list[tuple[str, str]] = field(default_factory=list)
    judge_calls: int = 0
    judge_refused: int = 0
    evaluated: tuple[str, str] = ("", "")


class _Worker:
    scorer: SessionScorer | None = None
    source = ""
    loop: asyncio.AbstractEventLoop | None = None


def start_worker(factory: ScorerFactory, argument: Any, source: str, niceness: int = _NICENESS) -> None:
    """The initializer of a worker process: a lower priority than the receiver's (scoring is background work: on a
    busy machine the receiver gets the processor first and the queue absorbs the wait), its scorer, its event loop
    (kept: judge connections are per loop) and the call gate that charges judge calls to the rule's allowance."""
    import contextlib
    import os

    with contextlib.suppress(AttributeError, OSError):  # os.nice is POSIX
        os.nice(niceness)
    _Worker.scorer = factory(argument)
    _Worker.source = source
    _Worker.loop = asyncio.new_event_loop()
    install_judge_meter()


def worker_ready() -> int:
    """Nothing but an answer (the worker's process id): submitted once per worker when the engine starts, so the
    workers start then, and the status can say they have."""
    import os

    return os.getpid()


def score_in_worker(
    rule_data: dict[str, Any], key: str, trace_spans: dict[str, list[Span]], allowance: int | None
) -> WorkerAnswer:
    """Score session ``key`` (the spans of its traces) for the rule ``rule_data`` (its JSON form), with at most
    ``allowance`` judge calls (``None``: no budget)."""
    from ..traces import session_conversations
    from ._rules import OnlineRule

    rule = OnlineRule.model_validate(rule_data)
    conversations, notes, spans = session_conversations(trace_spans, _Worker.source)
    evaluated = evaluated_span(spans, conversations)
    app = rule.app or next((c.app_name for c in conversations if c.app_name), "")
    if not conversations:
        why = "; ".join(notes) or "no spans"
        return WorkerAnswer(app, [error_case(f"no agent conversation to score: {why}")], evaluated=evaluated)
    meter = JudgeMeter(rule.name, PeriodCounter(allowance, "day")) if allowance is not None else None
    scorer, loop = _Worker.scorer, _Worker.loop
    assert scorer is not None and loop is not None, "start_worker runs first"
    try:
        if meter is not None:
            with meter.held():
                scored = loop.run_until_complete(scorer(rule, key, conversations))
        else:
            scored = loop.run_until_complete(scorer(rule, key, conversations))
    except Exception as exc:  # errors are data: this session errors, the others are scored
        cases = [error_case(str(exc) or type(exc).__name__)]
        return WorkerAnswer(app, cases, judge_calls=_used(meter), judge_refused=_refused(meter), evaluated=evaluated)
    cases = scored.cases or [error_case("nothing was scored")]
    return WorkerAnswer(scored.app_name, cases, scored.matches, _used(meter), _refused(meter), evaluated)


def _used(meter: JudgeMeter | None) -> int:
    return meter.counter.used if meter is not None else 0


def _refused(meter: JudgeMeter | None) -> int:
    return meter.refused if meter is not None else 0
