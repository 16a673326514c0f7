"""The first-divergence benchmark at a small size: every perturbation found at its step, with its kind, and no
divergence between identical reruns of a deterministic agent."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
from divergence_bench import false_positives, localisation


def test_every_perturbation_is_localised_at_its_step() -> None:
    figures = localisation(runs=80, seed=3)
    assert figures["perturbations"] > 1000
    assert set(figures["by_kind"]) == {"change_tool", "change_arguments", "drop_call", "add_call"}
    assert figures["localisation_rate"] == 1.0 and figures["kind_rate"] == 1.0, figures["misses"]
    assert figures["equivalent_at_earliest_step"] == figures["equivalent_perturbations"]


def test_identical_reruns_report_no_divergence() -> None:
    figures = false_positives(cases=30, seed=3)
    assert figures["steps"] > 30 and figures["false_positives"] == 0
