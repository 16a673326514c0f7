"""Sample sizes against textbook values (normal approximation, two-sided alpha 0.05, power 0.8)."""

from __future__ import annotations

import pytest

from agentgauge.stats import (
    cases_for_means,
    cases_for_paired_means,
    cases_for_proportions,
    runs_for_cases,
    variance_components,
    z_total,
)


def test_z_total_is_the_textbook_2_8016() -> None:
    assert z_total() == pytest.approx(1.959964 + 0.841621, abs=1e-5)


@pytest.mark.parametrize(
    ("p1", "p2", "alpha", "power", "expected"),
    [
        (0.5, 0.6, 0.05, 0.8, 388),  # Fleiss (no continuity correction): 387.3
        (0.2, 0.3, 0.05, 0.8, 294),  # 293.1
        (0.5, 0.6, 0.05, 0.9, 519),  # 518.0
        (0.1, 0.2, 0.01, 0.8, 297),  # 296.4
    ],
)
def test_two_proportions(p1: float, p2: float, alpha: float, power: float, expected: int) -> None:
    assert cases_for_proportions(p1, p2, alpha=alpha, power=power) == expected


@pytest.mark.parametrize(
    ("variance", "delta", "expected_two", "expected_paired"),
    [(1.0, 0.5, 63, 32), (1.0, 0.2, 393, 197), (0.25, 0.05, 1570, 785), (4.0, 1.0, 63, 32)],
)
def test_means(variance: float, delta: float, expected_two: int, expected_paired: int) -> None:
    # 2 (z_a + z_b)^2 sigma^2 / delta^2 per side (d = 0.5: 62.8 -> 63); paired: half of it without the factor 2.
    assert cases_for_means(variance, delta) == expected_two
    assert cases_for_paired_means(variance, delta) == expected_paired


def test_variance_components_split_between_and_within() -> None:
    # Case means 0.2 and 0.8 (between), runs spread +-0.1 around them (within).
    parts = variance_components([[0.1, 0.3, 0.1, 0.3], [0.7, 0.9, 0.7, 0.9]])
    assert parts.within == pytest.approx(0.08 / 6)
    assert parts.mean == pytest.approx(0.5)
    assert parts.between == pytest.approx(0.18 - parts.within / 4)
    one_run = variance_components([[0.0], [1.0], [1.0]])
    assert one_run.within is None and one_run.between == pytest.approx(1 / 3)
    with pytest.raises(ValueError, match="two scored cases"):
        variance_components([[1.0], []])


def test_runs_for_cases() -> None:
    parts = variance_components([[0.0, 1.0, 0.0, 1.0], [1.0, 0.0, 1.0, 0.0], [0.0, 1.0, 1.0, 0.0]])
    assert parts.between == 0.0
    runs = runs_for_cases(parts, 100, 0.2)
    assert runs is not None and cases_for_means(parts.of_case_mean(runs), 0.2) <= 100
    assert runs == 1 or cases_for_means(parts.of_case_mean(runs - 1), 0.2) > 100
    hard = variance_components([[0.0, 0.1], [1.0, 0.9], [0.0, 0.0], [1.0, 1.0]])
    assert runs_for_cases(hard, 4, 0.05) is None  # the cases differ too much: runs cannot make up for them


def test_bad_input() -> None:
    with pytest.raises(ValueError, match="alpha"):
        cases_for_means(1.0, 0.1, alpha=0)
    with pytest.raises(ValueError, match="change"):
        cases_for_means(1.0, 0.0)
    with pytest.raises(ValueError, match="pass rates"):
        cases_for_proportions(1.2, 0.5)
