"""ADK ``custom_metrics`` in test_config.json: the function is imported, called with ADK's objects and signature,
and its EvaluationResult becomes the metric's result; a path that does not import is a one-line exit 2."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

pytest.importorskip("google.adk.evaluation.evaluator", reason="google-adk is not installed")

from agentgauge.cli import app

ROOT = Path(__file__).resolve().parents[2]
TRACES = ROOT / "examples" / "trace_mode" / "calculator_traces.evalset.json"

METRIC_MODULE = '''
from google.adk.evaluation.eval_metrics import EvalMetric
from google.adk.evaluation.evaluator import EvalStatus, EvaluationResult, PerInvocationResult

SEEN = []


def tools_per_turn(eval_metric, actual_invocations, expected_invocations, conversation_scenario):
    """Passes when every turn called at most one tool; records what it was given."""
    assert isinstance(eval_metric, EvalMetric) and eval_metric.threshold is None
    SEEN.append((eval_metric.metric_name, eval_metric.criterion.threshold, len(expected_invocations or [])))
    per = []
    for inv in actual_invocations:
        calls = inv.intermediate_data.tool_uses if inv.intermediate_data else []
        score = 1.0 if len(calls) <= 1 else 0.0
        status = EvalStatus.PASSED if score else EvalStatus.FAILED
        per.append(PerInvocationResult(actual_invocation=inv, score=score, eval_status=status))
    overall = sum(p.score for p in per) / len(per)
    return EvaluationResult(
        overall_score=overall,
        overall_eval_status=EvalStatus.PASSED if overall >= 1 else EvalStatus.FAILED,
        per_invocation_results=per,
    )


async def always_half(eval_metric, actual_invocations, expected_invocations, conversation_scenario):
    return EvaluationResult(overall_score=0.5, overall_eval_status=EvalStatus.PASSED)
'''


@pytest.fixture
def project(tmp_path: Path) -> Iterator[Path]:
    package = tmp_path / "custom_pkg_x1"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "metrics.py").write_text(METRIC_MODULE)
    yield tmp_path
    for name in [m for m in sys.modules if m.startswith("custom_pkg_x1")]:
        del sys.modules[name]
    sys.path[:] = [p for p in sys.path if p != str(tmp_path)]


def _config(project: Path, custom: dict[str, object]) -> Path:
    config = {
        "criteria": {"tools_per_turn": 1.0, "half": 0.4},
        "custom_metrics": custom,
    }
    path = project / "test_config.json"
    path.write_text(json.dumps(config))
    return path


def test_custom_metrics_run_with_adks_signature(project: Path) -> None:
    config = _config(
        project,
        {
            "tools_per_turn": {"code_config": {"name": "custom_pkg_x1.metrics.tools_per_turn"}, "description": "d"},
            "half": {"code_config": {"name": "custom_pkg_x1.metrics.always_half"}},
        },
    )
    out = project / "out"
    cases = f"{TRACES}:add_recorded,multi_turn_recorded"
    result = CliRunner().invoke(app, ["eval", cases, "--config", str(config), "--output-dir", str(out), "--json"])
    assert result.exit_code == 0, result.output
    document = json.loads(result.stdout)
    [case, *_] = document["evalCaseResults"]
    overall = {m["metricName"]: m for m in case["overallEvalMetricResults"]}
    assert (overall["tools_per_turn"]["score"], overall["tools_per_turn"]["evalStatus"]) == (1.0, "passed")
    assert (overall["half"]["score"], overall["half"]["evalStatus"]) == (0.5, "passed")
    # a case-level-only result leaves the invocations not evaluated
    per = case["evalMetricResultPerInvocation"][0]["evalMetricResults"]
    assert {m["metricName"]: m["evalStatus"] for m in per}["half"] == "not_evaluated"
    seen = sys.modules["custom_pkg_x1.metrics"].SEEN  # type: ignore[attr-defined]
    assert seen[0][:2] == ("tools_per_turn", 1.0)


@pytest.mark.parametrize(
    ("path", "message"),
    [
        ("no_such_pkg_zz.mod.fn", "cannot import 'no_such_pkg_zz.mod.fn' (ModuleNotFoundError: No module named "),
        ("custom_pkg_x1.metrics.nothing", "module custom_pkg_x1.metrics has no function nothing"),
        ("custom_pkg_x1.metrics.SEEN", "'custom_pkg_x1.metrics.SEEN' is not callable"),
        ("justaname", "'justaname' is not a code path of the form package.module.function"),
    ],
)
def test_bad_code_path_is_one_line_exit_2(project: Path, path: str, message: str) -> None:
    config = _config(
        project,
        {
            "tools_per_turn": {"code_config": {"name": path}},
            "half": {"code_config": {"name": "custom_pkg_x1.metrics.always_half"}},
        },
    )
    out = project / "out"
    result = CliRunner().invoke(app, ["eval", str(TRACES), "--config", str(config), "--output-dir", str(out)])
    assert result.exit_code == 2
    [line] = result.stderr.strip().splitlines()
    assert line.startswith(f"error: {config}: custom_metrics.tools_per_turn.code_config.name: tools_per_turn: ")
    assert message in line
    assert not out.exists()
