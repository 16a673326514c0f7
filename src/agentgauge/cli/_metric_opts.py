"""``eval`` options choosing which metrics run (``--only-metrics``, ``--skip-metrics``, ``--no-judges``), how
many judge calls run at once (``--judge-parallelism``), whose rules score ADK metrics (``--dialect``), how a
case's runs combine (``--reducer``) and how its status follows from them (``--case-status``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Annotated

import typer

from ._common import fail_input

if TYPE_CHECKING:  # pragma: no cover
    from ..formats import ScoringDialectName
    from ..model import CaseStatusRule, EvalMetric
    from ..service import MetricSelection

__all__ = [
    "CaseStatusOption",
    "DialectOption",
    "JudgeParallelismOption",
    "MetricOptions",
    "NoJudgesOption",
    "OnlyMetricsOption",
    "ReducerOption",
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


DialectOption = Annotated[
    str | None,
    typer.Option(
        "--dialect",
        metavar="adk|adk-ts",
        help="Score ADK metrics (test_config.json criteria, tool_trajectory_avg_score, response_match_score) with "
        "Google ADK's rules (adk) or ADK-TS's (adk-ts); default: as the metrics file says (adk). See docs/metrics.md.",
        rich_help_panel="Metrics",
        show_default=False,
    ),
]


ReducerOption = Annotated[
    str | None,
    typer.Option(
        "--reducer",
        metavar="NAME",
        help="How a case's scores over --num-runs runs become one, for every metric without a 'reducer' of its own "
        "in the metrics file: mean (default), median, mode, max, min or at_least_K (K runs reached the threshold, "
        "e.g. at_least_2). See docs/running.md.",
        rich_help_panel="Metrics",
        show_default=False,
    ),
]


CaseStatusOption = Annotated[
    str | None,
    typer.Option(
        "--case-status",
        metavar="mean|all|majority|any",
        help="How a case's status follows from its --num-runs runs: mean (default: each metric's scores over the "
        "runs against its threshold, as ADK and trpc-agent-go decide), all, majority or any run passed. Every "
        "report names the rule. See docs/running.md.",
        rich_help_panel="Metrics",
        show_default=False,
    ),
]


@dataclass(frozen=True)
class MetricOptions:
    """The metric selection of a run (``None``: every metric), its judge parallelism and the scoring dialect of
    ``--dialect`` (``None``: as the metrics file says)."""

    selection: MetricSelection | None
    judge_parallelism: int
    dialect: ScoringDialectName | None = None
    reducer: str | None = None
    """``--reducer``: the reducer of every metric that names none."""
    case_status: CaseStatusRule | None = None
    """``--case-status``: the rule deciding a case's status over its runs (``None``: the default, ``mean``)."""

    def apply_dialect(self, metrics: list[EvalMetric], source: str) -> list[EvalMetric]:
        """``metrics`` scored in ``--dialect`` and reduced over runs by ``--reducer`` where they name no reducer
        (unchanged without either); exit 2 for a metric the dialect cannot apply to."""
        if self.reducer is not None:
            metrics = [m if m.reducer else m.model_copy(update={"reducer": self.reducer}) for m in metrics]
        if self.dialect is None:
            return metrics
        from ..formats import with_scoring_dialect

        return with_scoring_dialect(metrics, self.dialect, source)


def metric_options(
    only: str | None,
    skip: str | None,
    no_judges: bool,
    judge_parallelism: int | None,
    parallelism: int,
    dialect: str | None = None,
    *,
    reducer: str | None = None,
    case_status: str | None = None,
) -> MetricOptions:
    """The options as given on the command line, checked (exit 2 for an empty list, a parallelism below 1, an
    unknown dialect, reducer or case status rule)."""
    from ..formats import SCORING_DIALECTS
    from ..model import parse_case_status_rule
    from ..service import MetricSelection
    from ..stats import check_reducer

    try:
        rule = parse_case_status_rule(case_status) if case_status is not None else None
    except ValueError as exc:
        fail_input(f"--case-status: {exc}")

    if reducer is not None:
        try:
            check_reducer(reducer)
        except ValueError as exc:
            fail_input(f"--reducer: {exc}")

    if dialect is not None and dialect not in SCORING_DIALECTS:
        fail_input(f"--dialect must be one of {', '.join(SCORING_DIALECTS)}, got {dialect!r}")

    if judge_parallelism is not None and judge_parallelism < 1:
        fail_input(f"--judge-parallelism must be at least 1, got {judge_parallelism}")
    for option, value in (("--only-metrics", only), ("--skip-metrics", skip)):
        if value is not None and not any(name.strip() for name in value.split(",")):
            fail_input(f"{option} needs at least one metric name, e.g. {option} tool_trajectory_avg_score")
    selection = None
    if only is not None or skip is not None or no_judges:
        options = ("--only-metrics", "--skip-metrics", "--no-judges")
        selection = MetricSelection(only, skip or (), not no_judges, options=options)
    chosen: ScoringDialectName | None = "adk-ts" if dialect == "adk-ts" else "adk" if dialect == "adk" else None
    return MetricOptions(selection, judge_parallelism or parallelism, chosen, reducer, rule)
