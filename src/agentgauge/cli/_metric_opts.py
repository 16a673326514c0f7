"""``eval`` options choosing which metrics run (``--only-metrics``, ``--skip-metrics``, ``--no-judges``) and how
many judge calls run at once (``--judge-parallelism``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Annotated

import typer

from ._common import fail_input

if TYPE_CHECKING:  # pragma: no cover
    from ..service import MetricSelection

__all__ = [
    "JudgeParallelismOption",
    "MetricOptions",
    "NoJudgesOption",
    "OnlyMetricsOption",
    "SkipMetricsOption",
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
