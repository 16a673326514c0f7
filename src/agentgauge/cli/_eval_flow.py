"""What ``agentgauge eval`` does with its parsed options: check them, pick the runner (agents or recorded traces),
run, report, and leave with the exit code."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

import typer

from ._common import EXIT_FAILED, EXIT_OK, MAX_NUM_RUNS, fail_input, input_errors_exit_2
from ._options import DEFAULT_OUTPUT_DIR, EvalRunOptions, JudgeOptions, ReportOptions
from ._simulation_opts import SimulationOptions

if TYPE_CHECKING:  # pragma: no cover
    from ..run._evaluator import EvaluationResult
    from ._eval_baseline import Baseline
    from ._metric_opts import MetricOptions

__all__ = ["EvalArgs", "run_eval"]

_Runner = Callable[[list[str], EvalRunOptions], "list[EvaluationResult]"]


@dataclass(frozen=True)
class EvalArgs:
    """``eval``'s options as given on the command line (checked by :func:`run_eval`, in a fixed order)."""

    report: ReportOptions = field(default_factory=ReportOptions)
    judge: JudgeOptions = field(default_factory=JudgeOptions)
    simulation: SimulationOptions = field(default_factory=SimulationOptions)
    config: Path | None = None
    num_runs: int = 1
    parallelism: int = 4
    timeout: float | None = None
    output_dir: Path = DEFAULT_OUTPUT_DIR
    app_name: str | None = None
    store: str | None = None
    prices: Path | None = None
    # the engine
    executor: str = "local"
    ray_address: str | None = None
    rate_limits: list[str] = field(default_factory=list)
    # agent runs only
    resume: str | None = None
    cache_agent: bool = False
    cache_agent_dir: Path | None = None
    agent_headers: tuple[str, ...] = ()
    agent_config: Path | None = None
    agent_timeout: float | None = None
    agent_max_response_mb: float | None = None
    agent_follow_redirects: bool = False
    # recorded traces instead of an agent
    traces: Path | None = None
    eval_set: str | None = None
    by_session: bool = False
    # comparison with an earlier result
    baseline: str | None = None
    fail_on_regression: bool = False
    fail_on: str | None = None
    alpha: float = 0.05
    # which metrics run, and judge calls at once
    only_metrics: str | None = None
    skip_metrics: str | None = None
    no_judges: bool = False
    judge_parallelism: int | None = None
    dialect: str | None = None
    reducer: str | None = None
    case_status: str | None = None
    # run metadata
    labels: tuple[str, ...] = ()
    strict: bool = False


def run_eval(sets: list[str], args: EvalArgs) -> NoReturn:
    """Run ``eval`` over ``sets`` (``[AGENT] EVAL_SET[:cases]...``): exit 0 when every selected case passed, 1
    when one did not, 2 on bad input (nothing run or written), 130 when interrupted."""
    from .._util.redact import mask_standard_streams
    from ._console import deferred_console, progress_bar_console
    from ._eval_run import print_json, startup_gc_paused, stopped_by_ctrl_c
    from ._stdout import stdout_reserved

    mask_standard_streams()  # judge keys registered during the run never reach stdout/stderr
    metrics = _checked_metric_options(args)
    labels = _checked_labels(args.labels)
    # Resolved now: an agent calling os.chdir() must not move where results and reports are written.
    start, output_dir, report = Path.cwd(), args.output_dir.absolute(), args.report.absolute()
    # rich is imported when something is printed (see _console); user text may hold ":name:" (no emoji codes)
    console = deferred_console(stderr=report.json_out, soft_wrap=False, emoji=False)
    runner, agent_options = _runner(args, output_dir)
    with (
        stopped_by_ctrl_c(console),
        stdout_reserved(report.json_out) as stdout,
        input_errors_exit_2(),
        startup_gc_paused(),
    ):
        from .._util.fileio import check_output_targets
        from ._eval_report import report_outcomes
        from ._github import github_actions
        from ._targets import default_judge, open_store

        check_output_targets(report.junit, report.html, report.markdown)  # refused before anything runs
        result_store = open_store(args.store)  # unreachable or too new: refused before anything runs
        against = _baseline(args, output_dir, result_store)
        # The summary comes from each case's compact row; the case results stay in memory only for what reads
        # them all afterwards (a result file is read back otherwise). Not holding them saves the garbage
        # collector's walks over them during the run (~10 ms of a 200-case run).
        keep = report.detailed or bool(report.files()) or against is not None or github_actions()
        default_judge(args.judge.model, args.judge.base_url)  # --judge-base-url needs --judge-model
        options = EvalRunOptions(
            args.config,
            args.num_runs,
            args.parallelism,
            args.timeout,
            output_dir,
            args.app_name,
            args.judge,
            metrics,
            console,
            progress_console=None if report.json_out else progress_bar_console(),
            result_store=result_store,
            keep_results=keep,
            prices=args.prices,
            labels=labels,
            strict=args.strict,
            **agent_options,
        )
        outcomes = runner(sets, options)
        sources = [*sets, *([args.eval_set] if args.eval_set else [])]
        report_outcomes(
            outcomes, console, report, start=start, result_store=result_store, sources=sources, baseline=against
        )
        if report.json_out:  # stdout carries only this document; anything else printed went to stderr
            print_json(outcomes, stdout)
    raise typer.Exit(_exit_code(outcomes, against))


