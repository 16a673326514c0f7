"""A request checked and its inputs loaded, ready to run: :class:`PreparedRun`, the one place an
:class:`~agentgauge.run.AgentEvaluator` is built, and what a caller sees of the run as it goes
(:class:`RunProgress`, :class:`SetHeading`)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..agents.remote import preflight_remote_agents
from ..run import AgentEvaluator, EvaluationResult
from ..storage import InMemoryMetricManager, LocalEvalResultManager
from ._resume import agent_cache_note

if TYPE_CHECKING:  # pragma: no cover
    from ..formats import InputProblem
    from ..model import CaseNotRun, EvalMetric
    from ..run import ResumeState
    from ..service import AgentResponseCache, EvaluatorSource, Executor
    from ..simulation import SimulationSettings
    from ._baseline import Baseline
    from ._checks import CheckedRequest

__all__ = ["Note", "PreparedRun", "RunProgress", "SetHeading", "SetRun", "Shared", "Warn"]

Note = Callable[[str], None]
"""``on_note(text)``: a line for the person running the evaluation (a trace matched to a case, a resumed run)."""

Warn = Callable[["InputProblem"], None]
"""``on_warning(problem)``: what the input checks warn of (an unknown key the file's own tool ignores), one
problem each; the run goes on."""


@dataclass(frozen=True)
class SetHeading:
    """What opens an eval set's run: its id, where its cases come from (a file, ``N trace(s) from ...``), where its
    metrics come from and the metrics left out by the selection."""

    eval_set_id: str
    source: str
    metrics_source: str
    skipped: tuple[str, ...] = ()

    def __str__(self) -> str:
        skipped = f" (skipped: {', '.join(self.skipped)})" if self.skipped else ""
        return f"{self.eval_set_id} ({self.source}): metrics from {self.metrics_source}{skipped}"


class RunProgress:
    """What a caller sees of a run as it goes, one eval set after the other; override what you need (every method
    does nothing here)."""

    def set_started(self, heading: SetHeading) -> None:
        """An eval set's run is about to start (nothing of it runs yet)."""

    def cases_under_way(self, heading: SetHeading) -> None:
        """The set's first cases are under way (their agents at work)."""

    def advanced(self, done: int, total: int) -> None:
        """``done`` of the set's ``total`` case runs are scored (``(0, total)`` first)."""

    def set_finished(self, outcome: EvaluationResult | None) -> None:
        """The set's run has ended (``outcome.interrupted`` when it was stopped; ``None`` when it raised)."""


@dataclass
class SetRun:
    """One eval set of a prepared run: its heading, where its cases are read from, its metrics, the ids of the cases
    that run (``selected``) and the case filter the run applies (empty: every case of the source), the interrupted
    run it continues and, for traces, how each trace was paired with a case (``(case id, how)``) and the cases of
    the eval set no trace matched (``not_run``)."""

    heading: SetHeading
    source: Any
    metrics: list[EvalMetric]
    selected: tuple[str, ...]
    case_ids: tuple[str, ...] = ()
    resume: ResumeState | None = None
    matches: tuple[tuple[str, str], ...] = ()
    not_run: tuple[CaseNotRun, ...] = ()
    metric_store: InMemoryMetricManager = field(default_factory=InMemoryMetricManager)


@dataclass
class Shared:
    """What every eval set of a run shares besides the request: the app, the agent (``None``: trace mode), the
    registry, the engine and the settings each case pipeline uses."""

    app: str
    agent: object | None
    registry: EvaluatorSource
    executor: Executor | None = None
    prices: Any = None
    simulation: SimulationSettings | None = None
    agent_cache: AgentResponseCache | None = None
    agent_source: str | None = None
    timeout: float | None = None


class PreparedRun:
    """A request checked and its inputs loaded (see :func:`~agentgauge.launch.prepare`): :meth:`run` evaluates
    its eval sets in turn; :meth:`interrupt` stops the run, keeping the cases finished so far."""

    def __init__(
        self,
        checked: CheckedRequest,
        shared: Shared,
        sets: Sequence[SetRun],
        *,
        on_note: Note,
        close: Callable[[], None] | None = None,
    ) -> None:
        self.checked = checked
        self.shared = shared
        self.sets = list(sets)
        """The eval sets, in the order they run."""
        for set_run in self.sets:
            set_run.metric_store.put_all(shared.app, set_run.heading.eval_set_id, set_run.metrics)
        self.baseline: Baseline | None = None
        """The result each eval set's result is compared with once that set has run (``None``: none)."""
        self._note = on_note
        self._close = close
        self._current: AgentEvaluator | None = None
        self._stopped: bool | None = None  # None: not stopped; else whether a user cancelled

    @property
    def app_name(self) -> str:
        """The app the results are saved under."""
        return self.shared.app

    def interrupt(self, *, cancelled: bool = False) -> None:
        """Stop the run as soon as possible: cases in flight are cancelled, the finished ones saved in a result
        marked ``interrupted`` (and ``cancelled``), and no further eval set starts. Call it from the event loop's
        thread (e.g. a SIGINT handler on the loop)."""
        self._stopped = cancelled
        if self._current is not None:
            self._current.interrupt(cancelled=cancelled)

    def close(self) -> None:
        """Free what the run holds (the spill file of indexed traces); :meth:`run` does it when it ends."""
        close, self._close = self._close, None
        if close is not None:
            close()

    async def run(self, progress: RunProgress | None = None) -> list[EvaluationResult]:
        """Evaluate each eval set in turn and return their outcomes; an interrupted set ends the run. First every
        remote agent must answer its protocol (:class:`~agentgauge.errors.InputError` naming the one that does not:
        an agent that is down is one input error, not a run of failed cases)."""
        progress = progress or RunProgress()
        outcomes: list[EvaluationResult] = []
        try:
            await preflight_remote_agents([self.shared.agent, getattr(self.shared.simulation, "expected_agent", None)])
            for set_run in self.sets:
                if self._stopped is not None:
                    break
                evaluator = self._evaluator(set_run, progress)
                self._current = evaluator
                progress.set_started(set_run.heading)
                try:
                    outcome = await evaluator.evaluate(set_run.heading.eval_set_id, resume=set_run.resume)
                except BaseException:
                    self._current = None
                    progress.set_finished(None)  # the caller's display ends with the set, whatever happened
                    raise
                self._current = None
                progress.set_finished(outcome)
                outcomes.append(outcome)
                if self.baseline is not None:
                    self.baseline.compare(outcome, several=len(self.sets) > 1, on_note=self._note)
                if outcome.interrupted:
                    break
        finally:
            self.close()
        cache = self.shared.agent_cache
        if cache is not None:
            self._note(agent_cache_note(cache))
        return outcomes

    def _evaluator(self, set_run: SetRun, progress: RunProgress) -> AgentEvaluator:
        """The evaluator of one eval set: every setting of the request, in one place."""
        checked, shared = self.checked, self.shared
        request = checked.request
        heading = set_run.heading
        results = request.results
        return AgentEvaluator(
            shared.app,
            shared.agent,
            eval_set_manager=set_run.source,
            metric_manager=set_run.metric_store,
            result_manager=results if results is not None else LocalEvalResultManager(base_dir=request.output_dir),
            registry=shared.registry,
            callbacks=request.callbacks,
            num_runs=request.num_runs,
            parallelism=request.parallelism,
            timeout=shared.timeout,
            case_ids=set_run.case_ids or None,
            progress=progress.advanced,
            on_start=lambda: progress.cases_under_way(heading),
            # a comparison reads every case result of the set once it has run
            max_results_in_memory=None if request.keep_results or self.baseline is not None else 0,
            executor=shared.executor,
            prices=shared.prices,
            simulation=shared.simulation,
            agent_cache=shared.agent_cache,
            metric_selection=checked.selection,
            labels=checked.labels,
            agent_source=shared.agent_source,
            case_status=checked.case_status,
            record_metadata=request.record_metadata,
            cases_not_run=set_run.not_run,
        )
