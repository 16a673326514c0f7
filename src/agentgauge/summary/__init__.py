"""What a run's finished cases add up to: compact case rows, metric tallies over runs, the row table a large run
keeps instead of results, and token/cost usage per case.

Below :mod:`agentgauge.service` (which produces the rows) and :mod:`agentgauge.reporting` (which renders them):
this package imports only :mod:`agentgauge.model`.
"""

from ._multirun import (
    CaseAggregate,
    CaseRow,
    MetricRow,
    MetricTally,
    aggregate_case,
    case_order,
    case_row,
    metric_summaries,
    summarize_runs,
    tally_metrics,
)
from ._row_summary import CaseGroups, RowSummary, summarize_rows
from ._rows import RowTable, SparseText
from ._usage import case_usage, format_cost, format_duration, format_tokens, usage_parts, usage_text

__all__ = [
    "CaseAggregate",
    "CaseGroups",
    "CaseRow",
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
    "metric_summaries",
    "summarize_rows",
    "summarize_runs",
    "tally_metrics",
    "usage_parts",
    "usage_text",
]
