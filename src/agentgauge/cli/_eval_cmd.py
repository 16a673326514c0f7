"""``agentgauge eval``: run an agent over eval sets, score, save results, report, and set the exit code."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from . import _metric_opts as _m
from ._app import app
from ._common import (
    EXIT_FAILED,
    EXIT_OK,
    MAX_NUM_RUNS,
    check_result_location,
    fail_input,
    input_errors_exit_2,
    print_line,
)
from ._console import deferred_console, progress_bar_console
from ._eval_inputs import check_set_args, is_file
from ._eval_run import (
    EXIT_INTERRUPTED,
    evaluate_interruptibly,
    print_json,
    report_streamed,
    run_phase_ends,
    run_phase_starts,
    startup_gc_paused,
    stopped_by_ctrl_c,
)
from ._executor_opts import ExecutorChoice, executor_choice, registry_factory
from ._exit import leave_to_the_os
from ._metric_opts import MetricOptions, checked_metrics, make_registry, metric_options
from ._simulation_opts import SimulationOptions
from ._stdout import stdout_reserved

if TYPE_CHECKING:  # pragma: no cover
    from rich.console import Console

    from ..model import EvalMetric, EvalSet
    from ..run._evaluator import EvaluationResult
    from ..service import StreamedEvalSet

__all__ = ["eval_command"]


@dataclass
class _Target:
    """One EVAL_SET argument: the file, the selected case ids, and what was loaded for it."""

    path: Path
    case_ids: list[str]
    eval_set: EvalSet | None = None
    metrics: list[EvalMetric] = field(default_factory=list)
    metrics_source: str = ""
    stream: StreamedEvalSet | None = None  # a large file, read case by case during the run
    skipped: list[str] = field(default_factory=list)  # metrics left out by --only/--skip-metrics, --no-judges


def _split_case_filter(arg: str) -> _Target:
    path = Path(arg)
    if path.exists():
        return _Target(path, [])
    # A drive letter ("C:\\sets\\x.json") is part of the path, not a case filter.
    start = 2 if len(arg) > 2 and arg[1] == ":" and arg[0].isalpha() else 0
    cut = arg.find(":", start)
    if cut < 0:
        return _Target(path, [])
    cases = arg[cut + 1 :].split(":")[0]
    return _Target(Path(arg[:cut]), [c.strip() for c in cases.split(",") if c.strip()])


def _find_metrics(target: _Target, config: Path | None) -> None:
    from ..formats import default_adk_metrics, load_metrics

    assert target.eval_set is not None
    if config is not None:
        target.metrics, target.metrics_source = load_metrics(config), str(config)
        return
    folder = target.path.parent
    for candidate in (folder / f"{target.eval_set.eval_set_id}.metrics.json", folder / "test_config.json"):
        if is_file(candidate):
            target.metrics, target.metrics_source = load_metrics(candidate), str(candidate)
            return
    target.metrics, target.metrics_source = default_adk_metrics(), "ADK default criteria"


def _select(target: _Target) -> list[str]:
    from ..errors import InputError
    from ..service import select_cases

    assert target.eval_set is not None
    try:
        return [case.eval_id for case in select_cases(target.eval_set, target.case_ids)]
    except InputError as exc:
        raise InputError(exc.message, file=str(target.path)) from None


def _app_name(explicit: str | None, targets: list[_Target]) -> str:
    """``--app-name``, else the first ``sessionInput.appName`` of the selected sets, else the first set's id."""
    from ..errors import InputError
    from ..storage import check_segment

    # (name, file, JSON path) of each candidate: a name that is refused is reported where it was written
    candidates: list[tuple[str, str | None, str]] = [(explicit, None, "--app-name")] if explicit else []
    for target in targets:
        assert target.eval_set is not None
        candidates += [
            (case.session_input.app_name, str(target.path), f"evalCases[{index}].sessionInput.appName")
            for index, case in enumerate(target.eval_set.eval_cases)
            if case.session_input is not None
        ]
        candidates.append((target.eval_set.eval_set_id, str(target.path), "evalSetId"))
    found = next((candidate for candidate in candidates if candidate[0]), None)
    if found is None:
        raise InputError(
            "must not be empty: it names the app when neither --app-name nor a case's sessionInput.appName does",
            file=str(targets[0].path),
            location="evalSetId",
        )
    name, file, location = found
    try:
        return check_segment(name, "app name")
    except InputError as exc:
        raise InputError(exc.message, file=file, location=location) from None


