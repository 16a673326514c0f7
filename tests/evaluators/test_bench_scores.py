"""The shared benchmark data scored in the ADK dialect reproduces ADK's published figures exactly.

FIGURES.md (google-adk 2.13 on the same generated data): mean case score 0.738167 (trajectory, EXACT) and
0.984559 (ROUGE-1); IN_ORDER 0.828167, ANY_ORDER 0.880500; mean invocation scores 0.741071 / 0.986231;
cases passed 561 (trajectory >= 1.0) and 977 (ROUGE >= 0.8).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from agentgauge.evaluators import Registry
from agentgauge.model import Criterion, EvalMetric, EvalSet, EvalStatus

# The shared reference generator sits beside the checkout (``../shared``); /work/shared on the development machine.
GEN = next(
    (
        p
        for p in (
            Path(__file__).resolve().parents[3] / "shared" / "bench" / "gen_data.py",
            Path("/work/shared/bench/gen_data.py"),
        )
        if p.exists()
    ),
    Path("/work/shared/bench/gen_data.py"),
)


@pytest.fixture(scope="module")
def bench_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    if not GEN.exists():
        pytest.skip(f"benchmark generator not found at {GEN}")
    out = tmp_path_factory.mktemp("bench1000")
    subprocess.run([sys.executable, str(GEN), "--n", "1000", "--out", str(out)], check=True, capture_output=True)
    return out


@pytest.fixture(scope="module")
def bench(bench_dir: Path) -> tuple[EvalSet, EvalSet, list[EvalMetric]]:
    # The generator's native (trpc) files hold the same data as its ADK files.
    out = bench_dir
    prefix = out / "evalset_n1000_s20240601"
    expected = EvalSet.model_validate_json((prefix.parent / f"{prefix.name}.expected.trpc.json").read_bytes())
    actual = EvalSet.model_validate_json((prefix.parent / f"{prefix.name}.actual.trpc.json").read_bytes())
    config = json.loads((out / "test_config.json").read_text())
    metrics = [
        EvalMetric(metric_name=name, threshold=float(t), criterion=Criterion(adk={"threshold": float(t)}))
        for name, t in config["criteria"].items()
    ]
    return expected, actual, metrics


async def _case_scores(
    registry: Registry, metric: EvalMetric, expected: EvalSet, actual: EvalSet
) -> tuple[list[float], list[float], int]:
    case_scores: list[float] = []
    invocation_scores: list[float] = []
    passed = 0
    evaluator = registry.resolve(metric)
    for e_case, a_case in zip(expected.eval_cases, actual.eval_cases, strict=True):
        assert e_case.eval_id == a_case.eval_id
        result = await evaluator.evaluate(a_case.conversation or [], e_case.conversation or [], metric)
        assert result.overall_score is not None
        case_scores.append(result.overall_score)
        invocation_scores.extend(r.score for r in result.per_invocation_results if r.score is not None)
        passed += result.overall_status is EvalStatus.PASSED
    return case_scores, invocation_scores, passed


async def test_adk_dialect_scores_match_adk_figures(bench: tuple[EvalSet, EvalSet, list[EvalMetric]]) -> None:
    expected, actual, metrics = bench
    assert [m.metric_name for m in metrics] == ["tool_trajectory_avg_score", "response_match_score"]
    registry = Registry()
    registry.validate_metrics(metrics)
    figures = {
        "tool_trajectory_avg_score": (0.738167, 0.741071, 561),
        "response_match_score": (0.984559, 0.986231, 977),
    }
    for metric in metrics:
        cases, invocations, passed = await _case_scores(registry, metric, expected, actual)
        assert len(cases) == 1000 and len(invocations) == 2016
        case_mean, inv_mean, n_passed = figures[metric.metric_name]
        assert round(sum(cases) / len(cases), 6) == case_mean
        assert round(sum(invocations) / len(invocations), 6) == inv_mean
        assert passed == n_passed


@pytest.mark.parametrize(("match_type", "mean"), [("EXACT", 0.738167), ("IN_ORDER", 0.828167), ("ANY_ORDER", 0.8805)])
async def test_adk_match_types_on_bench(
    bench: tuple[EvalSet, EvalSet, list[EvalMetric]], match_type: str, mean: float
) -> None:
    expected, actual, _ = bench
    metric = EvalMetric(
        metric_name="tool_trajectory_avg_score",
        threshold=1.0,
        criterion=Criterion(adk={"threshold": 1.0, "match_type": match_type}),
    )
    cases, _, _ = await _case_scores(Registry(), metric, expected, actual)
    assert round(sum(cases) / len(cases), 6) == mean


async def test_adk_files_through_the_loaders(bench_dir: Path) -> None:
    """The same figures when the ADK files and test_config.json are read by agentgauge's own loaders."""
    formats = pytest.importorskip("agentgauge.formats")
    prefix = bench_dir / "evalset_n1000_s20240601"
    expected = formats.load_eval_set(f"{prefix}.expected.adk.json")
    actual = formats.load_eval_set(f"{prefix}.actual.adk.json")
    # Without the informational metrics ADK appends (they have no score to compare with a figure here).
    metrics = [m for m in formats.load_metrics(bench_dir / "test_config.json") if m.criterion is not None]
    registry = Registry()
    registry.validate_metrics(metrics)
    means = {}
    for metric in metrics:
        cases, _, _ = await _case_scores(registry, metric, expected, actual)
        means[metric.metric_name] = round(sum(cases) / len(cases), 6)
    assert means == {"tool_trajectory_avg_score": 0.738167, "response_match_score": 0.984559}
