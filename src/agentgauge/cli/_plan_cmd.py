"""``agentgauge plan``: how many cases (and runs per case) a change needs before a comparison can see it."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Annotated, Any

import typer

from ._app import app
from ._common import EXIT_OK, input_errors_exit_2
from ._options import DEFAULT_OUTPUT_DIR, AppNameOption, OutputDirOption, StoreOption
from ._selectors import SELECTOR_FORMS, result_catalog

if TYPE_CHECKING:  # pragma: no cover
    from ..model import EvalSetResult

__all__ = ["plan"]

_PASS_RATE = "pass rate (runs)"


def _per_case(result: EvalSetResult) -> dict[str, dict[str, list[float]]]:
    """Per estimate (the pass rate, each metric), per case: one value per run (1/0 passed, or the score)."""
    from ..model import EvalStatus

    out: dict[str, dict[str, list[float]]] = {_PASS_RATE: {}}
    for run in result.eval_case_results:
        passed = 1.0 if run.final_eval_status is EvalStatus.PASSED else 0.0
        out[_PASS_RATE].setdefault(run.eval_id, []).append(passed)
        for metric in run.overall_eval_metric_results:
            # Measurements (informational results) have no pass rule: no change of theirs is to be detected.
            scored = metric.score is not None and metric.eval_status not in (
                EvalStatus.NOT_EVALUATED,
                EvalStatus.ERROR,
                EvalStatus.INFORMATIONAL,
            )
            if scored:
                out.setdefault(metric.metric_name, {}).setdefault(run.eval_id, []).append(float(metric.score))  # type: ignore[arg-type]
    return out


def plan_rows(result: EvalSetResult, delta: float, alpha: float, power: float) -> list[dict[str, Any]]:
    """One row per estimate: its mean, the variance between and within cases, the cases needed (two independent
    results of as many runs per case as this one, and of one run) and the runs per case needed with this result's
    number of cases."""
    from ..stats import cases_for_means, cases_for_proportions, runs_for_cases, variance_components

    rows = []
    for name, cases in _per_case(result).items():
        if len(cases) < 2:
            continue
        parts = variance_components(list(cases.values()))
        runs = max(1, round(parts.runs))
        needed = cases_for_means(parts.of_case_mean(runs), delta, alpha=alpha, power=power)
        if name == _PASS_RATE and parts.within is None and 0.0 <= parts.mean + delta <= 1.0:
            # One run per case: a pass rate is a proportion, sized with the textbook two-proportion formula.
            needed = cases_for_proportions(parts.mean, parts.mean + delta, alpha=alpha, power=power)
        rows.append(
            {
                "name": name,
                "mean": parts.mean,
                "cases": parts.cases,
                "runsPerCase": parts.runs,
                "sdBetweenCases": parts.between**0.5,
                "sdWithinCase": None if parts.within is None else parts.within**0.5,
                "casesNeeded": needed,
                "casesNeededOneRun": needed
                if parts.within is None
                else cases_for_means(parts.of_case_mean(1), delta, alpha=alpha, power=power),
                "runsPerCaseNeeded": runs_for_cases(parts, parts.cases, delta, alpha=alpha, power=power),
            }
        )
    return rows


def _sd(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}"


_DeltaOption = Annotated[
    float,
    typer.Option(
        "--delta", help="The change to detect (0.05: five points).", min=1e-6, max=1.0, rich_help_panel="Metrics"
    ),
]
_MetricOption = Annotated[
    str | None,
    typer.Option(
        "--metric", help="Only this metric (or 'pass rate'); default: all of them.", rich_help_panel="Metrics"
    ),
]
_AlphaOption = Annotated[
    float,
    typer.Option("--alpha", help="Two-sided significance level.", min=1e-6, max=0.5, rich_help_panel="Metrics"),
]
_PowerOption = Annotated[
    float,
    typer.Option(
        "--power", help="Chance of detecting a change that large.", min=0.01, max=0.999999, rich_help_panel="Metrics"
    ),
]
_PlanJsonOption = Annotated[bool, typer.Option("--json", help="Print the plan as JSON.", rich_help_panel="Output")]


@app.command()
def plan(
    result_file: Annotated[
        str, typer.Argument(metavar="RESULT", help=f"The result to take variances from: {SELECTOR_FORMS}.")
    ],
    delta: _DeltaOption = 0.05,
    metric: _MetricOption = None,
    alpha: _AlphaOption = 0.05,
    power: _PowerOption = 0.8,
    json_out: _PlanJsonOption = False,
    output_dir: OutputDirOption = DEFAULT_OUTPUT_DIR,
    store: StoreOption = None,
    app_name: AppNameOption = None,
) -> None:
    """How many cases (and runs per case) a change of --delta in a metric mean or the pass rate needs to be detected.

    From the variance RESULT shows between cases and, with several runs, between a case's runs: cases needed per
    side to tell two results apart (two-sided --alpha, --power; normal approximation), with as many runs per case as
    RESULT and with one, and the runs per case that would do with RESULT's number of cases. See docs/compare.md.

    Examples:

      agentgauge plan examples/compare/new.evalset_result.json --delta 0.1

      agentgauge plan latest --delta 0.1
    """
    from ..errors import InputError
    from ..storage import resolve_result

    with input_errors_exit_2():
        found = resolve_result(result_file, result_catalog([result_file], output_dir, store, app_name))
        result_file = found.source
        rows = plan_rows(found.load(), delta, alpha, power)
        if not rows:
            raise InputError(f"{result_file}: no estimate has scores from at least two cases to take a variance from")
        if metric is not None:
            wanted = _PASS_RATE if metric in ("pass rate", "pass_rate", _PASS_RATE) else metric
            rows = [r for r in rows if r["name"] == wanted]
            if not rows:
                raise InputError(f"{result_file}: no metric {metric!r} with scores from at least two cases")
    if json_out:
        typer.echo(json.dumps({"delta": delta, "alpha": alpha, "power": power, "estimates": rows}, indent=2))
        raise typer.Exit(EXIT_OK)
    typer.echo(f"To detect a change of {delta:g} (two-sided alpha {alpha:g}, power {power:g}), per result compared:")
    width = max((len(r["name"]) for r in rows), default=8)
    typer.echo(
        f"  {'estimate'.ljust(width)}  mean   sd cases  sd runs  cases now  cases (1 run)  runs/case with these cases"
    )
    for r in rows:
        runs_needed = r["runsPerCaseNeeded"]
        typer.echo(
            f"  {r['name'].ljust(width)}  {r['mean']:.3f}  {_sd(r['sdBetweenCases']):>8}  {_sd(r['sdWithinCase']):>7}"
            f"  {r['casesNeeded']:>9}  {r['casesNeededOneRun']:>13}  "
            f"{runs_needed if runs_needed is not None else 'more cases needed'}"
        )
    typer.echo(
        "cases now: at this result's runs per case; runs/case: with this result's number of cases (sd runs: '-' "
        "when every case ran once)."
    )
    raise typer.Exit(EXIT_OK)