def _shown(path: Path | None, start: Path) -> str:
    """``path`` as printed: relative to the directory the command started in when it lies below it."""
    if path is None:
        return "(not saved to a file)"
    try:
        return str(path.relative_to(start))
    except ValueError:
        return str(path)


class _Heading:
    """Prints the line that opens an eval set's run (``id (file): metrics from ...``), once."""

    def __init__(self, console: Console, target: _Target) -> None:
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


def _report_path(path: Path, eval_set_id: str, several: bool) -> Path:
    return path.with_name(f"{path.stem}.{eval_set_id}{path.suffix}") if several else path


def _progress(console: Console, total_label: str) -> tuple[Any, Any]:
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    bar = Progress(
        TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(), console=console
    )
    task = bar.add_task(total_label, total=None)

    def update(done: int, total: int) -> None:
        bar.update(task, completed=done, total=total)

    return bar, update


@app.command("eval")
def eval_command(
    targets: Annotated[
        list[str] | None,
        typer.Argument(
            metavar="[AGENT] EVAL_SET[:case1,case2]...",
            help="AGENT is path/to/agent.py, an ADK agent directory or "
            "package.module:attribute (optional when every selected case is in trace mode).",
            show_default=False,
        ),
    ] = None,
    config: Annotated[
        Path | None,
        typer.Option(
            "--config",
            "--metrics",
            "--config_file_path",
            readable=False,
            help="Metrics file (.metrics.json array or ADK test_config.json). Default: <evalSetId>.metrics.json "
            "beside the eval set, else test_config.json beside it, else ADK's default criteria.",
        ),
    ] = None,
    num_runs: Annotated[int, typer.Option("--num-runs", help="Run every case this many times (1 to 1000).")] = 1,
    parallelism: Annotated[int, typer.Option("--parallelism", help="Cases (and runs) in flight at once.")] = 4,
    timeout: Annotated[float | None, typer.Option("--timeout", help="Per-case inference timeout in seconds.")] = None,
    output_dir: Annotated[Path, typer.Option("--output-dir", readable=False, help="Where results are saved.")] = Path(
        ".agentgauge/results"
    ),
    app_name: Annotated[
        str | None, typer.Option("--app-name", help="App name (default: the cases' sessionInput.appName).")
    ] = None,
    print_detailed_results: Annotated[
        bool,
        typer.Option(
            "--print-detailed-results",
            "--print_detailed_results",
            help="Per case and invocation: metric, score, threshold, status, Expected / Actual for mismatches.",
        ),
    ] = False,
    json_out: Annotated[
        bool, typer.Option("--json", help="Print the saved result as JSON on stdout; human output goes to stderr.")
    ] = False,
    junit: Annotated[
        Path | None, typer.Option("--junit", readable=False, help="Also write a JUnit XML report.")
    ] = None,
    html: Annotated[
        Path | None, typer.Option("--html", readable=False, help="Also write a self-contained HTML report.")
    ] = None,
    markdown: Annotated[
        Path | None, typer.Option("--markdown", readable=False, help="Also write a Markdown summary.")
    ] = None,
    no_cache: Annotated[bool, typer.Option("--no-cache", help="Do not read or write the judge answer cache.")] = False,
    traces: Annotated[
        Path | None, typer.Option("--traces", help="Score recorded traces (file or directory); see docs/traces.md.")
    ] = None,
    eval_set: Annotated[
        str | None, typer.Option("--eval-set", help="With --traces: the eval set to compare with.")
    ] = None,
    by_session: Annotated[
        bool, typer.Option("--by-session", help="With --traces: traces sharing a session id form one conversation.")
    ] = False,
    judge_timeout: Annotated[
        float | None,
        typer.Option(
            "--judge-timeout",
            help="Seconds one judge call may take, retries included (default 45; a metric's judge timeout wins).",
        ),
    ] = None,
    judge_model: Annotated[
        str | None,
        typer.Option("--judge-model", help="Judge model for trpc judge metrics without llmJudge.judgeModel."),
    ] = None,
    judge_base_url: Annotated[
        str | None, typer.Option("--judge-base-url", help="OpenAI-compatible base URL of --judge-model.")
    ] = None,
    plugin: Annotated[
        list[str] | None, typer.Option("--plugin", help="Import this module's register(registry) first (repeatable).")
    ] = None,
    executor: Annotated[
        str, typer.Option("--executor", help="Where cases run: local (this process) or ray (a Ray cluster).")
    ] = "local",
    ray_address: Annotated[
        str | None, typer.Option("--ray-address", help="With --executor ray: auto, ray://HOST:PORT or HOST:PORT.")
    ] = None,
    rate_limit: Annotated[
        list[str] | None,
        typer.Option(
            "--rate-limit", help="With --executor ray: ENDPOINT=RPM or ENDPOINT=RPM/CONCURRENT, e.g. judge=600/8."
        ),
    ] = None,
    prices: Annotated[
        Path | None,
        typer.Option("--prices", help="JSON price table (USD per 1M tokens) for the cost of recorded token usage."),
    ] = None,
    resume: Annotated[
        str | None,
        typer.Option(
            "--resume",
            metavar="RESULT_ID_OR_FILE",
            help="Continue an interrupted run (Ctrl-C, crash, kill): its result file, .progress.jsonl log or id. "
            "Give the same agent, eval set, metrics and --num-runs; scored case runs are kept.",
        ),
    ] = None,
    cache_agent: Annotated[
        bool,
        typer.Option(
            "--cache-agent",
            help="Reuse the agent's earlier answers (same agent source, request and run) and store new ones, "
            "e.g. to score a run again with other metrics. Default directory: <output-dir>/.agent_cache.",
        ),
    ] = False,
    cache_agent_dir: Annotated[
        Path | None,
        typer.Option("--cache-agent-dir", readable=False, help="Directory of --cache-agent (implies it)."),
    ] = None,
    store: Annotated[
        str | None,
        typer.Option(
            "--store",
            envvar="AGENTGAUGE_STORE",
            show_envvar=True,
            help="Save the result in this SQL store instead of --output-dir (sqlite:///file.db, "
            "postgresql+psycopg://user@host/db, or a .db path); see docs/store.md.",
        ),
    ] = None,
    baseline: Annotated[
        str | None,
        typer.Option(
            "--baseline",
            metavar="RESULT_ID_OR_FILE",
            help="Compare the new result with this one (a result file, or an id under --output-dir or in --store): "
            "fixed / broken cases in the summary and in --html / --markdown; see docs/compare.md.",
        ),
    ] = None,
    fail_on_regression: Annotated[
        bool,
        typer.Option(
            "--fail-on-regression",
            help="With --baseline: the exit code is 1 when a case that passed in the baseline does not pass now, "
            "else 0 (cases failing in both runs do not fail the command).",
        ),
    ] = False,
    user_simulator: Annotated[
        str | None,
        typer.Option("--user-simulator", help="Simulated user for conversationScenario cases: file.py[:attribute]."),
    ] = None,
    simulator_model: Annotated[
        str | None,
        typer.Option("--simulator-model", help="Model playing the user and generating llmGenerator tool results."),
    ] = None,
    simulator_base_url: Annotated[
        str | None, typer.Option("--simulator-base-url", help="OpenAI-compatible base URL of --simulator-model.")
    ] = None,
    expected_agent: Annotated[
        str | None,
        typer.Option("--expected-agent", help="Agent producing the expected invocations (expectedRunnerEnabled)."),
    ] = None,
    max_turns: Annotated[
        int | None, typer.Option("--max-turns", help="User-turn limit of every scenario (0: unlimited).")
    ] = None,
    only_metrics: _m.OnlyMetricsOption = None,
    skip_metrics: _m.SkipMetricsOption = None,
    no_judges: _m.NoJudgesOption = False,
    judge_parallelism: _m.JudgeParallelismOption = None,
) -> None:
    """Evaluate an agent on one or more eval sets and save the results.

    Exit code 0 when every selected case passed, 1 when a case failed, errored or was not evaluated, 2 on bad usage or
    invalid input (nothing is run or written).

    Examples:

      agentgauge eval examples/calculator/agent.py examples/calculator/calculator.evalset.json

      agentgauge eval my_agent/ evals/smoke.evalset.json:greeting,refund --num-runs 3 --junit report.xml

      agentgauge eval traces.evalset.json --metrics judge.metrics.json --json > result.json
    """
    from .._util.redact import mask_standard_streams

    mask_standard_streams()  # judge keys registered during the run never reach stdout/stderr
    if output_dir.exists() and not output_dir.is_dir():
        fail_input(f"--output-dir {output_dir}: not a directory")
    if not 1 <= num_runs <= MAX_NUM_RUNS:
        fail_input(f"--num-runs must be between 1 and {MAX_NUM_RUNS}, got {num_runs}")
    if parallelism < 1:
        fail_input(f"--parallelism must be at least 1, got {parallelism}")
    if timeout is not None and not timeout > 0:  # written so that nan is refused too
        fail_input(f"--timeout must be positive, got {timeout:g}")
    if judge_timeout is not None and not 0 < judge_timeout < float("inf"):
        fail_input(f"--judge-timeout must be a positive number of seconds, got {judge_timeout:g}")
    if fail_on_regression and baseline is None:
        fail_input("--fail-on-regression needs --baseline RESULT_ID_OR_FILE")
    selected = metric_options(only_metrics, skip_metrics, no_judges, judge_parallelism, parallelism)
    # Resolved now: an agent calling os.chdir() must not move where results and reports are written.
    start = Path.cwd()
    output_dir = output_dir.absolute()
    junit, html, markdown = (p.absolute() if p is not None else None for p in (junit, html, markdown))
    # rich is imported when something is printed (see _console); user text may hold ":name:" (no emoji codes)
    console = deferred_console(stderr=json_out, soft_wrap=False, emoji=False)
    runner = _run
    engine = executor_choice(executor, ray_address, rate_limit or [])
    simulation = SimulationOptions(user_simulator, simulator_model, simulator_base_url, expected_agent, max_turns)
    extra: dict[str, Any] = {}  # options of agent runs only: the trace runner does not take them
    if engine.kind != "local":
        extra["engine"] = engine
    if resume is not None:
        extra["resume"] = resume
    if cache_agent or cache_agent_dir is not None:
        if engine.kind != "local":
            fail_input("--cache-agent is not available with --executor ray (each worker would keep its own cache)")
        extra["cache_agent"] = (cache_agent_dir or output_dir / ".agent_cache").absolute()
    if traces is not None or eval_set is not None or by_session:
        from ._traces_cmds import trace_runner

        if "engine" in extra:
            fail_input("--executor ray is not available with --traces")
        if simulation.given:
            fail_input(
                "--user-simulator, --simulator-model, --expected-agent and --max-turns cannot be used with --traces"
            )
        if extra:
            fail_input("--resume and --cache-agent apply to agent runs, not to --traces")
        runner = trace_runner(traces, eval_set, by_session)
    else:
        extra["simulation"] = simulation
    with stopped_by_ctrl_c(console), stdout_reserved(json_out) as stdout, input_errors_exit_2(), startup_gc_paused():
        from .._util.fileio import check_output_targets

        check_output_targets(junit, html, markdown)  # refused before anything runs (FIFO, device, directory, ...)
        result_store = _open_store(store)  # unreachable or too new: refused before anything runs
        against = None
        if baseline is not None:  # a missing or invalid baseline is refused before anything runs
            from ._eval_baseline import load_baseline

            against = load_baseline(baseline, output_dir, result_store, fail_on_regression=fail_on_regression)
        # The summary comes from each case's compact row; the case results stay in memory only for what reads
        # them all afterwards (a result file is read back otherwise). Not holding them saves the garbage
        # collector's walks over them during the run (~10 ms of a 200-case run).
        from ._github import github_actions

        keep_results = print_detailed_results or any((junit, html, markdown)) or against is not None or github_actions()
        outcomes = runner(
            targets or [],
            keep_results=keep_results,
            config=config,
            num_runs=num_runs,
            parallelism=parallelism,
            timeout=timeout,
            output_dir=output_dir,
            app_name=app_name,
            no_cache=no_cache,
            judge_timeout=judge_timeout,
            default_judge=_default_judge(judge_model, judge_base_url),
            plugins=plugin or [],
            prices=prices,
            metric_options=selected,
            console=console,
            progress_console=None if json_out else progress_bar_console(),
            result_store=result_store,
            **extra,
        )
        _report(
            outcomes,
            console,
            detailed=print_detailed_results,
            junit=junit,
            html=html,
            markdown=markdown,
            start=start,
            result_store=result_store,
            sources=[*(targets or []), *([eval_set] if eval_set else [])],
            baseline=against,
        )
        if json_out:  # stdout carries only this document; anything else printed during the run went to stderr
            print_json(outcomes, stdout)
    from ..model import EvalStatus

    if any(o.interrupted for o in outcomes):
        raise typer.Exit(EXIT_INTERRUPTED)
    if against is not None and against.fail_on_regression:
        raise typer.Exit(EXIT_FAILED if against.regressed else EXIT_OK)
    # Every case of every set must have passed (compact rows: the case results may not be in memory).
    statuses = [
        status
        for o in outcomes
        for status in (o.rows.case_status.values() if o.rows is not None else (c.overall_status for c in o.eval_cases))
    ]
    passed = bool(statuses) and all(status is EvalStatus.PASSED for status in statuses)
    raise typer.Exit(EXIT_OK if passed else EXIT_FAILED)


