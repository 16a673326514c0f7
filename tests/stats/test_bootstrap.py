"""Percentile bootstrap intervals over cases (agentgauge.stats): determinism, coverage and the draws."""

from __future__ import annotations

import random
import statistics

import pytest

from agentgauge.stats import (
    BootstrapSettings,
    Interval,
    bootstrap_weighted_sums,
    current_bootstrap,
    percentile,
    ratio_delta_interval,
    ratio_interval,
    use_bootstrap,
)


@pytest.mark.parametrize(
    ("values", "fraction", "expected"),
    [([1.0], 0.5, 1.0), ([1.0, 2.0], 0.5, 1.5), ([1.0, 2.0, 3.0, 4.0], 0.25, 1.75), ([0.0, 10.0], 0.975, 9.75)],
)
def test_percentile_interpolates_like_numpy_type_7(values: list[float], fraction: float, expected: float) -> None:
    assert percentile(values, fraction) == pytest.approx(expected)


def test_weighted_sums_match_a_direct_computation_of_the_same_weights() -> None:
    # A column with one case at 1 gives that case's weight (times drawn) per resample; every resample draws n cases.
    cases = 23
    singles = [bootstrap_weighted_sums([[1.0 if i == j else 0.0 for i in range(cases)]], resamples=500, seed=7)[0]
               for j in range(cases)]  # fmt: skip
    for b in range(500):
        weights = [round(single[b]) for single in singles]
        assert all(0 <= w <= cases for w in weights)
        assert sum(weights) == cases
    values = [random.Random(i).uniform(-2, 5) for i in range(cases)]
    sums = bootstrap_weighted_sums([values], resamples=500, seed=7)[0]
    for b in range(500):
        direct = sum(round(single[b]) * v for single, v in zip(singles, values, strict=True))
        assert sums[b] == pytest.approx(direct, abs=1e-6)


def test_a_case_is_drawn_binomially_n_times_with_probability_one_over_n() -> None:
    cases = 10
    weights = bootstrap_weighted_sums([[1.0] + [0.0] * (cases - 1)], resamples=20_000, seed=3)[0]
    assert statistics.fmean(weights) == pytest.approx(1.0, abs=0.03)
    assert statistics.pvariance(weights) == pytest.approx(1 - 1 / cases, abs=0.05)


def test_the_same_seed_gives_the_same_interval_and_another_seed_another() -> None:
    scores = [random.Random(i).random() for i in range(200)]
    first = ratio_interval(scores, [1.0] * 200, resamples=2000, seed=11)
    assert first == ratio_interval(scores, [1.0] * 200, resamples=2000, seed=11)
    assert first != ratio_interval(scores, [1.0] * 200, resamples=2000, seed=12)


def test_interval_of_a_large_sample_matches_the_normal_interval() -> None:
    rng = random.Random(5)
    scores = [rng.random() for _ in range(2000)]
    interval = ratio_interval(scores, [1.0] * 2000, resamples=4000)
    assert interval is not None
    mean, se = statistics.fmean(scores), statistics.stdev(scores) / 2000**0.5
    assert interval.low == pytest.approx(mean - 1.96 * se, abs=0.15 * se)
    assert interval.high == pytest.approx(mean + 1.96 * se, abs=0.15 * se)
    assert interval.contains(mean)


def test_runs_go_with_their_case() -> None:
    # Two cases, each with 4 runs all alike: every resample's pass rate is 0, 1/2 or 1, never a mix of runs.
    interval = ratio_interval([4.0, 0.0], [4.0, 4.0], resamples=1000)
    assert interval is not None and interval.low == 0.0 and interval.high == 1.0
    assert ratio_interval([0.0, 0.0], [0.0, 0.0]) is None


