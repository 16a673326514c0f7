"""Cohen's kappa and observed agreement against textbook values, and the properties every kappa has."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from agentgauge.calibration import cohen_kappa, observed_agreement

# (matrix, observed agreement, kappa); rows rater A, columns rater B.
TEXTBOOK = [
    # Wikipedia "Cohen's kappa", simple example: 50 grant proposals, p_o = 0.7, p_e = 0.5.
    ([[20, 5], [10, 15]], 0.7, 0.4),
    # Wikipedia, same p_o = 0.60 with different marginals: kappa 0.1304 and 0.2593.
    ([[45, 15], [25, 15]], 0.6, 0.1304),
    ([[25, 35], [5, 35]], 0.6, 0.2593),
    # Perfect agreement, chance agreement, perfect disagreement.
    ([[10, 0], [0, 10]], 1.0, 1.0),
    ([[5, 5], [5, 5]], 0.5, 0.0),
    ([[0, 5], [5, 0]], 0.0, -1.0),
    # Three categories, worked by hand: n = 100, p_o = (44 + 20 + 6) / 100 = 0.70; row shares .50 .30 .20, column
    # shares .60 .30 .10, so p_e = .30 + .09 + .02 = .41 and kappa = (.70 - .41) / (1 - .41) = 0.4915.
    ([[44, 5, 1], [7, 20, 3], [9, 5, 6]], 0.7, 0.4915),
]


@pytest.mark.parametrize(("matrix", "agreement", "kappa"), TEXTBOOK)
def test_textbook_values(matrix: list[list[int]], agreement: float, kappa: float) -> None:
    assert observed_agreement(matrix) == pytest.approx(agreement, abs=5e-5)
    found = cohen_kappa(matrix)
    assert found is not None
    assert found == pytest.approx(kappa, abs=5e-5)


@pytest.mark.parametrize(
    "matrix",
    [
        [[0, 0], [0, 0]],  # no items
        [[12, 0], [0, 0]],  # both raters said "pass" every time: p_e = 1
        [[0, 0], [0, 7]],
    ],
)
def test_undefined_kappa_is_none(matrix: list[list[int]]) -> None:
    assert cohen_kappa(matrix) is None


def test_no_items_has_no_agreement() -> None:
    assert observed_agreement([[0, 0], [0, 0]]) is None


@pytest.mark.parametrize(
    ("matrix", "message"),
    [([], "square"), ([[1, 2]], "square"), ([[1, 2], [3]], "square"), ([[1, -1], [0, 1]], "negative")],
)
def test_bad_matrices_are_refused(matrix: list[list[int]], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        cohen_kappa(matrix)


counts = st.integers(min_value=0, max_value=50)
two_by_two = st.lists(st.lists(counts, min_size=2, max_size=2), min_size=2, max_size=2)


@given(two_by_two)
def test_kappa_properties(matrix: list[list[int]]) -> None:
    kappa = cohen_kappa(matrix)
    if kappa is None:
        return
    assert -1.0 - 1e-9 <= kappa <= 1.0 + 1e-9
    # The raters' roles are symmetric: swapping them (transposing) changes nothing.
    transposed = [[matrix[j][i] for j in range(2)] for i in range(2)]
    assert cohen_kappa(transposed) == pytest.approx(kappa)
    # Perfect agreement, and only it, gives 1.
    assert math.isclose(kappa, 1.0) == (matrix[0][1] == matrix[1][0] == 0)
