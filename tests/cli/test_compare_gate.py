"""Gates that honour the statistics, end to end: two runs of a deterministic flaky agent (5 runs per case) compared do
not fail, a real regression (a case going 5/5 -> 0/5) still does, under ``compare`` and ``eval --baseline``, with
each ``--fail-on`` rule and ``--alpha``."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from agentgauge.cli import app

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
FLAKY = str(EXAMPLES / "compare" / "flaky_agent.py")
GOOD = str(EXAMPLES / "calculator" / "agent.py")
BROKEN = str(EXAMPLES / "compare" / "broken_agent.py")
EVALSET = str(EXAMPLES / "calculator" / "calculator.evalset.json")
FAST = ["--bootstrap-resamples", "0"]


def _invoke(*args: str, seed: str | None = None) -> tuple[int, str]:
    env = {"FLAKY_SEED": seed} if seed is not None else {}
    ran = CliRunner().invoke(app, list(args), env=env)
    return ran.exit_code, ran.output


def _run(tmp: Path, name: str, agent: str, seed: str | None = None) -> Path:
    """``eval`` of ``agent`` with five runs per case; the saved result file."""
    out = tmp / name
    code, output = _invoke("eval", agent, EVALSET, "--num-runs", "5", "--output-dir", str(out), *FAST, seed=seed)
    assert code in (0, 1), output
    (path,) = out.glob("calculator/*.evalset_result.json")
    return path


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Two runs of the flaky agent (seeds 1 and 2: its first runs under them in this process), the calculator and
    the calculator with a bug, five runs per case each."""
    tmp = tmp_path_factory.mktemp("gate")
    return {
        "flaky1": _run(tmp, "flaky1", FLAKY, "1"),
        "flaky2": _run(tmp, "flaky2", FLAKY, "2"),
        "good": _run(tmp, "good", GOOD),
        "broken": _run(tmp, "broken", BROKEN),
    }


def test_two_runs_of_the_flaky_agent_are_noise_not_a_regression(runs: dict[str, Path]) -> None:
    code, output = _invoke("compare", str(runs["flaky1"]), str(runs["flaky2"]), *FAST)
    assert code == 0, output
    lines = output.splitlines()
    assert lines[-1] == "no regression: 4 within noise, 1 still failing, 1 still passing"
    assert lines[-3].startswith("Gate: passed (--fail-on broken, alpha 0.05): fails when a case broke")
    assert lines[-2] == (
        "Within noise: 4 cases (the status flipped, but the pass rate's change may be chance at 0.05; never broken): "
        "calc_add (passed -> failed, 5/5 -> 3/5), calc_subtract_from (failed -> passed, 4/5 -> 5/5), calc_divide "
        "(failed -> passed, 4/5 -> 5/5), calc_multi_turn (passed -> failed, 5/5 -> 3/5)"
    )
    assert "  calc_add (Fisher exact test, runs): p = 0.444, 5/5 runs passed before, 3/5 now; not significant" in output
    code, text = _invoke("compare", str(runs["flaky1"]), str(runs["flaky2"]), *FAST, "--json")
    doc = json.loads(text[text.index("{\n") :])
    assert doc["gate"]["failed"] is False and doc["regressed"] is False and doc["alpha"] == 0.05
    flips = {c["evalId"]: (c["baseStatus"], c["newStatus"]) for c in doc["cases"] if c["change"] == "within_noise"}
    assert flips["calc_add"] == ("passed", "failed")  # a status flip that used to read "broken"


@pytest.mark.parametrize(
    ("rule", "noise", "regression"),
    [("broken", 0, 1), ("significant", 0, 1), ("any-change", 1, 1), ("never", 0, 0)],
)
def test_each_fail_on_rule(runs: dict[str, Path], rule: str, noise: int, regression: int) -> None:
    code, output = _invoke("compare", str(runs["flaky1"]), str(runs["flaky2"]), *FAST, "--fail-on", rule)
    assert code == noise, output
    assert f"(--fail-on {rule}, alpha 0.05)" in output
    code, output = _invoke("compare", str(runs["good"]), str(runs["broken"]), *FAST, "--fail-on", rule)
    assert code == regression, output


