"""What a run's finished cases add up to: compact case rows, the one summary of a case across its runs
(:class:`CaseSummary`, its status decided by the run's :class:`~agentgauge.model.CaseStatusRule`), metric tallies,
the row table a large run keeps instead of results, and token/cost usage per case.

Below :mod:`agentgauge.service` (which produces the rows) and :mod:`agentgauge.reporting` (which renders them):
this package imports only :mod:`agentgauge.model` and :mod:`agentgauge.stats`. Inside, lowest first: ``_reasons``
and ``_usage`` (texts and totals of one case result), ``_case_row`` (the compact row), ``_tally`` (metric
tallies), ``_case_status`` (the status rule), ``_case_summary`` (one case across its runs), ``_row_table`` (rows
held column by column), ``_row_summary`` (the summary of rows), ``_aggregate`` (the summary of full results).
"""

from ._aggregate import result_summary, summarize_results
from ._case_row import CaseRow, MetricRow, case_row, metric_row
from ._case_status import decide_case_status, rule_phrase, status_text
from ._case_summaries import CaseSummaries, CaseTotals
from ._case_summary import CaseSummary, summarize_case
from ._latency import LatencyPercentiles, latency_percentiles, latency_text
from ._reasons import Mismatch, case_mismatches, first_reason, format_tool_call, message_text, one_line, short_reason
from ._row_summary import CaseGroups, RowSummary, case_order, summarize_rows
from ._row_table import RowTable, SparseText
from ._tally import MetricTally, metric_summaries, tally_metrics
from ._usage import case_usage, format_cost, format_duration, format_tokens, usage_parts, usage_text

__all__ = [
    "CaseGroups",
    "CaseRow",
    "CaseSummaries",
    "CaseSummary",
    "CaseTotals",
    "LatencyPercentiles",
    "MetricRow",
    "MetricTally",
    "Mismatch",
    "RowSummary",
    "RowTable",
    "SparseText",
    "case_mismatches",
    "case_order",
    "case_row",
    "case_usage",
    "decide_case_status",
    "first_reason",
    "format_cost",
    "format_duration",
    "format_tokens",
    "format_tool_call",
    "latency_percentiles",
    "latency_text",
    "message_text",
    "metric_row",
    "metric_summaries",
    "one_line",
    "result_summary",
    "rule_phrase",
    "short_reason",
    "status_text",
    "summarize_case",
    "summarize_results",
    "summarize_rows",
    "tally_metrics",
    "usage_parts",
    "usage_text",
]
