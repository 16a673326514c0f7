"""``eval``'s runner for agents: check every input, then run the agent over each eval set in turn.

Everything that can be refused (eval sets, metrics, judge keys, the app name, where results go, the resumed run,
the simulation settings) is checked before the first agent call.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # pragma: no cover
    from rich.console import Console

    from ..evaluators import Registry
    from ..run._evaluator import EvaluationResult
    from ..service import Executor
    from ._options import EvalRunOptions
    from ._targets import Target

__all__ = ["run_agents"]


def run_agents(args: list[str], options: EvalRunOptions) -> list[EvaluationResult]:
    """Validate every input, then evaluate each eval set in turn (results go to ``options.result_store`` when
    given; ``keep_results=False``: the outcomes read case results back from where they were saved, when asked)."""
    from ..agents import load_agent, looks_like_agent_spec
    from ..agents.remote import check_remote_agents
    from ..model._prices import prices_for_run
    from ._eval_inputs import check_set_args
    from ._eval_run import run_phase_starts
    from ._exit import leave_to_the_os
    from ._targets import app_name_for, make_registry

    agent_spec = args[0] if args and looks_like_agent_spec(args[0]) else None
    set_args = args[1:] if agent_spec is not None else args
    check_set_args(agent_spec, set_args)
    registry = make_registry(options.output_dir, options.judge, options.metrics.judge_parallelism)
    price_table = prices_for_run(options.prices) if agent_spec is not None else None
    targets = _load_targets(set_args, options, registry, needs_agent=agent_spec is None)
    app = app_name_for(options.app_name, targets)
    _check_result_places(targets, app, options)
    resumed = None
    if options.resume is not None:
        from ._eval_resume import resume_state

        ids = [t.eval_set.eval_set_id for t in targets if t.eval_set is not None]
        resumed = resume_state(
            options.resume, options.output_dir, app, ids, options.console, store=options.result_store
        )
    options = _with_remote_settings(agent_spec, options)
    remote = options.simulation.remote if options.simulation is not None else None
    agent = load_agent(agent_spec, remote=remote) if agent_spec is not None else None
    if getattr(agent, "remote", False):
        _note_tool_mocks(targets, options.console)
    run = _AgentRun(app, agent, registry, options, resumed)
    run.prepare(agent_spec, targets, price_table)
    check_remote_agents([agent, getattr(run.simulation, "expected_agent", None)])  # exit 2 when one is unusable
    run_phase_starts()
    outcomes = []
    for target in targets:
        outcome = run.evaluate(target)
        outcomes.append(outcome)
        if outcome.interrupted:
            break  # Ctrl-C stops the whole command, not just this eval set
    if run.agent_cache is not None:
        from ._eval_resume import report_agent_cache

        report_agent_cache(run.agent_cache, options.console)
    leave_to_the_os(targets)  # the loaded eval sets are freed at exit, if ever (~3 ms)
    return outcomes


def _load_targets(
    set_args: list[str], options: EvalRunOptions, registry: Registry, *, needs_agent: bool
) -> list[Target]:
    """Open each eval set (a large one as a stream), select its cases, find and check its metrics; without an
    agent, every selected case must be in trace mode."""
    from ..errors import InputError
    from ..formats import InputReport
    from ..service import StreamedEvalSet, open_eval_set
    from ._targets import checked_metrics, find_metrics, selected_case_ids, settle_inputs, split_case_filter

    targets = [split_case_filter(arg) for arg in set_args]
    report = InputReport(strict=options.strict, strict_reason="--strict")  # unknown keys and other input warnings
    for target in targets:
        loaded = open_eval_set(target.path, report=report)
        if isinstance(loaded, StreamedEvalSet):
            target.stream, target.eval_set = loaded, loaded.header
        else:
            target.eval_set = loaded
        selected = set(selected_case_ids(target))
        find_metrics(target, options.config, report)
        target.metrics = options.metrics.apply_dialect(target.metrics, target.metrics_source)
        skipped = checked_metrics(options.metrics.selection, target.metrics, registry, target.metrics_source, report)
        target.skipped = skipped
        if needs_agent:
            needing = [c.eval_id for c in target.eval_set.eval_cases if c.eval_id in selected and not c.is_trace]
            if needing:
                raise InputError(
                    f"an agent is required: case(s) {', '.join(needing)} are not in trace mode; "
                    "usage: agentgauge eval AGENT EVAL_SET...",
                    file=str(target.path),
                )
    settle_inputs(report)
    return targets


def _with_remote_settings(agent_spec: str | None, options: EvalRunOptions) -> EvalRunOptions:
    """``options`` with the remote-agent settings of ``--agent-header``, ``--agent-config``, ... in its simulation
    options (where the expected agent is loaded, too); refused when no agent of the run is remote."""
    import dataclasses

    from ..agents.remote import is_remote_agent_spec
    from ..errors import InputError
    from ._remote_opts import REMOTE_OPTION_NAMES, remote_settings
    from ._simulation_opts import SimulationOptions

    settings = remote_settings(options.remote)
    if settings is None:
        return options
    simulation = options.simulation or SimulationOptions()
    if not any(spec is not None and is_remote_agent_spec(spec) for spec in (agent_spec, simulation.expected_agent)):
        raise InputError(
            f"{REMOTE_OPTION_NAMES} apply to remote agents (a2a+http://, adk+http://, agui+http://, "
            f"http://), not to {agent_spec or 'recorded traces'}"
        )
    return dataclasses.replace(options, simulation=dataclasses.replace(simulation, remote=settings))


def _note_tool_mocks(targets: list[Target], console: Console) -> None:
    """One line before the run when selected cases have tool mocks a remote agent cannot honour."""
    from ._common import print_line
    from ._targets import selected_case_ids

    mocked = 0
    for target in targets:
        if target.eval_set is None:
            continue
        selected = set(selected_case_ids(target))
        mocked += sum(
            1
            for case in target.eval_set.eval_cases
            if case.eval_id in selected and any(inv.tool_mock is not None for inv in case.conversation or [])
        )
    if mocked:
        print_line(
            console,
            f"note: tool mocks of {mocked} case(s) do not apply: the remote agent runs its tools on its server",
        )


def _check_result_places(targets: list[Target], app: str, options: EvalRunOptions) -> None:
    """A result that cannot be saved must fail now, not after the run."""
    from ._common import check_result_location

    for target in targets:
        assert target.eval_set is not None
        if options.result_store is not None:
            from ..sqlstore._cli import check_result_id

            check_result_id(app, target.eval_set.eval_set_id, str(target.path))
        else:
            check_result_location(options.output_dir, app, target.eval_set.eval_set_id, str(target.path))


@dataclass
class _AgentRun:
    """What every eval set of one agent run shares: the app, the agent, the registry, and (after :meth:`prepare`)
    the executor, prices, simulation settings and agent cache."""

    app: str
    agent: Any
    registry: Registry
    options: EvalRunOptions
    resumed: Any = None
    executor: Executor | None = None
    prices: Any = None
    simulation: Any = None
    agent_cache: Any = None
    agent_spec: str | None = None  # as given: its source is hashed into the run metadata

    def prepare(self, agent_spec: str | None, targets: list[Target], prices: Any) -> None:
        """Build the run's simulation settings, agent cache and executor (missing simulators fail here)."""
        from ._targets import registry_factory

        options = self.options
        self.agent_spec = agent_spec
        plan = _simulation_plan(options, targets)
        self.prices, self.simulation = prices, plan.build() if plan is not None else None
        if options.cache_agent is not None and agent_spec is not None:
            from ._eval_resume import make_agent_cache

            self.agent_cache = make_agent_cache(options.cache_agent, agent_spec)
        if options.engine is not None:
            from ..agents.remote import is_remote_agent_spec

            # A remote agent is shipped to the workers as loaded here (with its headers), not loaded again there.
            shipped = agent_spec is not None and is_remote_agent_spec(agent_spec)
            self.executor = options.engine.build(
                None if shipped else agent_spec,
                registry_factory(options.output_dir, options.judge, options.metrics.judge_parallelism),
                simulation=plan.for_workers().build if plan is not None else None,  # workers load the files themselves
            )

    def evaluate(self, target: Target) -> EvaluationResult:
        """Run the agent over one eval set, with its heading and (on a terminal) a progress bar."""
        import asyncio

        from ..run._evaluator import AgentEvaluator
        from ..service import LoadedEvalSet
        from ..storage import InMemoryMetricManager, LocalEvalResultManager
        from ._eval_run import evaluate_interruptibly, run_phase_ends

        options, app = self.options, self.app
        assert target.eval_set is not None
        sets: Any = target.stream if target.stream is not None else LoadedEvalSet(target.eval_set)
        metrics = InMemoryMetricManager()
        metrics.put_all(app, target.eval_set.eval_set_id, target.metrics)
        heading = _Heading(options.console, target)
        bar, update = (None, None)
        if options.progress_console is not None and options.progress_console.is_terminal:
            heading()  # above the bar, which shows from now on
            bar, update = _progress(options.progress_console, target.eval_set.eval_set_id)
        results = options.result_store
        evaluator = AgentEvaluator(
            app,
            self.agent,
            eval_set_manager=sets,
            metric_manager=metrics,
            result_manager=results if results is not None else LocalEvalResultManager(base_dir=options.output_dir),
            registry=self.registry,
            num_runs=options.num_runs,
            parallelism=options.parallelism,
            timeout=options.timeout,
            case_ids=target.case_ids or None,
            progress=update,
            on_start=heading,  # without a bar: once the first cases are under way (the import of rich overlaps them)
            executor=self.executor,
            prices=self.prices,
            simulation=self.simulation,
            agent_cache=self.agent_cache,
            max_results_in_memory=None if options.keep_results else 0,
            metric_selection=options.metrics.selection,
            labels=options.labels,
            case_status=options.metrics.case_status,
            agent_source=self.agent_spec,
        )
        if bar is not None:
            with bar:
                outcome = asyncio.run(evaluate_interruptibly(evaluator, target.eval_set.eval_set_id, self.resumed))
        else:
            outcome = asyncio.run(evaluate_interruptibly(evaluator, target.eval_set.eval_set_id, self.resumed))
        run_phase_ends()
        return outcome


