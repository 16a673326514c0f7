"""The search for a better candidate, and the protocol of the optimisers that make it.

An optimiser gets a :class:`SearchSession`: the baseline texts (``seed``), the surfaces, the train and validation
case ids, a way to score texts on cases (:meth:`SearchSession.evaluate`, through the run engine, counted against
the budget) and the reflection model (:meth:`SearchSession.reflect`). It returns a :class:`SearchOutcome`: the
candidates it considered, with its own estimate of each, and the one it proposes. Only the proposal is then put to
the gate, on fresh runs; what the optimiser measured during its search never decides.

A plug-in optimiser is any object with ``name`` and ``async search(session)`` (see :class:`Optimizer`), given as
``--optimizer module:attribute`` or ``--optimizer path/to/file.py:attribute`` (an instance, or a class / function
called without arguments to make one). One that never calls :meth:`SearchSession.reflect` may set
``uses_reflection = False``: no reflection model is then required.
"""

from __future__ import annotations

import random
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, Protocol, runtime_checkable

from ..model import GaugeModel
from ._budget import Budget, Spending
from ._feedback import case_feedback, case_score
from ._surfaces import Surface

__all__ = [
    "EvaluationTiming",
    "Optimizer",
    "ScoredBatch",
    "ScoredCase",
    "SearchCandidate",
    "SearchOutcome",
    "SearchSession",
    "SearchSettings",
    "SplitName",
]

SplitName = Literal["train", "validation"]


@dataclass(frozen=True)
class ScoredCase:
    """One case run of a search step: its score (1.0 passed, 0.0 not; or the chosen metric's) and, when asked for,
    what the reflection model reads about it."""

    eval_id: str
    score: float
    passed: bool
    feedback: dict[str, Any] | None = None


@dataclass(frozen=True)
class ScoredBatch:
    """The case runs of one search step, in the order asked."""

    cases: list[ScoredCase]

    @property
    def mean(self) -> float:
        """The mean score (0.0 for no case)."""
        return sum(c.score for c in self.cases) / len(self.cases) if self.cases else 0.0


@dataclass
class SearchCandidate:
    """A candidate the optimiser considered: every surface's text, its own score of it (the mean on validation,
    when it measured one) and the candidates it was made from."""

    texts: dict[str, str]
    score: float | None = None
    parents: list[int] = field(default_factory=list)


@dataclass
class SearchOutcome:
    """What a search found: the candidates (the first is usually the baseline) and the index of the one proposed
    (``None``: nothing better than the baseline); ``details``: the optimiser's own record (printed with
    ``--print_detailed_results``)."""

    candidates: list[SearchCandidate]
    best: int | None
    details: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class SearchSettings:
    """Settings optimisers read: the random ``seed``, the metric calls allowed (``max_metric_calls``), GEPA's
    ``minibatch`` (cases per reflection), the simple optimiser's ``iterations`` and ``batch_size``, the metric the
    score is (``None``: passed or not) and a folder for the optimiser's own state (``state_dir``: a search run again
    with the same folder continues)."""

    seed: int = 0
    max_metric_calls: int | None = None
    minibatch: int = 3
    iterations: int = 10
    batch_size: int = 5
    metric: str | None = None
    state_dir: Path | None = None


class EvaluationTiming(GaugeModel):
    """One evaluation of the optimisation: phase (``search`` or ``gate``), split, cases, case runs, wall time, the
    agent's model calls its turns recorded and the case runs answered from the agent answer cache (what the benchmark
    compares with the ideal of the model calls made)."""

    phase: str
    split: str
    cases: int
    case_runs: int
    seconds: float
    model_calls: int = 0
    cached_runs: int = 0


Evaluate = Callable[[Mapping[str, str], SplitName, Sequence[str], bool], Awaitable[ScoredBatch]]


class SearchSession:
    """What an optimiser works with (see the module's description)."""

    def __init__(
        self,
        seed: Mapping[str, str],
        surfaces: Sequence[Surface],
        train_ids: Sequence[str],
        validation_ids: Sequence[str],
        settings: SearchSettings,
        *,
        evaluate: Evaluate,
        reflect: Callable[[str], Awaitable[str]],
        budget: Budget,
        spending: Spending,
        note: Callable[[str], None] = lambda _: None,
    ) -> None:
        self.seed = dict(seed)
        self.surfaces = list(surfaces)
        self.train_ids = list(train_ids)
        self.validation_ids = list(validation_ids)
        self.settings = settings
        self.budget = budget
        self.spending = spending
        self.random = random.Random(settings.seed)
        """The search's random numbers (seeded by ``--seed``)."""
        self._evaluate = evaluate
        self._reflect = reflect
        self._note = note

    async def evaluate(
        self,
        texts: Mapping[str, str],
        split: SplitName = "train",
        case_ids: Sequence[str] | None = None,
        *,
        feedback: bool = False,
    ) -> ScoredBatch:
        """Score ``texts`` (surface id → text; surfaces left out keep the baseline's) on ``case_ids`` of
        ``split`` (default: all of them), one run each; ``feedback`` adds what the reflection model reads."""
        ids = list(case_ids) if case_ids is not None else (self.train_ids if split == "train" else self.validation_ids)
        return await self._evaluate({**self.seed, **texts}, split, ids, feedback)

    async def reflect(self, prompt: str) -> str:
        """The reflection model's answer to ``prompt``."""
        return await self._reflect(prompt)

    def exhausted(self) -> str | None:
        """The budget limit reached (``calls``, ``cost`` or ``time``), or ``None``: check between steps."""
        return self.spending.exhausted(self.budget)

    def note(self, message: str) -> None:
        """A line for the person running the optimisation."""
        self._note(message)


def scored_batch(results: Sequence[Any], cases: Mapping[str, Any], metric: str | None, feedback: bool) -> ScoredBatch:
    """The search step's view of a run's case results (``EvalCaseResult``), in run order."""
    from ..model import EvalStatus

    return ScoredBatch(
        [
            ScoredCase(
                r.eval_id,
                case_score(r, metric),
                r.final_eval_status is EvalStatus.PASSED,
                case_feedback(r, cases.get(r.eval_id)) if feedback else None,
            )
            for r in results
        ]
    )


@runtime_checkable
class Optimizer(Protocol):
    """A search strategy (see the module's description)."""

    @property
    def name(self) -> str:
        """How reports name the optimiser."""
        ...

    async def search(self, session: SearchSession) -> SearchOutcome:
        """Search for texts better than ``session.seed``; stop when :meth:`SearchSession.exhausted` says so."""
        ...
