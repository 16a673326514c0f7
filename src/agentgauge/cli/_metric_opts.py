"""``eval`` options choosing which metrics run (``--only-metrics``, ``--skip-metrics``, ``--no-judges``) and how
many judge calls run at once (``--judge-parallelism``)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from ._common import fail_input

if TYPE_CHECKING:  # pragma: no cover
    from ..evaluators import Registry
    from ..model import EvalMetric
    from ..service import MetricSelection

__all__ = [
    "JudgeParallelismOption",
    "MetricOptions",
    "NoJudgesOption",
    "OnlyMetricsOption",
    "SkipMetricsOption",
    "checked_metrics",
    "make_registry",
    "metric_options",
]

OnlyMetricsOption = Annotated[
    str | None,
    typer.Option(
        "--only-metrics",
        metavar="NAME,...",
        help="Score with these metrics of the metrics file only (comma-separated names).",
    ),
]
SkipMetricsOption = Annotated[
    str | None,
    typer.Option("--skip-metrics", metavar="NAME,...", help="Do not score with these metrics (comma-separated names)."),
]
NoJudgesOption = Annotated[
    bool,
    typer.Option(
        "--no-judges",
        help="Skip every LLM-judge metric: the other metrics run without a judge model, key or endpoint.",
    ),
]
JudgeParallelismOption = Annotated[
    int | None,
    typer.Option(
        "--judge-parallelism",
        metavar="N",
        help="Judge calls in flight at once, per judge model (default: --parallelism).",
        show_default=False,
    ),
]


@dataclass(frozen=True)
class MetricOptions:
    """The metric selection of a run (``None``: every metric) and its judge parallelism."""

    selection: MetricSelection | None
    judge_parallelism: int


def metric_options(
    only: str | None, skip: str | None, no_judges: bool, judge_parallelism: int | None, parallelism: int
) -> MetricOptions:
    """The options as given on the command line, checked (exit 2 for an empty list or a parallelism below 1)."""
    from ..service import MetricSelection

    if judge_parallelism is not None and judge_parallelism < 1:
        fail_input(f"--judge-parallelism must be at least 1, got {judge_parallelism}")
    for option, value in (("--only-metrics", only), ("--skip-metrics", skip)):
        if value is not None and not any(name.strip() for name in value.split(",")):
            fail_input(f"{option} needs at least one metric name, e.g. {option} tool_trajectory_avg_score")
    selection = None
    if only is not None or skip is not None or no_judges:
        options = ("--only-metrics", "--skip-metrics", "--no-judges")
        selection = MetricSelection(only, skip or (), not no_judges, options=options)
    return MetricOptions(selection, judge_parallelism or parallelism)


def checked_metrics(
    selection: MetricSelection | None, metrics: Sequence[EvalMetric], registry: Registry, source: str
) -> list[str]:
    """Check the metrics file ``source`` before anything runs -- names of the selection, then the metrics that
    will run (criteria, judge configuration and keys) -- and return the names left out (exit 2 on a problem)."""
    skipped: list[str] = []
    if selection is not None:
        _, skipped = selection.select(metrics, registry, file=source)
    registry.validate_metrics(metrics, file=source, skip=skipped)
    registry.check_judges_ready(metrics, file=source, skip=skipped)  # e.g. no API key: exit 2
    return skipped


def make_registry(
    output_dir: Path,
    no_cache: bool,
    judge_timeout: float | None,
    default_judge: dict[str, str] | None,
    plugins: list[str] | None,
    judge_parallelism: int | None = None,
) -> Registry:
    """The evaluator registry of an ``eval`` run: judge cache under ``output_dir``, the judge time budget, the
    default judge for metrics that name none, the judge calls at once per judge (``None``: the run's
    parallelism) and the plug-ins loaded."""
    from ..evaluators import Registry
    from ..judges import JudgeSettings, RetryPolicy

    retry = RetryPolicy() if judge_timeout is None else RetryPolicy(total_budget=judge_timeout)
    settings = JudgeSettings(
        cache_dir=None if no_cache else output_dir / ".judge_cache",
        retry=retry,
        default_judge_model=default_judge,
        max_concurrency=judge_parallelism,
    )
    registry = Registry(judge_settings=settings)
    registry.load_plugins(plugins or ())
    return registry
