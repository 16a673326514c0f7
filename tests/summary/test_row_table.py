"""Compact rows held column by column (RowTable), their summary (summarize_rows) and the view built from them,
checked against plain per-object references; and the memory a row costs."""

from __future__ import annotations

import math
import tracemalloc
from collections.abc import Sequence

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agentgauge.model import CaseStatusRule, EvalSetResult, EvalStatus, StatusCounts, UsageTotals, summarize_statuses
from agentgauge.reporting import view_from_rows
from agentgauge.service import CaseRow, MetricTally, RowTable, case_order, metric_summaries, summarize_rows
from agentgauge.summary import CaseSummary
from agentgauge.summary._case_row import metric_row as _metric_row

STATUSES = list(EvalStatus)
ids = st.sampled_from(["a", "b", "c", "d", "é"])
scores = st.none() | st.floats(0, 1) | st.sampled_from([0.0, 1.0])
texts = st.none() | st.text(max_size=30)


@st.composite
def usages(draw: st.DrawFn) -> UsageTotals | None:
    if draw(st.booleans()):
        return None
    return UsageTotals(
        invocations=draw(st.integers(0, 5)),
        duration=draw(st.none() | st.floats(0, 100)),
        model_duration=draw(st.none() | st.floats(0, 100)),
        total_tokens=draw(st.none() | st.integers(0, 10**9)),
        input_tokens=draw(st.none() | st.integers(0, 10**6)),
        cost=draw(st.none() | st.floats(0, 10)),
        cost_missing=draw(st.integers(0, 3)),
        models=draw(st.lists(st.sampled_from(["m1", "m2"]), max_size=2, unique=True)),
    )


@st.composite
def case_rows(draw: st.DrawFn) -> CaseRow:
    names = draw(st.lists(st.sampled_from(["traj", "rouge", "judge"]), max_size=3, unique=True))
    metrics = tuple(
        _metric_row(name, draw(scores), draw(st.sampled_from(STATUSES)), draw(st.sampled_from([0.5, 1.0])))
        for name in names
    )
    return CaseRow(
        draw(ids),
        draw(st.integers(1, 3)),
        draw(st.sampled_from(STATUSES)),
        draw(texts),
        metrics,
        draw(usages()),
        draw(texts),
    )


@settings(max_examples=200, deadline=None)
@given(st.lists(case_rows(), max_size=12))
def test_a_table_gives_back_the_rows_it_was_given(rows: list[CaseRow]) -> None:
    table = RowTable(rows)
    assert len(table) == len(rows)
    assert list(table) == rows
    assert [table.row(i) for i in range(len(rows))] == rows


def test_text_with_lone_surrogates_and_nan_scores_survive() -> None:
    row = CaseRow("x\ud800", 1, EvalStatus.FAILED, "err\udfff", (_metric_row("m", math.nan, EvalStatus.FAILED, 1),))
    [back] = RowTable([row])
    assert back.eval_id == "x\ud800" and back.error_message == "err\udfff"
    assert math.isnan(back.metrics[0].score)  # type: ignore[arg-type]