def test_coverage_of_the_95_percent_interval_is_close_to_95_percent() -> None:
    rng = random.Random(9)
    covered = 0
    trials = 120
    for trial in range(trials):
        sample = [1.0 if rng.random() < 0.7 else 0.0 for _ in range(80)]
        interval = ratio_interval(sample, [1.0] * 80, resamples=1000, seed=trial)
        assert interval is not None
        covered += interval.contains(0.7)
    assert 0.86 <= covered / trials <= 1.0


def test_paired_delta_cancels_what_the_cases_share() -> None:
    rng = random.Random(2)
    difficulty = [rng.random() for _ in range(100)]
    base = [d for d in difficulty]
    new = [d + 0.02 for d in difficulty]  # the same cases, each 0.02 better
    ones = [1.0] * 100
    paired = ratio_delta_interval((base, ones), (new, ones), resamples=2000)
    assert paired is not None
    assert paired.low == pytest.approx(0.02) and paired.high == pytest.approx(0.02)
    assert not paired.contains(0.0)


def test_interval_text_and_bad_input() -> None:
    assert Interval(0.7612, 0.88).text() == "[0.76, 0.88]"
    with pytest.raises(ValueError, match="finite"):
        bootstrap_weighted_sums([[float("nan")]])
    with pytest.raises(ValueError, match="resamples"):
        bootstrap_weighted_sums([[1.0]], resamples=0)
    with pytest.raises(ValueError, match="level"):
        ratio_interval([1.0], [1.0], level=1.0)


def test_settings_apply_inside_the_block_only() -> None:
    default = current_bootstrap()
    with use_bootstrap(BootstrapSettings(resamples=50, seed=4)):
        assert current_bootstrap() == BootstrapSettings(50, 4)
    assert current_bootstrap() == default
    assert BootstrapSettings().resamples_for(5000) == 10_000
    assert BootstrapSettings().resamples_for(1_000_000) == 1_000


def test_every_path_agrees_with_the_weights_on_many_cases() -> None:
    # 257 cases: 26 words, so the 4-bit sums fold into 8-bit ones and those into the totals several times; a
    # column of whole numbers (bit planes), a column of fractions (multiplies) and a constant column (the cases
    # drawn) must all equal the sums made from each case's own weights.
    cases, resamples = 257, 64
    weights = [
        [round(w) for w in bootstrap_weighted_sums([[1.0 if i == j else 0.0 for i in range(cases)]],
                                                   resamples=resamples, seed=5)[0]]
        for j in range(cases)
    ]  # fmt: skip
    rng = random.Random(8)
    whole = [float(rng.randrange(0, 201)) for _ in range(cases)]
    fractions = [rng.uniform(0.0, 1.0) for _ in range(cases)]
    constant = [2.0] * cases
    sums = bootstrap_weighted_sums([whole, fractions, constant], resamples=resamples, seed=5)
    for b in range(resamples):
        assert sums[0][b] == sum(w[b] * v for w, v in zip(weights, whole, strict=True))
        assert sums[1][b] == pytest.approx(sum(w[b] * v for w, v in zip(weights, fractions, strict=True)), abs=1e-6)
        assert sums[2][b] == 2 * sum(w[b] for w in weights)


def test_the_draws_do_not_depend_on_how_many_are_made_at_once(monkeypatch: pytest.MonkeyPatch) -> None:
    # Indices are drawn a block of resamples at a time (to bound memory): any block size gives the same sums, so
    # an interval never changes with the memory setting. Constant columns (every case one run) are not drawn at
    # all, and must equal what drawing would give.
    from agentgauge.stats import _bootstrap

    rng = random.Random(3)
    columns = [[float(rng.randrange(0, 3)) for _ in range(301)], [1.0] * 301, [rng.random() for _ in range(301)]]
    expected = bootstrap_weighted_sums(columns, resamples=777, seed=9)
    for block in (1, 300, 302, 10_007, 1 << 22):
        monkeypatch.setattr(_bootstrap, "_BLOCK_DRAWS", block)
        assert bootstrap_weighted_sums(columns, resamples=777, seed=9) == expected
    assert expected[1] == [301.0] * 777
