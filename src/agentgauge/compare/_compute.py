"""Building a :class:`Comparison` from two eval set results (native or ADK, any number of runs)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from ..divergence import case_run_divergence
from ..model import EvalCaseResult, EvalSetResult, EvalStatus, is_measurement
from ..stats import current_bootstrap
from ..summary import CaseSummary, MetricTally, result_summary
from ..summary._reasons import one_line
from ._gate import DEFAULT_FAIL_ON, FailOn, GateRule, check_alpha, judge_gate, settle_flip
from ._intervals import delta_estimates, runs_state
from ._model import CaseChange, ChangeKind, Comparison, MetricDelta, PassAtK, ResultRef, Significance
from ._significance import ALPHA, fisher_exact, mcnemar_exact, min_runs_for_significance

__all__ = ["compare_results"]


def _cases(result: EvalSetResult) -> dict[str, CaseSummary]:
    """Each case of a result by id: its summary as the run decided it (the run's rule, its saved statuses), so
    compare agrees with what ``eval`` and every report said."""
    return {case.eval_id: case for case in result_summary(result).cases}


def _reason(case: CaseSummary) -> str | None:
    """The first thing that kept a case from passing (its first failing run's reason, as every report says it)."""
    if case.reason is not None:
        return one_line(case.reason)
    return None if case.passed else f"case status {case.status.value}"


def _means(case: CaseSummary) -> dict[str, float | None]:
    """Per metric, the case's score over its runs: their mean, or what the metric's reducer makes of them."""
    return {tally.name: tally.average for tally in case.metrics}


def _partial(result: EvalSetResult) -> bool:
    """Whether ``result`` may lack cases of its eval set: a run of selected cases, an interrupted one, or one that
    could not run some cases (a trace run's cases without a trace)."""
    summary = result.summary
    return result.interrupted or bool(summary is not None and (summary.selected_eval_ids or summary.cases_not_run))


def _kind(base: CaseSummary | None, new: CaseSummary | None, partial: tuple[bool, bool] = (False, False)) -> ChangeKind:
    # A case on one side only is new / removed, unless the side without it ran a part of its set: then not run.
    if base is None:
        return ChangeKind.NOT_RUN if partial[0] else ChangeKind.NEW
    if new is None:
        return ChangeKind.NOT_RUN if partial[1] else ChangeKind.REMOVED
    was, now = base.status is EvalStatus.PASSED, new.status is EvalStatus.PASSED
    if was and now:
        return ChangeKind.STILL_PASSING
    if was:
        return ChangeKind.BROKEN
    return ChangeKind.FIXED if now else ChangeKind.STILL_FAILING


def _case_significance(base: CaseSummary, new: CaseSummary, alpha: float) -> Significance | None:
    if base.runs < 2 or new.runs < 2:
        return None
    p = fisher_exact(base.runs_passed, base.runs, new.runs_passed, new.runs)
    counts = f"{base.runs_passed}/{base.runs} runs passed before, {new.runs_passed}/{new.runs} now"
    if base.runs_passed * new.runs == new.runs_passed * base.runs:
        verdict = "the same pass rate"
    elif p < alpha:
        verdict = f"significant at {alpha:g}: the pass rate really changed"
    else:
        verdict = f"not significant at {alpha:g}: the difference may be chance"
    return Significance(test="fisher_exact", p_value=p, significant=p < alpha, alpha=alpha, note=f"{counts}; {verdict}")


def _change(
    eval_id: str, base: CaseSummary | None, new: CaseSummary | None, partial: tuple[bool, bool], alpha: float
) -> CaseChange:
    change = CaseChange(eval_id=eval_id, change=_kind(base, new, partial))
    if base is not None:
        change.base_status, change.base_runs, change.base_passed_runs = base.status, base.runs, base.runs_passed
        change.base_status_text, change.base_metrics = base.status_text, _means(base)
    if new is not None:
        change.new_status, change.new_runs, change.new_passed_runs = new.status, new.runs, new.runs_passed
        change.new_status_text, change.new_metrics = new.status_text, _means(new)
        change.reason = _reason(new)
    if base is not None and new is not None:
        change.significance = _case_significance(base, new, alpha)
        change.base_runs_state, change.new_runs_state = runs_state(base), runs_state(new)
        change.change = settle_flip(change)  # several runs: a flip the test cannot tell from chance is noise
    return change


def _runs_by_case(result: EvalSetResult) -> dict[str, list[EvalCaseResult]]:
    runs: dict[str, list[EvalCaseResult]] = {}
    for run in result.eval_case_results:
        runs.setdefault(run.eval_id, []).append(run)
    return runs


def _add_divergences(changes: Iterable[CaseChange], base: EvalSetResult, new: EvalSetResult) -> None:
    """Each case on both sides gets where its new run first parts from its base run (``None``: the same steps)."""
    before, after = _runs_by_case(base), _runs_by_case(new)
    for change in changes:
        if change.eval_id in before and change.eval_id in after:
            change.first_divergence = case_run_divergence(before[change.eval_id], after[change.eval_id])


def _metric_deltas(pairs: Sequence[tuple[CaseSummary, CaseSummary]]) -> list[MetricDelta]:
    totals: dict[str, tuple[list[float], list[float]]] = {}
    tallies: dict[str, list[MetricTally]] = {}
    for base, new in pairs:
        for side, case in ((0, base), (1, new)):
            for tally in case.metrics:
                totals.setdefault(tally.name, ([], []))[side].extend(tally.scores)
                tallies.setdefault(tally.name, []).append(tally)
    out = []
    for name, (before, after) in totals.items():
        base_mean = sum(before) / len(before) if before else None
        new_mean = sum(after) / len(after) if after else None
        delta = new_mean - base_mean if base_mean is not None and new_mean is not None else None
        out.append(
            MetricDelta(
                metric_name=name,
                base_mean=base_mean,
                new_mean=new_mean,
                delta=delta,
                base_scored=len(before),
                new_scored=len(after),
                measurement=_is_measurement_metric(tallies[name]),
            )
        )
    return out


def _is_measurement_metric(tallies: Iterable[MetricTally]) -> bool:
    """Whether a metric is a measurement (see :func:`agentgauge.model.is_measurement`) over its tallies on both
    sides: shown with its delta, never with a significance verdict or as a regression."""
    statuses: list[EvalStatus] = []
    for tally in tallies:
        statuses.append(EvalStatus.INFORMATIONAL if tally.measurement else tally.status)
    return is_measurement(statuses)


def _mean(values: Iterable[float]) -> float:
    items = list(values)
    return sum(items) / len(items) if items else 0.0


def _pass_at_k(pairs: Sequence[tuple[CaseSummary, CaseSummary]]) -> list[PassAtK]:
    if not pairs:
        return []
    k_max = min(min(b.runs, n.runs) for b, n in pairs)
    out = []
    for k in sorted({1, k_max}):
        out.append(
            PassAtK(
                k=k,
                base_pass_at_k=_mean(b.pass_at_k(k) for b, _ in pairs),
                new_pass_at_k=_mean(n.pass_at_k(k) for _, n in pairs),
                base_pass_hat_k=_mean(b.pass_hat_k(k) for b, _ in pairs),
                new_pass_hat_k=_mean(n.pass_hat_k(k) for _, n in pairs),
            )
        )
    return out


def _set_significance(comparison: Comparison) -> Significance:
    """The exact McNemar test on the cases whose status flipped (within noise included: a status is a status)."""
    fixed, broken = comparison.status_flips()
    alpha = comparison.alpha
    p = mcnemar_exact(fixed, broken)
    if fixed + broken == 0:
        note = "no case changed status"
    else:
        verdict = (
            f"significant at {alpha:g}: more cases moved one way than chance explains"
            if p < alpha
            else f"not significant at {alpha:g}: too few status changes to rule out chance"
        )
        counts = f"{fixed} fixed against {broken} broken"
        if comparison.count(ChangeKind.WITHIN_NOISE):
            counts = f"status changes: {fixed} to passed against {broken} to not passed (within noise included)"
        note = f"{counts}; {verdict}"
    return Significance(test="mcnemar_exact", p_value=p, significant=p < alpha, alpha=alpha, note=note)


def _ref(result: EvalSetResult, source: str, cases: dict[str, CaseSummary]) -> ResultRef:
    return ResultRef(
        source=source,
        eval_set_result_id=result.eval_set_result_id,
        eval_set_id=result.eval_set_id,
        num_runs=max((c.runs for c in cases.values()), default=1),
        cases=len(cases),
        passed_cases=sum(1 for c in cases.values() if c.passed),
        case_runs=sum(c.runs for c in cases.values()),
        passed_case_runs=sum(c.runs_passed for c in cases.values()),
        case_status_rule=next(iter(cases.values())).rule_text if cases else "",
        interrupted=result.interrupted,
        selected_eval_ids=list(result.summary.selected_eval_ids) if result.summary is not None else [],
    )


def compare_results(
    base: EvalSetResult,
    new: EvalSetResult,
    *,
    base_source: str = "base",
    new_source: str = "new",
    resamples: int | None = None,
    seed: int | None = None,
    alpha: float = ALPHA,
    fail_on: FailOn | GateRule | str | None = DEFAULT_FAIL_ON,
) -> Comparison:
    """Compare two results case by case (matched by eval id).

    A case's status on each side is its run's own (the result's summary, decided by the run's case status rule;
    see :func:`agentgauge.summary.result_summary`). Metric means are taken over the cases present on both sides, so
    added or removed cases do not move them; measurements get their deltas but no verdict. A case present on one
    side only is ``not_run`` when the other side ran a selection of cases or was interrupted (else ``new`` /
    ``removed``); it is listed apart and never makes the comparison regressed. With
    several runs per case, each case gets Fisher's exact test on its runs passed at ``alpha``, and a status flip the
    test cannot tell from chance is ``within_noise`` (not broken or fixed); the set gets the exact McNemar test on the
    cases whose status flipped. ``fail_on`` (a :class:`FailOn` rule or its name, or any :class:`GateRule`; ``None``:
    not judged) gives :attr:`Comparison.gate`, the verdict (see :mod:`agentgauge.compare._gate`). The pass rate and
    every metric mean get a paired bootstrap interval of their change (``resamples``, 0 for none, and ``seed``; by
    default the current :func:`~agentgauge.stats.current_bootstrap` settings). ``base_source`` / ``new_source`` name
    the inputs.
    """
    settings = current_bootstrap()
    check_alpha(alpha)
    before, after = _cases(base), _cases(new)
    order = list(before) + [eval_id for eval_id in after if eval_id not in before]
    partial = (_partial(base), _partial(new))
    changes = [_change(eval_id, before.get(eval_id), after.get(eval_id), partial, alpha) for eval_id in order]
    pairs = [(before[e], after[e]) for e in order if e in before and e in after]
    _add_divergences(changes, base, new)
    metrics = _metric_deltas(pairs)
    comparison = Comparison(
        base=_ref(base, base_source, before),
        new=_ref(new, new_source, after),
        cases=changes,
        metrics=metrics,
        pass_at_k=_pass_at_k(pairs),
        estimates=delta_estimates(
            pairs,
            resamples=settings.resamples if resamples is None else resamples,
            seed=settings.seed if seed is None else seed,
            measurements={m.metric_name for m in metrics if m.measurement},
        ),
        alpha=alpha,
    )
    if pairs:
        comparison.significance = _set_significance(comparison)
    comparison.regressed = comparison.count(ChangeKind.BROKEN) > 0
    comparison.notes = _notes(comparison, pairs)
    if fail_on is not None:
        comparison.gate = judge_gate(comparison, fail_on)
    return comparison


def _notes(comparison: Comparison, pairs: Sequence[tuple[CaseSummary, CaseSummary]]) -> list[str]:
    notes = []
    if comparison.base.eval_set_id != comparison.new.eval_set_id:
        notes.append(
            f"different eval sets ({comparison.base.eval_set_id!r} and {comparison.new.eval_set_id!r}): "
            "cases are matched by id"
        )
    for side, ref in (("base", comparison.base), ("new", comparison.new)):
        if ref.interrupted:
            notes.append(f"the {side} run was interrupted: cases it did not finish are missing from it")
        skipped = len(comparison.not_run(side))
        if ref.selected_eval_ids and skipped:
            notes.append(
                f"the {side} run was limited to {_cases_text(len(ref.selected_eval_ids), 'selected case')}: "
                f"{_cases_text(skipped, 'other case')} {'was' if skipped == 1 else 'were'} not run (listed apart, "
                "not compared)"
            )
    several = comparison.base.num_runs > 1 or comparison.new.num_runs > 1
    if several and comparison.base.case_status_rule != comparison.new.case_status_rule and pairs:
        notes.append(
            f"the case statuses were decided by different rules (base: {comparison.base.case_status_rule}; new: "
            f"{comparison.new.case_status_rule}): a status change may be the rule's"
        )
    needed = min_runs_for_significance(comparison.alpha)
    fewest = min((min(b.runs, n.runs) for b, n in pairs), default=0)
    if not pairs:
        notes.append("no case is in both results: nothing to compare case by case")
    elif fewest < 2:
        notes.append(
            "some cases ran once: a single run cannot tell a real change from chance; run with --num-runs "
            f"{needed} or more for a per-case significance test"
        )
    elif fewest < needed:
        notes.append(
            f"some cases ran {fewest} times: with fewer than {needed} runs on a side no pass-rate change can be "
            f"significant at {comparison.alpha:g}, so no status flip of theirs counts as broken; run with --num-runs "
            f"{needed} or more"
        )
    return notes


def _cases_text(count: int, noun: str) -> str:
    return f"{count} {noun}{'' if count == 1 else 's'}"