def _open_store(option: str | None) -> Any:
    """The result manager of ``--store`` / ``$AGENTGAUGE_STORE`` (``None``: results go to files)."""
    from ..sqlstore import resolve_store_url

    url = resolve_store_url(option)
    if url is None:
        return None
    from ..sqlstore._cli import open_result_store

    return open_result_store(url)


def _default_judge(model: str | None, base_url: str | None) -> dict[str, str] | None:
    """The ``judgeModel`` block given by ``--judge-model`` / ``--judge-base-url`` (a URL needs a model)."""
    if base_url and not model:
        fail_input("--judge-base-url needs --judge-model")
    return {"modelName": model, **({"baseURL": base_url} if base_url else {})} if model else None


def _run(
    args: list[str],
    *,
    config: Path | None,
    num_runs: int,
    parallelism: int,
    timeout: float | None,
    output_dir: Path,
    app_name: str | None,
    no_cache: bool,
    judge_timeout: float | None,
    console: Console,
    progress_console: Console | None,
    default_judge: dict[str, str] | None = None,
    plugins: list[str] | None = None,
    engine: ExecutorChoice | None = None,
    prices: Path | None = None,
    simulation: SimulationOptions | None = None,
    resume: str | None = None,
    cache_agent: Path | None = None,
    result_store: Any = None,
    keep_results: bool = True,
    metric_options: MetricOptions | None = None,
) -> list[EvaluationResult]:
    """Validate every input, then evaluate each eval set in turn (results go to ``result_store`` when given;
    ``keep_results=False``: the outcomes read case results back from where they were saved, when asked)."""
    import asyncio

    from ..agents import load_agent, looks_like_agent_spec
    from ..errors import InputError
    from ..run._evaluator import AgentEvaluator
    from ..service import LoadedEvalSet, StreamedEvalSet, open_eval_set
    from ..storage import InMemoryMetricManager, LocalEvalResultManager

    agent_spec = args[0] if args and looks_like_agent_spec(args[0]) else None
    set_args = args[1:] if agent_spec is not None else args
    check_set_args(agent_spec, set_args)
    from ..model._prices import prices_for_run

    chosen = metric_options or MetricOptions(None, parallelism)
    registry = make_registry(output_dir, no_cache, judge_timeout, default_judge, plugins, chosen.judge_parallelism)
    price_table = prices_for_run(prices) if agent_spec is not None else None
    targets = [_split_case_filter(arg) for arg in set_args]
    for target in targets:
        loaded = open_eval_set(target.path)
        if isinstance(loaded, StreamedEvalSet):
            target.stream, target.eval_set = loaded, loaded.header
        else:
            target.eval_set = loaded
        selected = set(_select(target))
        _find_metrics(target, config)
        target.skipped = checked_metrics(chosen.selection, target.metrics, registry, target.metrics_source)
        if agent_spec is None:
            needing = [c.eval_id for c in target.eval_set.eval_cases if c.eval_id in selected and not c.is_trace]
            if needing:
                raise InputError(
                    f"an agent is required: case(s) {', '.join(needing)} are not in trace mode; "
                    "usage: agentgauge eval AGENT EVAL_SET...",
                    file=str(target.path),
                )
    app = _app_name(app_name, targets)
    for target in targets:  # a result that cannot be saved must fail now, not after the run
        assert target.eval_set is not None
        if result_store is not None:
            from ..sqlstore._cli import check_result_id

            check_result_id(app, target.eval_set.eval_set_id, str(target.path))
        else:
            check_result_location(output_dir, app, target.eval_set.eval_set_id, str(target.path))
    resumed = None
    if resume is not None:
        from ._eval_resume import resume_state

        ids = [t.eval_set.eval_set_id for t in targets if t.eval_set is not None]
        resumed = resume_state(resume, output_dir, app, ids, console, store=result_store)
    agent = load_agent(agent_spec) if agent_spec is not None else None
    plan = _simulation(simulation, targets, default_judge, output_dir, no_cache, judge_timeout)
    settings = plan.build() if plan is not None else None
    agent_cache = None
    if cache_agent is not None and agent_spec is not None:
        from ._eval_resume import make_agent_cache

        agent_cache = make_agent_cache(cache_agent, agent_spec)
    remote = None
    if engine is not None:
        remote = engine.build(
            agent_spec,
            registry_factory(
                output_dir, no_cache, judge_timeout, default_judge, plugins or [], chosen.judge_parallelism
            ),
            simulation=plan.for_workers().build if plan is not None else None,  # workers load the files themselves
        )
    run_phase_starts()
    results = result_store if result_store is not None else LocalEvalResultManager(base_dir=output_dir)
    outcomes = []
    for target in targets:
        assert target.eval_set is not None
        sets: Any = target.stream if target.stream is not None else LoadedEvalSet(target.eval_set)
        metrics = InMemoryMetricManager()
        metrics.put_all(app, target.eval_set.eval_set_id, target.metrics)
        heading = _Heading(console, target)
        bar, update = (None, None)
        if progress_console is not None and progress_console.is_terminal:
            heading()  # above the bar, which shows from now on
            bar, update = _progress(progress_console, target.eval_set.eval_set_id)
        evaluator = AgentEvaluator(
            app,
            agent,
            eval_set_manager=sets,
            metric_manager=metrics,
            result_manager=results,
            registry=registry,
            num_runs=num_runs,
            parallelism=parallelism,
            timeout=timeout,
            case_ids=target.case_ids or None,
            progress=update,
            on_start=heading,  # without a bar: once the first cases are under way (the import of rich overlaps them)
            executor=remote,
            prices=price_table,
            simulation=settings,
            agent_cache=agent_cache,
            max_results_in_memory=None if keep_results else 0,
            metric_selection=chosen.selection,
        )
        if bar is not None:
            with bar:
                outcome = asyncio.run(evaluate_interruptibly(evaluator, target.eval_set.eval_set_id, resumed))
        else:
            outcome = asyncio.run(evaluate_interruptibly(evaluator, target.eval_set.eval_set_id, resumed))
        run_phase_ends()
        outcomes.append(outcome)
        if outcome.interrupted:
            break  # Ctrl-C stops the whole command, not just this eval set
    if agent_cache is not None:
        from ._eval_resume import report_agent_cache

        report_agent_cache(agent_cache, console)
    leave_to_the_os(targets)  # the loaded eval sets are freed at exit, if ever (~3 ms)
    return outcomes