def _reference_status(runs: Sequence[CaseRow], rule: CaseStatusRule = CaseStatusRule.MEAN) -> EvalStatus:
    # The case status rules, written out on objects.
    statuses = [r.final_eval_status for r in runs]
    if len(runs) <= 1:
        status = summarize_statuses(statuses)
    elif rule is not CaseStatusRule.MEAN:
        needed = {CaseStatusRule.ALL: len(runs), CaseStatusRule.MAJORITY: len(runs) // 2 + 1}.get(rule, 1)
        if statuses.count(EvalStatus.PASSED) >= needed:
            status = EvalStatus.PASSED
        elif EvalStatus.FAILED in statuses:
            status = EvalStatus.FAILED
        else:
            status = EvalStatus.ERROR if EvalStatus.ERROR in statuses else EvalStatus.NOT_EVALUATED
    else:
        tallies: dict[str, MetricTally] = {}
        for run in runs:
            for m in run.metrics:
                tallies.setdefault(m.metric_name, MetricTally(m.metric_name, m.threshold)).add(m.score, m.eval_status)
        status = summarize_statuses(t.status for t in tallies.values())
        failed_by_case = any(
            r.final_eval_status is EvalStatus.FAILED
            and r.metrics
            and all(m.eval_status is not EvalStatus.FAILED for m in r.metrics)
            for r in runs
        )
        if status is not EvalStatus.FAILED and failed_by_case:
            status = EvalStatus.FAILED  # a run the case itself failed (a recording missing a turn)
    if status is EvalStatus.NOT_EVALUATED and any(r.error_message for r in runs):
        status = EvalStatus.ERROR
    return status


@st.composite
def runs_and_order(draw: st.DrawFn) -> tuple[list[CaseRow], list[str]]:
    rows = draw(st.lists(case_rows(), max_size=14))
    if draw(st.booleans()):  # the shape of a real run: the same cases run after run
        cases = draw(st.lists(ids, min_size=1, max_size=4, unique=True))
        runs = draw(st.integers(1, 3))
        stop = draw(st.integers(0, len(cases) * runs))  # an interrupted run stops anywhere
        slots = [(r, c) for r in range(1, runs + 1) for c in cases][:stop]
        drawn = draw(st.lists(case_rows(), min_size=len(slots), max_size=len(slots)))
        rows = [
            CaseRow(eval_id, run, row.final_eval_status, row.error_message, row.metrics, row.usage, row.reason)
            for (run, eval_id), row in zip(slots, drawn, strict=True)
        ]
    order = draw(st.permutations(["a", "b", "c", "d", "é"]))
    return rows, list(order[: draw(st.integers(0, 5))])


@settings(max_examples=150, deadline=None)
@given(runs_and_order(), st.sampled_from(list(CaseStatusRule)))
def test_the_summary_of_a_table_matches_a_summary_made_on_objects(
    given_rows: tuple[list[CaseRow], list[str]], rule: CaseStatusRule
) -> None:
    rows, case_ids = given_rows
    summary = summarize_rows(rows, case_ids=case_ids, num_runs=3, rule=rule)

    by_case: dict[str, list[CaseRow]] = {}
    for row in rows:
        by_case.setdefault(row.eval_id, []).append(row)
    expected_order = sorted(by_case, key=case_order(case_ids))
    assert list(summary.case_status) == expected_order
    assert list(summary.case_status.values()) == [_reference_status(by_case[i], rule) for i in expected_order]
    assert summary.by_case == {i: by_case[i] for i in expected_order}
    for eval_id in expected_order:
        assert summary.case_status[eval_id] is _reference_status(by_case[eval_id], rule)

    by_run: dict[int, list[CaseRow]] = {}
    for row in rows:
        by_run.setdefault(row.run_id, []).append(row)
    assert [r.run_id for r in summary.head.run_summaries] == sorted(by_run)
    for run in summary.head.run_summaries:
        counts = StatusCounts()
        for row in by_run[run.run_id]:
            counts.add(row.final_eval_status)
        assert run.case_status_counts == counts
        assert run.overall_status is summarize_statuses(r.final_eval_status for r in by_run[run.run_id])
        assert run.metric_summaries == metric_summaries(m for r in by_run[run.run_id] for m in r.metrics)  # type: ignore[misc]
    assert summary.head.overall_status is summarize_statuses(_reference_status(g, rule) for g in by_case.values())
    assert summary.head.case_status_rule is rule

    # The view built from the table holds one CaseSummary per case, made of the case's rows, and the tallies of
    # every metric over every row, cases in eval-set order.
    header = EvalSetResult(eval_set_result_id="r", eval_set_id="s", summary=summary.head)
    view = view_from_rows(header, summary)
    expected = [
        CaseSummary(eval_id, _reference_status(by_case[eval_id], rule), rule, tuple(by_case[eval_id]), index)
        for index, eval_id in enumerate(expected_order)
    ]
    assert list(view.cases) == expected
    tallies: dict[str, MetricTally] = {}
    for eval_id in expected_order:
        for row in by_case[eval_id]:
            for m in row.metrics:
                tallies.setdefault(m.metric_name, MetricTally(m.metric_name, m.threshold)).add(m.score, m.eval_status)
    assert [t.summary() for t in view.metrics] == [t.summary() for t in tallies.values()]
    # What the view counts from the rows in one pass is what the summaries give one by one.
    usage = UsageTotals()
    for case in expected:
        usage.merge(case.usage)
    assert view.usage == usage and view.errored == sum(1 for c in expected if c.errors)
    assert [view.count(s) for s in STATUSES] == [sum(1 for c in expected if c.status is s) for s in STATUSES]
    durations = [None if c.usage.duration is None else c.usage.duration / c.runs for c in expected]
    assert view._stats().durations == durations
    assert view.flaky == ([c for c in expected if c.flaky] if view.multi_run else [])
    assert view.flaky_count == len(view.flaky) and view.first_flaky(1) == view.flaky[:1]
    assert all(view.outcome(c.eval_id) == c for c in expected) and view.outcome("nope") is None
    assert view.not_passing == [c for c in expected if c.status is not EvalStatus.PASSED]
    assert view.not_passing_count == len(view.not_passing)
    assert view.first_not_passing(2) == view.not_passing[:2]
    assert view.case_runs.passed == sum(1 for r in rows if r.final_eval_status is EvalStatus.PASSED)
    if expected:
        assert view.cases[-1] == expected[-1] and list(view.cases[1:]) == expected[1:]
        with pytest.raises(IndexError):
            view.cases[len(expected)]


@settings(max_examples=150, deadline=None)
@given(runs_and_order(), st.sampled_from([-0.0, math.nan, 0.25]))
def test_case_summary_documents_are_the_dumped_case_summaries(
    given_rows: tuple[list[CaseRow], list[str]], odd_score: float
) -> None:
    rows, case_ids = given_rows
    if rows:  # a score the summing of the tallies treats specially (-0.0) or JSON cannot hold (NaN)
        first = rows[0]
        odd = tuple(_metric_row(m.metric_name, odd_score, m.eval_status, m.threshold) for m in first.metrics)
        rows[0] = CaseRow(first.eval_id, first.run_id, first.final_eval_status, first.error_message, odd)
    summary = summarize_rows(rows, case_ids=case_ids, num_runs=3)
    # What the result file holds is the same bytes either way.
    expected = [c.model_dump(mode="json") for c in summary.case_summaries()]
    assert orjson.dumps(list(summary.case_summary_documents())) == orjson.dumps(expected)


def test_a_case_whose_metric_name_repeats_is_summarised_by_the_tallies() -> None:
    row = CaseRow(
        "a",
        1,
        EvalStatus.FAILED,
        None,
        (_metric_row("m", 1.0, EvalStatus.PASSED, 0.5), _metric_row("m", 0.0, EvalStatus.FAILED, 0.5)),
    )
    summary = summarize_rows([row], case_ids=["a"], num_runs=1)
    [document] = summary.case_summary_documents()
    assert document["metricSummaries"] == [
        {"metricName": "m", "averageScore": 0.5, "evalStatus": "passed", "threshold": 0.5,
         "statusCounts": {"passed": 1, "failed": 1}}
    ]  # fmt: skip
    assert document == next(summary.case_summaries()).model_dump(mode="json")


def test_a_row_costs_tens_of_bytes_not_hundreds() -> None:
    reason = "tool_trajectory_avg_score: score 0 < threshold 1: tool count mismatch: actual 5 != expected 6"
    ids = [f"case{i:07d}" for i in range(20_000)]  # the ids belong to the eval set, not to the table
    rows = [
        CaseRow(
            eval_id,
            1,
            EvalStatus.FAILED if i % 2 else EvalStatus.PASSED,
            None,
            (
                _metric_row("tool_trajectory_avg_score", float(i % 2 == 0), EvalStatus.PASSED, 1.0),
                _metric_row("response_match_score", 0.5 + i / 100_000, EvalStatus.PASSED, 0.8),
            ),
            None,
            reason if i % 2 else None,
        )
        for i, eval_id in enumerate(ids)
    ]
    tracemalloc.start()
    try:
        table = RowTable()
        for row in rows:
            table.append(row)
        held, _ = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    # ~45 bytes of columns per row plus half a reason (~50 bytes): as objects the same rows take ~400 bytes each.
    assert held / len(rows) < 150, held / len(rows)
    assert table.row(1).reason == reason and table.row(2).reason is None
