"""Fixtures: results with passing, failing, not evaluated and errored cases, and a multi-run result."""

from __future__ import annotations

import pytest
from result_samples import multi_run_result, single_run_result

from agentgauge.model import EvalSetResult


@pytest.fixture
def single_run() -> EvalSetResult:
    """See :func:`single_run_result`."""
    return single_run_result()


@pytest.fixture
def multi_run() -> EvalSetResult:
    """See :func:`multi_run_result`."""
    return multi_run_result()