def _simulation_plan(options: EvalRunOptions, targets: list[Target]) -> Any:
    """The plan of the run's simulation settings (user simulator, expected agent, tool-mock generator), see
    _simulation_opts; ``None`` when no case needs any."""
    from ._simulation_opts import SimulationOptions, simulation_plan
    from ._targets import default_judge, selected_case_ids

    judge = options.judge
    sets = [
        (t.eval_set, set(selected_case_ids(t)), str(t.path), t.metrics_source)
        for t in targets
        if t.eval_set is not None
    ]
    return simulation_plan(
        options.simulation or SimulationOptions(),
        sets,
        judge_model=default_judge(judge.model, judge.base_url),
        cache_dir=judge.cache_dir(options.output_dir),
        judge_timeout=judge.timeout,
    )


class _Heading:
    """Prints the line that opens an eval set's run (``id (file): metrics from ...``), once."""

    def __init__(self, console: Console, target: Target) -> None:
        self._console: Console | None = console
        self._target = target

    def __call__(self) -> None:
        console, self._console = self._console, None
        if console is None:
            return
        from rich.text import Text

        target = self._target
        assert target.eval_set is not None
        console.print(
            Text.assemble(
                (target.eval_set.eval_set_id, "bold"),
                f" ({target.path}): metrics from {target.metrics_source}"
                + (f" (skipped: {', '.join(target.skipped)})" if target.skipped else ""),
            ),
            soft_wrap=True,
        )


def _progress(console: Console, total_label: str) -> tuple[Any, Any]:
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    bar = Progress(
        TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(), console=console
    )
    task = bar.add_task(total_label, total=None)

    def update(done: int, total: int) -> None:
        bar.update(task, completed=done, total=total)

    return bar, update
