"""Score reducers over runs (inspect-ai epoch semantics)."""

from __future__ import annotations

import pytest

from agentgauge.stats import at_least_k, check_reducer, reduce_scores


@pytest.mark.parametrize(
    ("reducer", "scores", "threshold", "expected"),
    [
        (None, [1.0, 0.0, 0.5], 0.5, 0.5),
        ("mean", [1.0, 0.0, 0.5, 0.5], 0.5, 0.5),
        ("median", [1.0, 0.0, 0.2], 0.5, 0.2),
        ("median", [1.0, 0.0, 0.2, 0.4], 0.5, 0.30000000000000004),
        ("mode", [0.2, 1.0, 1.0, 0.2, 0.5], 0.5, 0.2),  # equally common: the earliest
        ("mode", [0.0, 1.0, 1.0], 0.5, 1.0),
        ("max", [0.1, 0.9, 0.4], 0.5, 0.9),
        ("min", [0.1, 0.9, 0.4], 0.5, 0.1),
        ("at_least_2", [1.0, 0.0, 1.0], 1.0, 1.0),
        ("at_least_2", [1.0, 0.0, 0.9], 1.0, 0.0),
        ("at_least_1", [0.6, 0.0], 0.5, 1.0),
        ("at_least_3", [1.0, 1.0], 1.0, 0.0),
    ],
)
def test_reduce_scores(reducer: str | None, scores: list[float], threshold: float, expected: float) -> None:
    assert reduce_scores(reducer, scores, threshold) == pytest.approx(expected)


def test_names() -> None:
    assert reduce_scores("max", [], 0.5) is None
    assert at_least_k("at_least_12") == 12 and at_least_k("max") is None and at_least_k(None) is None
    for bad in ("avg", "at_least_0", "at_least_", "at_least_x", "MEAN"):
        with pytest.raises(ValueError, match="unknown reducer"):
            check_reducer(bad)
