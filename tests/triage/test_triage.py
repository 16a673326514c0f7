"""Failure triage: reason templates, signatures, clusters ranked by count x cost, merging, candidate cases that
load with their format's own tool, and the ``triage`` command."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from typer.testing import CliRunner

from agentgauge.cli import app
from agentgauge.formats import load_eval_set, load_result, save_result
from agentgauge.model import CaseStatusRule, EvalSetResult, EvalSetResultSummary, EvalStatus
from agentgauge.triage import candidate_cases, reason_template, triage_result

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "benchmarks"))
from triage_bench import adjusted_rand_index, generate, measure  # noqa: E402


@pytest.mark.parametrize(
    ("reason", "template"),
    [
        (
            "arguments mismatch: actual 'Lyon' != expected 'Paris' at $.city",
            "arguments mismatch: actual <q> != expected <q> at $.city",
        ),
        ('text mismatch: "The total is 42." vs "43"', "text mismatch: <q> vs <q>"),
        (
            "agent failed on invocation 2 of 3 (0b7c9e1e-5a0f-4c53-9f8a-0f5b1c2d3e4f): upstream 504 after 31.5 s",
            "agent failed on invocation <n> of <n> (<id>): upstream <n> after <n> s",
        ),
        ("tool call_1_2 failed for trace 9e43e9f89a84de12 and req-42", "tool <id> failed for trace <id> and <id>"),
        ("score -0.25 < threshold 1e-3\nsecond line ignored", "score <n> < threshold <n>"),
        ("   spaced    out   ", "spaced out"),
        ("", ""),
    ],
)
def test_reason_templates(reason: str, template: str) -> None:
    assert reason_template(reason) == template


def test_planted_causes_are_recovered() -> None:
    figures = measure(seed=5)
    assert figures["failing"] == 300 and figures["runs"] == 500
    assert figures["clusters"] == 7  # the judge's two wordings of one verdict stay apart ...
    assert figures["adjusted_rand_index"] >= 0.9 and figures["top6_coverage"] >= 0.95
    merged = measure(seed=5, merge=0.9)  # ... until merged by similarity
    assert (merged["clusters"], merged["adjusted_rand_index"], merged["top6_coverage"]) == (6, 1.0, 1.0)
    assert adjusted_rand_index(["a", "a", "b"], ["x", "x", "y"]) == 1.0
    assert adjusted_rand_index(["a", "a", "b", "b"], ["x", "y", "x", "y"]) < 0


def test_clusters_rank_by_count_times_cost_and_merge_by_similarity() -> None:
    result, _ = generate(seed=3)
    found = triage_result(result)
    weights = [c.weight for c in found.clusters]
    assert weights == sorted(weights, reverse=True)
    assert [c.rank for c in found.clusters] == list(range(1, 8))
    biggest = found.clusters[0]
    assert biggest.example.eval_id in {m.eval_id for m in biggest.members}
    merged = triage_result(result, merge=0.9)
    [joined] = [c for c in merged.clusters if c.merged]
    assert joined.metric == "hallucinations_v1" and len(joined.merged) == 1
    # The missing-call and extra-call clusters read alike but differ in divergence and tool: never merged.
    assert sum(1 for c in merged.clusters if c.template == "tool count mismatch: actual <n> != expected <n>") == 2
    assert sum(c.size for c in merged.clusters) == merged.failing == 300
    assert len(triage_result(result, merge=0.0).clusters) == 6


def test_candidates_load_with_google_adk_and_the_command_appends_in_the_set_format(tmp_path: Path) -> None:
    result, _ = generate(seed=5)
    source = tmp_path / "planted.evalset_result.json"
    save_result(result, source)
    cases = candidate_cases(triage_result(result), result)
    assert len(cases) == 6  # the upstream timeouts have no turn to make a case of
    assert all(c.model_extra and c.model_extra["review"]["status"] == "candidate" for c in cases)

    runner = CliRunner()
    adk_target = tmp_path / "regressions.evalset.json"
    done = runner.invoke(app, ["triage", str(source), "--to-evalset", str(adk_target), "--to", "adk"])
    assert done.exit_code == 0, done.output
    assert "#1  90 run(s) (30%)" in done.output and "wrote 6 candidate case(s)" in done.output
    from google.adk.evaluation.eval_set import EvalSet as AdkEvalSet

    adk = AdkEvalSet.model_validate(json.loads(adk_target.read_text()))
    assert len(adk.eval_cases) == 6 and adk.eval_cases[0].eval_id.startswith("triage_1_")
    again = runner.invoke(app, ["triage", str(source), "--to-evalset", str(adk_target), "--json"])
    assert again.exit_code == 0 and json.loads(again.stdout)["failing"] == 300
    assert "eval_cases" in json.loads(adk_target.read_text())  # still ADK's form, 6 cases more
    ids = [c.eval_id for c in load_eval_set(adk_target).eval_cases]
    assert len(ids) == 12 and len(set(ids)) == 12 and ids[6].endswith("_2")


def test_bad_triage_input_exits_2(tmp_path: Path) -> None:
    runner = CliRunner()
    eval_set = ROOT / "examples" / "replay" / "calculator.evalset.json"
    assert "an eval set, not a result" in runner.invoke(app, ["triage", str(eval_set)]).output
    bad = runner.invoke(
        app, ["triage", str(ROOT / "examples" / "replay" / "swapped.evalset_result.json"), "--merge", "2"]
    )
    assert bad.exit_code == 2 and "--merge must be between 0 and 1" in bad.output
    missing = runner.invoke(app, ["triage", str(tmp_path / "none.json")])
    assert missing.exit_code == 2


@given(st.text(max_size=300))
def test_templates_are_stable_and_keep_no_particulars(text: str) -> None:
    once = reason_template(text)
    assert reason_template(once) == once  # a template is its own template: signatures do not drift
    assert not any(c in "0123456789" for c in once)  # numbers are <n>, ids <id> (a lone quote stays a quote)
    assert "\n" not in once and len(once) <= 240


def test_recorded_traces_are_scored_then_triaged() -> None:
    traces = ROOT / "examples" / "traces"
    runner = CliRunner()
    scored = runner.invoke(
        app,
        [
            "triage",
            str(traces / "openai_weather.otlp.jsonl"),
            "--eval-set",
            f"{traces / 'weather.evalset.json'}:weather_two_cities",
            "--json",
        ],
    )
    assert scored.exit_code == 0, scored.output
    found = json.loads(scored.stdout)
    assert (found["runs"], found["failing"]) == (1, 1)
    [cluster] = found["clusters"]
    assert (cluster["metric"], cluster["divergence"], cluster["tool"]) == (
        "tool_trajectory_avg_score",
        "different_arguments",
        "get_weather",
    )
    clean = runner.invoke(app, ["triage", str(traces), "--eval-set", str(traces / "weather.evalset.json")])
    assert clean.exit_code == 0 and "0 failing case(s) of 2 in 0 cluster(s)" in clean.output
    result = ROOT / "examples" / "replay" / "swapped.evalset_result.json"
    mixed = runner.invoke(app, ["triage", str(result), "--eval-set", str(traces / "weather.evalset.json")])
    assert mixed.exit_code == 2 and "score recorded traces, not a saved result" in mixed.output


def test_failing_cases_follow_the_runs_case_status_rule() -> None:
    planted = load_result(ROOT / "examples" / "replay" / "planted.evalset_result.json")
    failed = next(r for r in planted.eval_case_results if r.final_eval_status is EvalStatus.FAILED)
    passed = next(r for r in planted.eval_case_results if r.final_eval_status is EvalStatus.PASSED)
    runs = {"flaky_pass": (failed, passed, passed), "flaky_fail": (failed, failed, passed), "steady": (passed,) * 3}
    result = EvalSetResult(
        eval_set_result_id="r",
        eval_set_id="s",
        eval_case_results=[
            run.model_copy(update={"eval_id": case, "run_id": number})
            for case, case_runs in runs.items()
            for number, run in enumerate(case_runs, start=1)
        ],
        summary=EvalSetResultSummary(num_runs=3, case_status_rule=CaseStatusRule.MAJORITY),
    )
    found = triage_result(result)
    assert (found.cases, found.failing_cases, found.runs, found.failing) == (3, 1, 9, 2)
    assert {m.eval_id for c in found.clusters for m in c.members} == {"flaky_fail"}  # flaky_pass passed by majority
    assert found.headline == "1 failing case(s) of 3 (2 failing run(s) of 9) in 1 cluster(s)"
