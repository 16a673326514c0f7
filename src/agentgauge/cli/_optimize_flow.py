"""What ``agentgauge optimize`` does: build the request (from ADK's config files or from the options), run it,
print the summary (and ``adk optimize``'s lines), set the exit code."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import typer

from ._common import EXIT_FAILED, EXIT_OK, input_errors_exit_2

if TYPE_CHECKING:  # pragma: no cover
    from ..model import CaseStatusRule, EvalMetric
    from ..optimize import AuditReport, OptimizerConfig, OptimizeRequest, SplitSpec

__all__ = ["OptimizeArgs", "build_request", "run_optimize"]

_LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL")


@dataclass(frozen=True)
class OptimizeArgs:
    """The options of one ``optimize`` command, as given."""

    agent: str
    sampler_config: Path | None = None
    optimizer_config: Path | None = None
    detailed: bool = False
    log_level: str = "INFO"
    train: str | None = None
    validation: str | None = None
    metrics: Path | None = None
    optimizer: str = "gepa"
    budget: tuple[str, ...] = ()
    surfaces: tuple[str, ...] = ()
    reflection_model: str | None = None
    reflection_base_url: str | None = None
    seed: int = 0
    rules: Path | None = None
    alpha: float | None = None
    num_runs: int = 1
    case_status: str | None = None
    out: Path | None = None
    parallelism: int = 4
    timeout: float | None = None
    prices: Path | None = None
    output_dir: Path = Path(".agentgauge/results")
    app_name: str | None = None
    judge_model: str | None = None
    judge_base_url: str | None = None
    judge_timeout: float | None = None
    no_cache: bool = False
    plugins: tuple[str, ...] = ()
    labels: tuple[str, ...] = ()
    json_out: bool = False
    bootstrap_resamples: int = 10_000


def _logging(level: str) -> None:
    import logging

    from ..errors import InputError

    if level.upper() not in _LEVELS:
        raise InputError(f"--log_level: choose one of {', '.join(_LEVELS)}, got {level!r}")
    handler = logging.StreamHandler()
    handler.setFormatter(logging.Formatter("%(levelname)s %(name)s: %(message)s"))
    for name in ("agentgauge", "gepa"):
        logger = logging.getLogger(name)
        logger.setLevel(level.upper())
        logger.addHandler(handler)


@dataclass(frozen=True)
class _Sets:
    """The splits, their metrics and the app, from the options or from ADK's sampler config."""

    train: SplitSpec
    validation: SplitSpec | None
    metrics: Path | tuple[EvalMetric, ...] | None
    metrics_source: str
    app_name: str | None


def _sets_from_sampler(args: OptimizeArgs) -> _Sets:
    """As ``adk optimize`` reads its sampler config: the agent is the ADK agent folder named after ``app_name``,
    which holds the eval sets (``<folder>/<eval set id>.evalset.json``)."""
    from ..errors import InputError
    from ..optimize import SplitSpec, load_sampler_config

    assert args.sampler_config is not None
    source = str(args.sampler_config)
    if args.train or args.validation or args.metrics:
        raise InputError(
            "--sampler_config_file_path gives the eval sets and metrics: drop --train, --validation, --metrics"
        )
    config = load_sampler_config(args.sampler_config)
    folder = Path(args.agent)
    if not folder.is_dir():
        raise InputError("with --sampler_config_file_path, AGENT is the ADK agent folder", file=args.agent)
    if folder.resolve().name != config.app_name:
        raise InputError(
            f"the agent folder's name ({folder.resolve().name}) is not the app_name {config.app_name!r}", file=source
        )
    train = SplitSpec(folder / f"{config.train_eval_set}.evalset.json", tuple(config.train_eval_case_ids or ()))
    chosen = config.validation_eval_case_ids
    if chosen == []:
        raise InputError(
            "must not be empty: the gate needs validation cases", file=source, location="validation_eval_case_ids"
        )
    validation = None
    if config.validation_eval_set:
        validation = SplitSpec(folder / f"{config.validation_eval_set}.evalset.json", tuple(chosen or ()))
    elif chosen is not None:
        validation = SplitSpec(train.path, tuple(chosen))
    metrics = tuple(config.metrics(source))
    return _Sets(train, validation, metrics, f"{source} (eval_config)", args.app_name or config.app_name)


def _sets(args: OptimizeArgs) -> _Sets:
    from ..errors import InputError
    from ..optimize import parse_split

    if args.sampler_config is not None:
        return _sets_from_sampler(args)
    if not args.train:
        raise InputError("give the train split with --train SET[:cases] (or ADK's --sampler_config_file_path)")
    validation = parse_split(args.validation) if args.validation else None
    return _Sets(parse_split(args.train), validation, args.metrics, str(args.metrics or ""), args.app_name)