def test_a_real_regression_still_fails(runs: dict[str, Path]) -> None:
    code, output = _invoke("compare", str(runs["good"]), str(runs["broken"]), *FAST)
    assert code == 1, output
    lines = output.splitlines()
    assert lines[-1] == "REGRESSED: 2 broken, 4 still passing"
    gate = lines.index(next(line for line in lines if line.startswith("Gate: FAILED (--fail-on broken, alpha 0.05)")))
    assert lines[gate + 1 : gate + 3] == [
        "  calc_natural_multiply: passed -> failed, 5/5 -> 0/5 runs passed (Fisher's exact test p = 0.00794)",
        "  calc_multi_turn: passed -> failed, 5/5 -> 0/5 runs passed (Fisher's exact test p = 0.00794)",
    ]
    # At alpha 0.005 a 5/5 -> 0/5 drop may be chance: the same flips are noise.
    code, output = _invoke("compare", str(runs["good"]), str(runs["broken"]), *FAST, "--alpha", "0.005")
    assert code == 0 and output.splitlines()[-1] == "no regression: 2 within noise, 4 still passing", output


def test_bad_rule_or_alpha_exit_2_with_one_line(runs: dict[str, Path]) -> None:
    pair = [str(runs["good"]), str(runs["broken"])]
    for extra, message in (
        (
            ["--fail-on", "brokn"],
            "error: --fail-on: unknown rule 'brokn'; choose broken, significant, any-change, never",
        ),
        (["--alpha", "0"], "error: --alpha must be between 0 and 1 (exclusive), got 0"),
        (["--alpha", "nan"], "error: --alpha must be between 0 and 1 (exclusive), got nan"),
    ):
        code, output = _invoke("compare", *pair, *extra)
        assert (code, output) == (2, message + "\n")


def _eval(*args: str, seed: str | None = None) -> tuple[int, str]:
    return _invoke("eval", *args, "--num-runs", "5", *FAST, seed=seed)


def test_eval_baseline_gates_on_a_believed_change(runs: dict[str, Path], tmp_path: Path) -> None:
    out = ["--output-dir", str(tmp_path)]
    base = ["--baseline", str(runs["flaky1"])]
    # A third day of the flaky agent (seed 3): two flips down, one up, all within noise. Cases fail (exit 1) ...
    code, output = _eval(FLAKY, EVALSET, *base, *out, seed="3")
    assert code == 1, output
    assert "Compared with calculator_calculator_" in output and ": 0 fixed, 0 broken, 3 within noise" in output
    assert "Gate:" not in output  # without --fail-on the exit code is the cases'
    # ... but the comparison does not fail the gate (seed 4: its first run in this process).
    code, output = _eval(FLAKY, EVALSET, *base, *out, "--fail-on", "broken", seed="4")
    assert code == 0, output
    assert "  Gate: passed (--fail-on broken, alpha 0.05): fails when a case broke" in output
    assert "  Within noise: 2 cases" in output
    # --fail-on-regression is --fail-on broken; --fail-on any-change fails on those flips.
    code, output = _eval(FLAKY, EVALSET, *base, *out, "--fail-on-regression", seed="5")
    assert code == 0 and "Gate: passed (--fail-on broken" in output, output
    code, output = _eval(FLAKY, EVALSET, *base, *out, "--fail-on", "any-change", seed="6")
    assert code == 1 and "Gate: FAILED (--fail-on any-change" in output, output
    # A real regression against the calculator's five runs.
    code, output = _eval(BROKEN, EVALSET, "--baseline", str(runs["good"]), *out, "--fail-on", "broken")
    assert code == 1, output
    assert ": 0 fixed, 2 broken" in output and "  broken: calc_natural_multiply: " in output
    assert "  Gate: FAILED (--fail-on broken, alpha 0.05)" in output
    assert "  calc_natural_multiply: passed -> failed, 5/5" not in output  # the broken cases are listed once


def test_eval_gate_options_are_checked_before_anything_runs(tmp_path: Path) -> None:
    out = tmp_path / "out"
    for args, message in (
        (["--fail-on", "broken"], "--fail-on needs --baseline RESULT_ID_OR_FILE"),
        (["--fail-on-regression"], "--fail-on-regression needs --baseline RESULT_ID_OR_FILE"),
        (["--baseline", EVALSET, "--fail-on", "nope"], "--fail-on: unknown rule 'nope'"),
        (
            ["--baseline", EVALSET, "--fail-on", "never", "--fail-on-regression"],
            "--fail-on-regression is --fail-on broken: it cannot be given with --fail-on never",
        ),
        (["--baseline", EVALSET, "--alpha", "1"], "--alpha must be between 0 and 1 (exclusive), got 1"),
    ):
        code, output = _invoke("eval", GOOD, EVALSET, "--output-dir", str(out), *args)
        assert code == 2 and re.match(rf"error: {re.escape(message)}", output), (args, output)
        assert not out.exists()
