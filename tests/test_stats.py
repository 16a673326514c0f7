"""pass@k and pass^k: reference formulas, edge cases and argument errors."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from agentgauge.stats import pass_at_k, pass_hat_k


@pytest.mark.parametrize(
    ("n", "c", "k", "expected"),
    [
        (10, 0, 1, 0.0),
        (10, 10, 5, 1.0),
        (5, 3, 3, 1.0),  # n - c < k
        (10, 3, 1, 0.3),
        (10, 3, 2, 1 - math.comb(7, 2) / math.comb(10, 2)),
        (3, 1, 2, 1 - math.comb(2, 2) / math.comb(3, 2)),
        (0, 0, 0, None),
    ],
)
def test_pass_at_k_values(n: int, c: int, k: int, expected: float | None) -> None:
    if expected is None:
        with pytest.raises(ValueError):
            pass_at_k(n, c, k)
    else:
        assert pass_at_k(n, c, k) == pytest.approx(expected, abs=1e-12)


@pytest.mark.parametrize(
    ("n", "c", "k", "message"),
    [
        (-1, 0, 1, "n must be >= 0"),
        (5, 1, 0, "k must be > 0"),
        (5, -1, 1, "c must be between 0 and n=5"),
        (5, 6, 1, "c must be between 0 and n=5"),
        (5, 2, 6, "k must be <= n=5"),
    ],
)
def test_pass_at_k_errors(n: int, c: int, k: int, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        pass_at_k(n, c, k)


@pytest.mark.parametrize(
    ("n", "c", "k", "expected"),
    [(4, 0, 2, 0.0), (4, 4, 9, 1.0), (4, 2, 2, 0.25), (3, 2, 5, (2 / 3) ** 5)],
)
def test_pass_hat_k_values(n: int, c: int, k: int, expected: float) -> None:
    assert pass_hat_k(n, c, k) == pytest.approx(expected)


@pytest.mark.parametrize(
    ("n", "c", "k", "message"),
    [
        (0, 0, 1, "n must be > 0"),
        (3, 1, 0, "k must be > 0"),
        (3, 4, 1, "c must be between"),
        (3, -1, 1, "c must be between"),
    ],
)
def test_pass_hat_k_errors(n: int, c: int, k: int, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        pass_hat_k(n, c, k)


@given(st.integers(1, 300).flatmap(lambda n: st.tuples(st.just(n), st.integers(0, n), st.integers(1, n))))
def test_pass_at_k_matches_exact_combinatorics(args: tuple[int, int, int]) -> None:
    n, c, k = args
    exact = 1.0 if n - c < k else 1 - math.comb(n - c, k) / math.comb(n, k)
    assert pass_at_k(n, c, k) == pytest.approx(exact, rel=1e-9, abs=1e-12)
    assert 0.0 <= pass_at_k(n, c, k) <= 1.0


def test_large_n_stays_accurate() -> None:
    # C(n-c,k)/C(n,k) underflows naive float arithmetic for big n; lgamma keeps it finite.
    assert pass_at_k(100_000, 1, 50_000) == pytest.approx(0.5)
