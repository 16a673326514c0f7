"""Preparing an agent run: every input checked and loaded before the first agent call -- eval sets, metrics, judge
keys, the app, where results go, the resumed run, the agent, the simulation settings, the agent cache and the
engine."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..agents import load_agent
from ..agents.remote import is_remote_agent_spec
from ..errors import InputError
from ..mocks import is_replay_case
from ..model import prices_for_run
from ._resume import make_agent_cache, resume_state
from ._run import Note, PreparedRun, SetHeading, SetRun, Shared, Warn
from ._sets import LoadedSet, app_name_for, check_result_places, load_set
from ._simulation import simulation_plan

if TYPE_CHECKING:  # pragma: no cover
    from collections.abc import Callable

    from ..model import EvalCase
    from ._checks import CheckedRequest
    from ._simulation import SimulationPlan

__all__ = ["prepare_agents"]


def prepare_agents(checked: CheckedRequest, on_note: Note, on_warning: Warn) -> PreparedRun:
    """Check and load everything an agent run needs (:class:`~agentgauge.errors.InputError` before anything runs);
    the input checks' warnings go to ``on_warning``. The remote agents are checked when the run starts."""
    request = checked.request
    spec = request.agent if isinstance(request.agent, str) else None
    registry = checked.registry()
    prices = prices_for_run(request.prices) if request.agent is not None else None
    sets = [load_set(s, checked, registry, needs_agent=request.agent is None) for s in checked.sets]
    checked.settle_inputs(on_warning)
    if request.metrics.replay and not _selected_cases(sets, is_replay_case):
        names = ", ".join(s.spec.source for s in sets)
        raise InputError(
            f"{checked.surface.name('replay')}: no selected case of {names} is a replay case (make one with "
            "'agentgauge replay-set' or 'agentgauge traces to-evalset --mocks')"
        )
    app = app_name_for(request.app_name, sets, checked.surface.name("app_name"))
    check_result_places(sets, app, request.results, request.output_dir)
    resumed = None
    if request.resume is not None:
        ids = [s.eval_set.eval_set_id for s in sets]
        store = None if request.results is None or not hasattr(request.results, "store") else request.results
        resumed = resume_state(
            request.resume, request.output_dir, app, ids, checked.surface, store=store, on_note=on_note
        )
    agent = load_agent(spec, remote=checked.remote) if spec is not None else request.agent
    if getattr(agent, "remote", False):
        _note_tool_mocks(sets, on_note)
    source = spec if spec is not None else request.agent_source
    shared = Shared(app, agent, registry, prices=prices, agent_source=source, timeout=request.timeout)
    plan = _simulation_plan(checked, sets)
    shared.simulation = plan.build() if plan is not None else None
    if isinstance(request.agent_cache, Path) and spec is not None:
        shared.agent_cache = make_agent_cache(request.agent_cache, spec)
    elif request.agent_cache is not None and not isinstance(request.agent_cache, Path):
        shared.agent_cache = request.agent_cache  # the caller's own cache, keyed as it chose
    # A remote agent is shipped to the workers as loaded here (with its headers), not loaded again there.
    shipped = spec is not None and is_remote_agent_spec(spec)
    shared.executor = checked.engine.build(
        None if shipped else spec,
        checked.registry_factory(),
        simulation=plan.for_workers().build if plan is not None else None,  # workers load the files themselves
    )
    runs = [SetRun(_heading(s), s.source, s.metrics, s.selected, s.spec.case_ids, resumed) for s in sets]
    return PreparedRun(checked, shared, runs, on_note=on_note)


def _heading(loaded: LoadedSet) -> SetHeading:
    return SetHeading(loaded.eval_set.eval_set_id, loaded.spec.source, loaded.metrics_source, loaded.skipped)


def _note_tool_mocks(sets: list[LoadedSet], on_note: Note) -> None:
    """One line before the run when selected cases have tool mocks a remote agent cannot honour."""
    mocked = _selected_cases(sets, lambda case: any(inv.tool_mock is not None for inv in case.conversation or []))
    if mocked:
        replays = _selected_cases(sets, is_replay_case)
        which = f" ({replays} replay case(s) cannot be served from their recording)" if replays else ""
        on_note(
            f"note: tool mocks of {mocked} case(s) do not apply{which}: the remote agent runs its tools on its server"
        )


def _selected_cases(sets: list[LoadedSet], predicate: Callable[[EvalCase], bool]) -> int:
    """How many selected cases of ``sets`` ``predicate`` holds for."""
    count = 0
    for loaded in sets:
        selected = set(loaded.selected)
        count += sum(1 for case in loaded.eval_set.eval_cases if case.eval_id in selected and predicate(case))
    return count


def _simulation_plan(checked: CheckedRequest, sets: list[LoadedSet]) -> SimulationPlan | None:
    """The plan of the run's simulation settings (user simulator, expected agent, tool-mock generator); ``None``
    when no case needs any."""
    request = checked.request
    judge = request.judge
    planned: list[tuple[Any, set[str], str, Path | None]] = [
        (s.eval_set, set(s.selected), s.spec.source, s.metrics_file) for s in sets
    ]
    return simulation_plan(
        request.simulation,
        planned,
        remote=checked.remote,
        judge_model=judge.default_model,
        cache_dir=judge.cache_dir(request.output_dir),
        judge_timeout=judge.timeout,
        missing_user=checked.surface.name("simulated_user"),
    )