def _checked_metric_options(args: EvalArgs) -> MetricOptions:
    """Check the options that need nothing loaded (exit 2 with one ``error:`` line), in the order they were always
    checked; the metric selection comes out of it."""
    from ._metric_opts import metric_options

    if args.output_dir.exists() and not args.output_dir.is_dir():
        fail_input(f"--output-dir {args.output_dir}: not a directory")
    if not 1 <= args.num_runs <= MAX_NUM_RUNS:
        fail_input(f"--num-runs must be between 1 and {MAX_NUM_RUNS}, got {args.num_runs}")
    if args.parallelism < 1:
        fail_input(f"--parallelism must be at least 1, got {args.parallelism}")
    if args.timeout is not None and not args.timeout > 0:  # written so that nan is refused too
        fail_input(f"--timeout must be positive, got {args.timeout:g}")
    judge_timeout = args.judge.timeout
    if judge_timeout is not None and not 0 < judge_timeout < float("inf"):
        fail_input(f"--judge-timeout must be a positive number of seconds, got {judge_timeout:g}")
    from ._eval_baseline import check_gate_options

    with input_errors_exit_2():
        check_gate_options(args.baseline, args.fail_on, args.fail_on_regression, args.alpha)
    only, skip = args.only_metrics, args.skip_metrics
    return metric_options(
        only,
        skip,
        args.no_judges,
        args.judge_parallelism,
        args.parallelism,
        args.dialect,
        reducer=args.reducer,
        case_status=args.case_status,
    )


def _checked_labels(given: tuple[str, ...]) -> dict[str, str]:
    """``--label KEY=VALUE`` options as a dict; a bad one exits 2 with one message naming it."""
    from ..model import parse_labels

    try:
        return parse_labels(given)
    except ValueError as exc:
        fail_input(f"--label: {exc}")


def _runner(args: EvalArgs, output_dir: Path) -> tuple[_Runner, dict[str, Any]]:
    """The runner of this command (agents, or ``--traces``) and the options only agent runs take (engine,
    resume, agent cache, simulation); options that do not fit together exit 2."""
    from ._executor_opts import executor_choice

    engine = executor_choice(args.executor, args.ray_address, args.rate_limits)
    extra: dict[str, Any] = {}  # options of agent runs only: the trace runner does not take them
    if engine.kind != "local":
        extra["engine"] = engine
    if args.resume is not None:
        extra["resume"] = args.resume
    from ._remote_opts import REMOTE_OPTION_NAMES, RemoteOptions

    limits = (args.agent_timeout, args.agent_max_response_mb, args.agent_follow_redirects)
    remote = RemoteOptions(args.agent_headers, args.agent_config, *limits)
    if remote.given:
        extra["remote"] = remote
    if args.cache_agent or args.cache_agent_dir is not None:
        if engine.kind != "local":
            fail_input("--cache-agent is not available with --executor ray (each worker would keep its own cache)")
        extra["cache_agent"] = (args.cache_agent_dir or output_dir / ".agent_cache").absolute()
    if args.traces is not None or args.eval_set is not None or args.by_session:
        from ._eval_traces import trace_runner

        if "engine" in extra:
            fail_input("--executor ray is not available with --traces")
        if args.simulation.given:
            fail_input(
                "--user-simulator, --simulator-model, --expected-agent and --max-turns cannot be used with --traces"
            )
        if extra:
            fail_input(f"--resume, --cache-agent, {REMOTE_OPTION_NAMES} apply to agent runs, not to --traces")
        return trace_runner(args.traces, args.eval_set, args.by_session), {}
    from ._eval_agents import run_agents

    return run_agents, {**extra, "simulation": args.simulation}


def _baseline(args: EvalArgs, output_dir: Path, result_store: Any) -> Baseline | None:
    """The result to compare with (``--baseline``); a missing or invalid one is refused before anything runs."""
    if args.baseline is None:
        return None
    from ._eval_baseline import load_baseline

    return load_baseline(
        args.baseline,
        output_dir,
        result_store,
        app_name=args.app_name,
        fail_on=args.fail_on,
        fail_on_regression=args.fail_on_regression,
        alpha=args.alpha,
    )


def _exit_code(outcomes: list[EvaluationResult], against: Baseline | None) -> int:
    from ..model import EvalStatus
    from ._eval_run import EXIT_INTERRUPTED

    if any(o.interrupted for o in outcomes):
        return EXIT_INTERRUPTED
    if against is not None and against.gated:
        return EXIT_FAILED if against.failed else EXIT_OK
    # Every case of every set must have passed (compact rows: the case results may not be in memory).
    statuses = [
        status
        for o in outcomes
        for status in (o.rows.case_status.values() if o.rows is not None else (c.status for c in o.eval_cases))
    ]
    passed = bool(statuses) and all(status is EvalStatus.PASSED for status in statuses)
    return EXIT_OK if passed else EXIT_FAILED
