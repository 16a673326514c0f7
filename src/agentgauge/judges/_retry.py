"""Retry policy for judge calls: the one policy of outgoing HTTP calls (:mod:`agentgauge._util.retry`), under the
names the judges have always exported."""

from __future__ import annotations

from .._util.retry import RetryPolicy, parse_retry_after, retryable_status

__all__ = ["RetryPolicy", "parse_retry_after", "retryable_status"]