def _optimizer_config(args: OptimizeArgs) -> OptimizerConfig:
    from ..optimize import OptimizerConfig, load_optimizer_config

    if args.optimizer_config is None:
        return OptimizerConfig()
    config = load_optimizer_config(args.optimizer_config)
    if config.unknown_keys:
        typer.echo(
            f"note: {args.optimizer_config}: keys ADK does not know, ignored: {', '.join(config.unknown_keys)}",
            err=True,
        )
    return config


def _case_status(name: str | None) -> CaseStatusRule | None:
    from ..errors import InputError
    from ..model import parse_case_status_rule

    try:
        return parse_case_status_rule(name) if name is not None else None
    except ValueError as exc:
        raise InputError(f"--case-status: {exc}") from None


def build_request(args: OptimizeArgs) -> OptimizeRequest:
    """The request the options (and ADK's config files) describe; :class:`InputError` on bad input."""
    from ..compare import GateRules, load_gate_rules
    from ..optimize import Budget, OptimizeRequest, ReflectionSettings, SearchSettings, generation_settings

    sets = _sets(args)
    config = _optimizer_config(args)
    rules = load_gate_rules(args.rules) if args.rules is not None else GateRules()
    metric = None if rules.metric == "pass_rate" else rules.metric
    search = SearchSettings(
        seed=args.seed,
        max_metric_calls=config.max_metric_calls,
        minibatch=config.reflection_minibatch_size or 3,
        iterations=config.num_iterations if config.num_iterations is not None else 10,
        batch_size=config.batch_size or 5,
        metric=metric,
    )
    reflection = ReflectionSettings(
        model=args.reflection_model or config.optimizer_model,
        base_url=args.reflection_base_url,
        generation=generation_settings(config.model_configuration),
        timeout=args.judge_timeout,
    )
    out = args.out if args.out is not None else (Path(config.run_dir) if config.run_dir else None)
    return OptimizeRequest(
        agent=args.agent,
        train=sets.train,
        validation=sets.validation,
        metrics=sets.metrics,
        metrics_source=sets.metrics_source,
        surfaces=args.surfaces,
        optimizer=args.optimizer,
        search=search,
        budget=Budget.parse(args.budget),
        reflection=reflection,
        rules=rules,
        alpha=args.alpha,
        num_runs=args.num_runs,
        case_status=_case_status(args.case_status),
        parallelism=args.parallelism,
        timeout=args.timeout,
        app_name=sets.app_name,
        judge_model=args.judge_model,
        judge_base_url=args.judge_base_url,
        judge_timeout=args.judge_timeout,
        no_cache=args.no_cache,
        plugins=args.plugins,
        prices=args.prices,
        labels=args.labels,
        output_dir=args.output_dir,
        out=out,
    )


def run_optimize(args: OptimizeArgs) -> None:
    """Run the command and exit: 0 accepted, 1 rejected or no candidate, 2 bad input."""
    import asyncio

    from .._util.redact import mask_standard_streams
    from ..optimize import prepare, run_optimization
    from ..stats import BootstrapSettings, use_bootstrap

    mask_standard_streams()

    def note(line: str) -> None:
        typer.echo(line, err=True)

    with input_errors_exit_2():
        _logging(args.log_level)
        prepared = prepare(build_request(args), on_note=note)
        note(f"optimising {args.agent} in {prepared.out.path} (run the same command again to continue it)")
        with use_bootstrap(BootstrapSettings(args.bootstrap_resamples, args.seed)):
            report = asyncio.run(run_optimization(prepared, on_note=note))
    _print(report, args, prepared.out.path)
    raise typer.Exit(EXIT_OK if report.accepted else EXIT_FAILED)


def _print(report: AuditReport, args: OptimizeArgs, out: Path) -> None:
    import json

    from ..optimize import summary_lines

    stream = args.json_out  # with --json, human output goes to stderr
    if args.sampler_config is not None:
        _print_adk_lines(report, stream)
    for line in summary_lines(report):
        typer.echo(line, err=stream)
    typer.echo(f"audit report: {out / 'audit.md'} (also audit.json, audit.html)", err=stream)
    if report.patch is not None:
        typer.echo(f"patch: {out / 'patch.json'}", err=stream)
    if args.detailed:
        typer.echo("Detailed optimization metrics:", err=stream)
        typer.echo(json.dumps(report.search_details, indent=2, default=str), err=stream)
    if args.json_out:
        typer.echo(report.model_dump_json(indent=2))


def _print_adk_lines(report: AuditReport, err: bool) -> None:
    """``adk optimize``'s own lines: the optimised root agent instructions between rules."""
    root = next((s for s in report.surfaces if s.kind == "instruction"), None)
    if root is None:
        return
    texts = report.patch.texts if report.patch is not None else {}
    typer.echo("=" * 80, err=err)
    typer.echo("Optimized root agent instructions:", err=err)
    typer.echo("-" * 80, err=err)
    typer.echo(texts.get(root.surface_id, root.text), err=err)
    typer.echo("=" * 80, err=err)
