"""The use cases' entry: :func:`prepare` checks a request and loads its inputs, :func:`evaluate` runs it, and
:func:`evaluate_set` runs one eval set held in memory (the ADK drop-in, the pytest plugin)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from ..evaluators import Registry
from ..storage import InMemoryEvalResultManager
from ._agent_run import prepare_agents
from ._baseline import load_baseline
from ._options import JudgeOptions, MetricOptions
from ._request import EvalRequest, EvalSetSpec

if TYPE_CHECKING:  # pragma: no cover
    from pathlib import Path

    from ..formats import InputProblem
    from ..model import EvalMetric, EvalSet, EvalSetResult
    from ..run import EvaluationResult, ResultSink
    from ._run import Note, PreparedRun, RunProgress, Warn

__all__ = ["evaluate", "evaluate_set", "prepare"]


def _silent(_: str) -> None:
    """The notes of a caller that asked for none."""


def prepare(request: EvalRequest, *, on_note: Note | None = None, on_warning: Warn | None = None) -> PreparedRun:
    """Check ``request`` once and load everything it runs on, before any agent or judge is called: eval sets,
    metrics (judge keys included), the app, where results go, the resumed run, the baseline, the agent, simulated
    users, the agent cache and the engine. Bad input raises :class:`~agentgauge.errors.InputError` (or
    :class:`~agentgauge.errors.NotFoundError`) naming the file and JSON path, or the option or field as the request's
    surface spells it. ``on_note`` hears lines for the person running it, ``on_warning`` the input checks' warnings
    (default: each as a ``warning: FILE: PATH: message`` note); nothing is printed here.

    Loading reads files and may import the agent: call it from a worker thread on a server's event loop.
    """
    checked = request.check()
    note = on_note or _silent

    def warn(problem: InputProblem) -> None:
        note(f"warning: {problem.line()}")

    baseline = load_baseline(checked)  # a baseline that is not there is refused before the inputs are read
    if request.traces is not None:
        from ._trace_run import prepare_traces

        prepared = prepare_traces(checked, note, on_warning or warn)
    else:
        prepared = prepare_agents(checked, note, on_warning or warn)
    prepared.baseline = baseline
    return prepared


async def evaluate(
    request: EvalRequest,
    *,
    progress: RunProgress | None = None,
    on_note: Note | None = None,
    on_warning: Warn | None = None,
) -> list[EvaluationResult]:
    """Run ``request`` (see :func:`prepare`): one :class:`~agentgauge.run.EvaluationResult` per eval set, in order
    (an interrupted set ends the run). ``progress`` follows each set as it runs."""
    prepared = prepare(request, on_note=on_note, on_warning=on_warning)
    return await prepared.run(progress)


async def evaluate_set(
    eval_set: EvalSet,
    metrics: Sequence[EvalMetric] | None,
    agent: object,
    *,
    app_name: str,
    num_runs: int = 1,
    case_ids: Sequence[str] | None = None,
    result_manager: ResultSink | None = None,
    path: Path | None = None,
    registry: Registry | None = None,
    case_status: str | None = None,
) -> EvalSetResult:
    """Evaluate ``eval_set`` (held in memory; ``path`` is its file, beside which its metrics are found when
    ``metrics`` is ``None``) against ``agent`` (anything :func:`agentgauge.agents.as_agent` accepts, or ``None``
    when every selected case is in trace mode) and return every case result of every run, its summary's case
    statuses decided by ``case_status`` (``mean``, ``all``, ``majority`` or ``any``; default ``mean``).

    The result is kept in memory only unless ``result_manager`` stores it; judge answers are not cached on disk and
    no plug-ins are loaded unless ``registry`` has them.
    """
    request = EvalRequest(
        agent=agent,
        sets=(EvalSetSpec(path, tuple(case_ids or ()), eval_set),),
        config=tuple(metrics) if metrics is not None else None,
        metrics=MetricOptions(case_status=case_status),
        num_runs=num_runs,
        app_name=app_name,
        results=result_manager if result_manager is not None else InMemoryEvalResultManager(),
        judge=JudgeOptions(no_cache=True),
        registry=registry if registry is not None else Registry(),
    )
    [outcome] = await evaluate(request)
    return outcome.eval_set_result
