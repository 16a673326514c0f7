"""``agentgauge diff RUN_A RUN_B [CASE]``: results, eval sets (golden conversations) and traces; side by side,
``--json``, exit codes and bad input."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from agentgauge.cli import app

ROOT = Path(__file__).resolve().parents[2]
REPLAY = ROOT / "examples" / "replay"


def _diff(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(app, ["diff", *args])
    return result.exit_code, result.output


def test_two_results_side_by_side_with_the_fork_marked() -> None:
    code, out = _diff(str(REPLAY / "replayed.evalset_result.json"), str(REPLAY / "swapped.evalset_result.json"))
    assert code == 1
    assert "product_then_sum (run 1 -> run 1): first divergence at turn 2, step 1 (step 3): different arguments" in out
    fork = next(line for line in out.splitlines() if line.startswith(">> "))
    assert fork.startswith(">> 2.1") and 'calculator({"a":42,"b":8,"operation":"add"})' in fork and " ~ " in fork
    assert "1 of 1 case(s) diverged" in out


def test_same_run_does_not_diverge_and_json_has_the_aligned_steps() -> None:
    code, out = _diff(
        str(REPLAY / "recorded.evalset_result.json"), str(REPLAY / "replayed.evalset_result.json"), "--json"
    )
    assert code == 0
    [doc] = json.loads(out)
    assert doc["firstDivergence"] is None and doc["evalId"] == "product_then_sum"
    assert [s["op"] for s in doc["steps"]] == ["match"] * 5


def test_a_run_against_its_golden_conversation() -> None:
    code, out = _diff(
        str(REPLAY / "calculator_replay.evalset.json"), str(REPLAY / "swapped.evalset_result.json"), "product_then_sum"
    )
    assert code == 1
    assert "(golden conversation -> run 1)" in out and "different arguments" in out


def test_traces_against_traces_and_a_case_named_on_one_side_only(tmp_path: Path) -> None:
    trace = ROOT / "examples" / "traces" / "adk_weather.otlp.jsonl"
    code, out = _diff(str(trace), str(trace))
    assert code == 0 and "no divergence" in out
    other = ROOT / "examples" / "traces" / "openai_weather.otlp.jsonl"
    code, out = _diff(str(trace), str(other))
    assert code == 1 and "the only case of each side paired" in out and "different arguments" in out
    code, out = _diff(str(REPLAY / "recorded.evalset_result.json"), str(trace), "product_then_sum")
    assert code == 2 and "is not in RUN_B" in out
    missing = _diff(str(tmp_path / "nope.json"), str(trace))
    assert missing[0] == 2 and "error:" in missing[1]
