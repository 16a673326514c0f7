"""What a run's finished cases add up to: compact case rows, metric tallies over runs, the row table a large run
keeps instead of results, and token/cost usage per case.

Below :mod:`agentgauge.service` (which produces the rows) and :mod:`agentgauge.reporting` (which renders them):
this package imports only :mod:`agentgauge.model`. Inside, lowest first: ``_reasons`` and ``_usage`` (texts and
totals of one case result), ``_case_row`` (the compact row), ``_tally`` (metric tallies) and ``_row_table`` (rows
held column by column), ``_row_summary`` (the summary of rows), ``_aggregate`` (the summary of full results).
"""

from ._aggregate import CaseAggregate, aggregate_case, summarize_runs
from ._case_row import CaseRow, MetricRow, case_row
from ._latency import LatencyPercentiles, latency_percentiles, latency_text
from ._row_summary import CaseGroups, RowSummary, case_order, summarize_rows
from ._row_table import RowTable, SparseText
from ._tally import MetricTally, metric_summaries, tally_metrics
from ._usage import case_usage, format_cost, format_duration, format_tokens, usage_parts, usage_text

__all__ = [
    "CaseAggregate",
    "CaseGroups",
    "CaseRow",
    "LatencyPercentiles",
    "MetricRow",
    "MetricTally",
    "RowSummary",
    "RowTable",
    "SparseText",
    "aggregate_case",
    "case_order",
    "case_row",
    "case_usage",
    "format_cost",
    "format_duration",
    "format_tokens",
    "latency_percentiles",
    "latency_text",
    "metric_summaries",
    "summarize_rows",
    "summarize_runs",
    "tally_metrics",
    "usage_parts",
    "usage_text",
]