def _simulation(
    options: SimulationOptions | None,
    targets: list[_Target],
    default_judge: dict[str, str] | None,
    output_dir: Path,
    no_cache: bool,
    judge_timeout: float | None,
) -> Any:
    """The plan of the run's simulation settings (user simulator, expected agent, tool-mock generator), see
    _simulation_opts; ``None`` when no case needs any."""
    from ._simulation_opts import simulation_plan

    sets = [(t.eval_set, set(_select(t)), str(t.path), t.metrics_source) for t in targets if t.eval_set is not None]
    return simulation_plan(
        options or SimulationOptions(),
        sets,
        judge_model=default_judge,
        cache_dir=None if no_cache else output_dir / ".judge_cache",
        judge_timeout=judge_timeout,
    )


def _report(
    outcomes: list[EvaluationResult],
    console: Console,
    *,
    detailed: bool,
    junit: Path | None,
    html: Path | None,
    markdown: Path | None,
    start: Path,
    result_store: Any = None,
    sources: list[str] = [],  # noqa: B006 - never modified
    baseline: Any = None,
) -> None:
    from ..reporting import print_summary, write_report
    from ._github import full_report, github_actions, publish_outcome, source_files

    several = len(outcomes) > 1
    for outcome in outcomes:
        reports = [
            (_report_path(path, outcome.eval_set_id, several), fmt)
            for path, fmt in ((junit, "junit"), (html, "html"), (markdown, "markdown"))
            if path is not None
        ]
        if outcome.results_in_memory:
            result = outcome.eval_set_result
            print_summary(result, console=console, detailed=detailed, duration=outcome.execution_time)
            for target, fmt in reports:
                write_report(result, target, fmt)  # type: ignore[arg-type]
        else:
            cases = None
            if result_store is not None:  # read back from the store, one page of case results at a time
                cases = result_store.iter_case_results(outcome.app_name, _result_id(outcome))
            report_streamed(outcome, console, detailed=detailed, reports=reports, cases=cases)
        if baseline is not None:  # the comparison block follows the summary; its section goes into the reports
            baseline.add(outcome, reports, console, several=several)
        for target, fmt in reports:
            print_line(console, f"{fmt} report written to {_shown(target, start)}")
        saved = _shown(outcome.result_path, start)
        if result_store is not None:
            saved = f"store {result_store.store.shown_url} as {_result_id(outcome)}"
        if outcome.interrupted:
            print_line(console, f"Interrupted: the cases finished before the stop were saved to {saved}")
        else:
            print_line(console, f"Results saved to {saved}")
        if github_actions():  # job summary and annotations; the exit code stays the same
            full = _shown(full_report(reports), start) if reports else saved
            cases = None
            if result_store is not None and not outcome.results_in_memory:
                cases = result_store.iter_case_results(outcome.app_name, _result_id(outcome))
            publish_outcome(outcome, console, sources=source_files(sources), full_report=full, cases=cases)


def _result_id(outcome: EvaluationResult) -> str:
    if outcome.result_header is not None:
        return outcome.result_header.eval_set_result_id
    return outcome.eval_set_result.eval_set_result_id
