"""Confidence intervals of a result's pass rate and metric means, computed once per view when a report asks.

The resampling unit is the case: a resample draws cases, and a case's runs go with it (see
:mod:`agentgauge.stats`). The settings (resamples, seed, level) are the current command's
(:func:`~agentgauge.stats.use_bootstrap`),
so every report of one command agrees, and the same result and settings always give the same numbers.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from html import escape
from typing import TYPE_CHECKING, Any

from ..model import EvalStatus
from ..stats import (
    BootstrapSettings,
    Interval,
    bootstrap_weighted_sums,
    current_bootstrap,
    percentile_interval,
    use_bootstrap,
)

if TYPE_CHECKING:  # pragma: no cover
    from ._view import ResultView

__all__ = [
    "BootstrapSettings",
    "ViewIntervals",
    "current_bootstrap",
    "estimate_text",
    "intervals_document",
    "intervals_html",
    "use_bootstrap",
    "view_intervals",
]  # BootstrapSettings, current_bootstrap and use_bootstrap live in agentgauge.stats, re-exported here

MAX_CASES = 50_000
"""Above this many cases no interval is computed (a pass rate's would be narrower than +-0.005, below the two decimals
shown), so the report of a large run stays fast."""


@dataclass(frozen=True)
class ViewIntervals:
    """A result's estimates with their intervals: ``pass_rate`` is the share of case runs that passed; each
    ``metrics`` entry is a scored metric's mean (measurements have none). An interval is ``None`` when there is
    nothing to resample."""

    settings: BootstrapSettings
    resamples: int
    cases: int
    pass_rate: float | None
    pass_rate_interval: Interval | None
    metrics: dict[str, tuple[float | None, Interval | None]] = field(default_factory=dict)

    @property
    def shown(self) -> bool:
        """Whether any interval was computed."""
        return self.pass_rate_interval is not None or any(i is not None for _, i in self.metrics.values())


def estimate_text(value: float | None, interval: Interval | None) -> str:
    """``0.82 [0.76, 0.88]`` (``-`` without a value; the value alone without an interval)."""
    if value is None:
        return "-"
    return f"{value:.2f} {interval.text()}" if interval is not None else f"{value:.2f}"


def _interval(values: list[float], settings: BootstrapSettings, resamples: int) -> Interval | None:
    return percentile_interval(values, settings.level, resamples)


def _per_case(view: ResultView, names: list[str], count: int) -> list[list[float]]:
    """Per metric of ``names``, two columns over the cases (by :attr:`CaseSummary.index`): the sum of its run
    scores and how many runs scored it (not-evaluated and errored results have no score)."""
    position = {name: 2 * k for k, name in enumerate(names)}
    columns = [[0.0] * count for _ in range(2 * len(names))]
    for case in view.cases:
        for row in case.rows:
            for metric in row.metrics:
                at = position.get(metric.metric_name)
                scored = (
                    metric.eval_status is not EvalStatus.NOT_EVALUATED and metric.eval_status is not EvalStatus.ERROR
                )
                if at is not None and metric.score is not None and scored:
                    columns[at][case.index] += metric.score
                    columns[at + 1][case.index] += 1
    return columns


def _compute(view: ResultView, settings: BootstrapSettings) -> ViewIntervals:
    cases = list(view.cases)
    count = len(cases)
    passed = sum(c.runs_passed for c in cases)
    runs = sum(c.runs for c in cases)
    pass_rate = passed / runs if runs else None
    # Measurements get no interval: it would read as a verdict on a number that has none.
    means = {m.name: m.average for m in view.scores}
    resamples = settings.resamples_for(count)
    if settings.resamples <= 0 or count < 2 or count > MAX_CASES:
        return ViewIntervals(settings, 0, count, pass_rate, None, {name: (mean, None) for name, mean in means.items()})
    columns: list[list[float]] = [[0.0] * count, [0.0] * count]
    for case in cases:
        columns[0][case.index], columns[1][case.index] = case.runs_passed, case.runs
    names = [m.name for m in view.scores if m.scores]
    per_case = _per_case(view, names, count)
    # A score beyond floating point (``1e999`` in a file reads as infinity) has no interval: its mean is shown alone.
    finite = [k for k in range(len(names)) if all(math.isfinite(v) for v in per_case[2 * k])]
    scored = [names[k] for k in finite]
    for k in finite:
        columns += per_case[2 * k : 2 * k + 2]
    sums = bootstrap_weighted_sums(columns, resamples=resamples, seed=settings.seed)

    def ratios(top: list[float], bottom: list[float]) -> list[float]:
        return [t / b for t, b in zip(top, bottom, strict=True) if b > 0]

    pass_interval = _interval(ratios(sums[0], sums[1]), settings, resamples) if runs else None
    metrics: dict[str, tuple[float | None, Interval | None]] = {name: (mean, None) for name, mean in means.items()}
    for position, name in enumerate(scored):
        top, bottom = sums[2 + 2 * position], sums[3 + 2 * position]
        metrics[name] = (means[name], _interval(ratios(top, bottom), settings, resamples))
    return ViewIntervals(settings, resamples, count, pass_rate, pass_interval, metrics)


_RECENT: list[tuple[object, int, BootstrapSettings, ViewIntervals]] = []
"""The last few results' intervals: every report of one command (terminal, HTML, Markdown, JSON) builds its own view
of the same result, and the resampling is the expensive part."""
_RECENT_KEPT = 4


def view_intervals(view: ResultView) -> ViewIntervals:
    """The intervals of ``view`` under the current settings: computed once per view, and reused for another view of
    the same result object with as many cases (the other reports of the same command)."""
    settings = current_bootstrap()
    cache: dict[BootstrapSettings, ViewIntervals] = view.__dict__.setdefault("_intervals_cache", {})
    found = cache.get(settings)
    if found is not None:  # the view is frozen: its cases never change
        return found
    cases = len(view.cases)
    found = next((i for r, n, s, i in _RECENT if r is view.result and n == cases and s == settings), None)
    if found is None:
        found = _compute(view, settings)
        _RECENT.append((view.result, cases, settings, found))
        del _RECENT[:-_RECENT_KEPT]
    cache[settings] = found
    return found


def _interval_document(value: float | None, interval: Interval | None) -> dict[str, Any]:
    document: dict[str, Any] = {"value": value}
    if interval is not None:
        document["low"], document["high"] = interval.low, interval.high
    return document


def intervals_document(view: ResultView) -> dict[str, Any]:
    """The intervals, the measurements (their means: no interval, no verdict) and the flaky cases as JSON
    (camelCase, as the result file): what the JSON report and the web UI show under ``summary.statistics``."""
    found = view_intervals(view)
    return {
        "confidenceLevel": found.settings.level,
        "resamples": found.resamples,
        "seed": found.settings.seed,
        "resamplingUnit": "case",
        "passRate": _interval_document(found.pass_rate, found.pass_rate_interval),
        "metrics": [
            {"metricName": name, "mean": _interval_document(mean, interval)}
            for name, (mean, interval) in found.metrics.items()
        ],
        "measurements": [
            {"metricName": m.name, "mean": m.average, "measured": len(m.scores)} for m in view.measurements
        ],
        "flakyCases": [
            {
                "evalId": c.eval_id,
                "runs": c.runs,
                "passedRuns": c.runs_passed,
                "passRate": c.runs_passed / c.runs,
                "status": c.status.value,
                "statusText": c.status_text,
            }
            for c in view.flaky
        ],
    }


def intervals_html(view: ResultView) -> str:
    """The HTML report's *Intervals* table (the estimates with their bootstrap intervals) and *Flaky cases* table."""
    found = view_intervals(view)
    html = ""
    if found.shown:
        rows = [("pass rate (runs)", estimate_text(found.pass_rate, found.pass_rate_interval))]
        rows += [(name, estimate_text(mean, interval)) for name, (mean, interval) in found.metrics.items()]
        html += (
            f'<h2>Intervals</h2><table class="intervals"><tr><th>Estimate</th><th class=num>Value '
            f"[{found.settings.level:.0%} interval]</th></tr>"
            + "".join(f"<tr><td>{escape(name)}</td><td class=num>{escape(text)}</td></tr>" for name, text in rows)
            + f'</table><div class="muted">Percentile bootstrap over {found.cases} cases (a case\'s runs resampled '
            f"with it), {found.resamples} resamples, seed {found.settings.seed}.</div>"
        )
    if view.flaky:
        html += (
            '<h2>Flaky cases</h2><table class="flaky"><tr><th>Case</th><th class=num>Runs passed</th>'
            "<th>Status</th></tr>"
            + "".join(
                f"<tr><td>{escape(c.eval_id)}</td><td class=num>{c.runs_passed}/{c.runs}</td>"
                f"<td>{escape(c.status_text)}</td></tr>"
                for c in view.flaky
            )
            + "</table>"
        )
    return html
