"""The summary of full case results: of the results of a run, and of a saved result as its run decided it."""

from __future__ import annotations

from collections.abc import Sequence

from ..model import DEFAULT_CASE_STATUS, CaseStatusRule, EvalCaseResult, EvalSetResult, EvalStatus
from ._case_row import case_row
from ._row_summary import RowSummary, summarize_rows

__all__ = ["result_summary", "summarize_results"]


def summarize_results(
    results: Sequence[EvalCaseResult],
    *,
    case_ids: Sequence[str],
    num_runs: int,
    rule: CaseStatusRule = DEFAULT_CASE_STATUS,
) -> RowSummary:
    """The summary of case results (any number of runs of each case; cases in the order of ``case_ids``), each
    case's status decided by ``rule``."""
    return summarize_rows(map(case_row, results), case_ids=case_ids, num_runs=num_runs, rule=rule)


def result_summary(result: EvalSetResult) -> RowSummary:
    """The summary of a saved result as its run decided it: cases in the order the file lists them, each with the
    status its summary gives it (the tool that wrote it decided); a case the summary does not name, or a result
    without one (ADK's files), is decided by the result's rule (``mean`` when it names none)."""
    summary = result.summary
    cases = result.eval_case_results
    saved: dict[str, EvalStatus] = {}
    rule = DEFAULT_CASE_STATUS
    if summary is not None:
        saved = {s.eval_id: s.overall_status for s in summary.eval_case_summaries}
        rule = summary.case_status_rule or DEFAULT_CASE_STATUS
        num_runs = summary.num_runs
    else:
        num_runs = max(len({c.run_id for c in cases}), 1)
    case_ids = list(dict.fromkeys(c.eval_id for c in cases))
    return summarize_rows(map(case_row, cases), case_ids=case_ids, num_runs=num_runs, rule=rule, saved=saved)
