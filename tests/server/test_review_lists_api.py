"""The case list, the cases of a result and the history, answered from result digests: the same rows as the full
parse gives, in the answers' documented shape, read again when a result file changes, and a damaged file is
skipped (lists) or a 4xx naming it (the result's own cases), never a 5xx."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from agentgauge.formats import load_result
from agentgauge.model import EvalStatus
from agentgauge.reporting import build_view
from agentgauge.server import ServerConfig, create_app
from agentgauge.server._answers import CaseListAnswer
from agentgauge.server._trends import HistoryAnswer
from agentgauge.summary import short_reason

API = "/api/apps/shop"


def _metric(score: float, reason: str) -> dict[str, Any]:
    status = "passed" if score >= 0.5 else "failed"
    return {"metricName": "m", "score": score, "evalStatus": status, "threshold": 0.5, "details": {"reason": reason}}


def _case(eval_id: str, run: int, score: float | None, *, error: str | None = None) -> dict[str, Any]:
    turn = {"actualInvocation": {"userContent": {"role": "user", "content": f"question about {eval_id}"}}}
    case: dict[str, Any] = {"evalId": eval_id, "runId": run, "evalMetricResultPerInvocation": [turn]}
    if error is not None:
        case.update(finalEvalStatus="error", errorMessage=error)
    elif score is not None:
        metric = _metric(score, f"{eval_id} scored {score}")
        turn["evalMetricResults"] = [metric]
        case.update(finalEvalStatus=metric["evalStatus"], overallEvalMetricResults=[metric])
    return case


def _adk_case(eval_id: str, passed: bool) -> dict[str, Any]:
    metric = {"metric_name": "m", "score": 1 if passed else 0, "eval_status": 1 if passed else 2, "threshold": None}
    metric["criterion"] = {"threshold": 0.5}
    invocation = {"user_content": {"role": "user", "parts": [{"text": f"adk {eval_id}"}]}, "intermediate_data": {}}
    return {
        "eval_id": eval_id,
        "final_eval_status": 1 if passed else 2,
        "overall_eval_metric_results": [metric],
        "eval_metric_result_per_invocation": [{"actual_invocation": invocation, "eval_metric_results": [metric]}],
    }


def _write(path: Path, cases: list[dict[str, Any]], when: float, **top: Any) -> None:
    path.write_text(json.dumps({"evalSetId": "cart", "creationTimestamp": when, "evalCaseResults": cases, **top}))


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[TestClient, Path]]:
    """App ``shop``, eval set ``cart`` (cases a–e, e never run), an older native result, the newest one with a
    failed, an errored and a two-run case, and an ADK snake_case result in the app's eval history."""
    evals = tmp_path / "evals" / "shop"
    evals.mkdir(parents=True)
    cases = [
        {"evalId": i, "conversation": [{"userContent": {"role": "user", "content": f"set text {i}"}}]} for i in "abcde"
    ]
    cases[1]["conversation"] = []  # no text in the set: the result's first user message is shown
    (evals / "cart.evalset.json").write_text(json.dumps({"evalSetId": "cart", "evalCases": cases}))
    results = tmp_path / "data" / "results" / "shop"
    results.mkdir(parents=True)
    _write(
        results / "old.evalset_result.json",
        [_case(i, 1, 1.0) for i in "abcd"],
        100.0,
        runMetadata={"labels": {"env": "dev"}},
    )
    newest = [_case("a", 1, 0.9), _case("b", 1, 0.1), _case("c", 1, None, error="agent crashed")]
    newest += [_case("d", 1, 1.0), _case("d", 2, 0.2)]
    _write(
        results / "new.evalset_result.json", newest, 300.0, runMetadata={"labels": {"env": "prod"}, "gitBranch": "main"}
    )
    history = evals / ".adk" / "eval_history"
    history.mkdir(parents=True)
    adk = {
        "eval_set_result_id": "adk",
        "eval_set_id": "cart",
        "creation_timestamp": 200,
        "eval_case_results": [_adk_case("a", True), _adk_case("b", False)],
    }
    (history / "adk_run.evalset_result.json").write_text(json.dumps(adk))
    with TestClient(create_app(ServerConfig(data_dir=tmp_path / "data", evals_dir=tmp_path / "evals"))) as client:
        yield client, tmp_path


def _ok(answer: Any) -> Any:
    assert answer.status_code == 200, answer.text
    return answer.json()


def _expected_rows(path: Path, result_id: str) -> dict[str, dict[str, Any]]:
    """The rows of a result as every report gives its cases (the view of the full parse): each case's status over
    its runs with the rule's words, its first reason, and the turns and text of its first run that did not pass."""
    result = load_result(path)
    rows = {}
    for case in build_view(result).cases:
        runs = [r for r in result.eval_case_results if r.eval_id == case.eval_id]
        shown = min([r for r in runs if r.final_eval_status is not EvalStatus.PASSED] or runs, key=lambda r: r.run_id)
        turns = shown.eval_metric_result_per_invocation
        text = turns[0].actual_invocation.user_content.content if turns else ""
        words = "\n".join(t.actual_invocation.user_content.content for t in turns)
        short = short_reason(case.reason) if case.reason else None
        rows[case.eval_id] = {
            "evalId": case.eval_id,
            "status": case.status.value,
            "statusText": case.status_text,
            "reason": case.reason,
            "reasonShort": short if short != case.reason else None,
            "turns": len(turns),
            "text": text,
            "search": words if words != text else None,
            "runs": case.runs,
            "runsPassed": case.runs_passed,
            "resultId": result_id,
        }
    return rows


def test_the_case_lists_are_the_rows_of_the_full_parse(served: tuple[TestClient, Path]) -> None:
    client, root = served
    new = root / "data" / "results" / "shop" / "new.evalset_result.json"
    expected = _expected_rows(new, "new")
    answer = _ok(client.get(f"{API}/results/new/cases"))
    assert CaseListAnswer.model_validate(answer).model_dump(by_alias=True) == answer
    assert answer["cases"] == list(expected.values())
    assert expected["b"]["reason"] == "m (invocation 1): score 0.1 < threshold 0.5: b scored 0.1"
    # d passed one of its two runs: the mean of its scores (0.6) passes the threshold (0.5), as every report says.
    assert (expected["c"]["reason"], expected["d"]["status"], expected["d"]["runs"]) == (
        "error: agent crashed",
        "passed",
        2,
    )
    assert expected["d"]["statusText"] == "passed (1/2 runs passed; rule: mean of runs ≥ threshold)"
    listed = _ok(client.get(f"{API}/eval-sets/cart/case-list"))
    assert CaseListAnswer.model_validate(listed).model_dump(by_alias=True) == listed
    assert listed["resultId"] == "new"  # the newest result of the set
    rows = {r["evalId"]: r for r in listed["cases"]}
    assert [r["evalId"] for r in listed["cases"]] == list("abcde")  # the set's order
    for eval_id in "acd":  # the set's turns and text win
        assert rows[eval_id] == {**expected[eval_id], "text": f"set text {eval_id}", "turns": 1}
    assert rows["b"] == expected["b"]  # no text in the set: the result's
    assert rows["e"] == {
        "evalId": "e",
        "status": None,
        "statusText": None,
        "reason": None,
        "reasonShort": None,
        "turns": 1,
        "text": "set text e",
        "search": None,
        "runs": 0,
        "runsPassed": 0,
        "resultId": None,
    }
    adk = _ok(client.get(f"{API}/results/adk_run/cases"))["cases"]
    assert [(r["evalId"], r["status"], r["reason"], r["text"]) for r in adk] == [
        ("a", "passed", None, "adk a"),
        ("b", "failed", "m (invocation 1): score 0 < threshold 0.5", "adk b"),
    ]


def test_the_history_is_every_result_in_its_documented_shape(served: tuple[TestClient, Path]) -> None:
    client, _ = served
    answer = _ok(client.get(f"{API}/eval-sets/cart/history"))
    assert HistoryAnswer.model_validate(answer).model_dump(by_alias=True) == answer
    assert [r["resultId"] for r in answer["runs"]] == ["old", "adk_run", "new"]  # oldest first
    assert answer["cases"] == list("abcde")
    assert answer["matrix"] == ["PPPP-", "PF---", "PFEP-"]  # each case's status over its runs
    old, adk, new = answer["runs"]
    assert (old["passRate"], old["metadata"], old["source"]) == (1.0, {"env": "dev"}, "data dir")
    assert (adk["passRate"], adk["metricMeans"], adk["source"]) == (0.5, {"m": 0.5}, "ADK eval history")
    assert (new["passed"], new["total"], new["failedCases"]) == (2, 5, 2)  # case runs, then cases
    assert (new["passedCases"], new["cases"]) == (2, 4)
    assert new["metadata"] == {"env": "prod", "git branch": "main"}
    assert new["metricMeans"] == pytest.approx({"m": (0.9 + 0.1 + 1.0 + 0.2) / 4})
    limited = _ok(client.get(f"{API}/eval-sets/cart/history?limit=1"))
    assert ([r["resultId"] for r in limited["runs"]], limited["truncated"]) == (["new"], 2)


def test_a_changed_result_file_changes_the_lists(served: tuple[TestClient, Path]) -> None:
    client, root = served
    new = root / "data" / "results" / "shop" / "new.evalset_result.json"
    assert _ok(client.get(f"{API}/eval-sets/cart/case-list"))["cases"][0]["status"] == "passed"
    replaced = new.with_suffix(".tmp")
    _write(replaced, [_case("a", 1, 0.3)], 300.0)
    os.replace(replaced, new)  # as every writer of agentgauge replaces a file
    rows = _ok(client.get(f"{API}/eval-sets/cart/case-list"))["cases"]
    assert (rows[0]["status"], rows[0]["reason"]) == (
        "failed",
        "m (invocation 1): score 0.3 < threshold 0.5: a scored 0.3",
    )
    assert rows[1]["status"] is None  # b is not in the new version
    assert _ok(client.get(f"{API}/eval-sets/cart/history"))["matrix"][-1] == "F----"


def test_a_damaged_result_is_skipped_by_the_lists_and_a_4xx_when_opened(served: tuple[TestClient, Path]) -> None:
    client, root = served
    (root / "data" / "results" / "shop" / "new.evalset_result.json").write_text(
        '{"evalSetId": "cart", "evalCaseResults": {'
    )
    listed = _ok(client.get(f"{API}/eval-sets/cart/case-list"))
    assert listed["resultId"] == "adk_run"  # the newest readable result
    assert [r["resultId"] for r in _ok(client.get(f"{API}/eval-sets/cart/history"))["runs"]] == ["old", "adk_run"]
    broken = client.get(f"{API}/results/new/cases")
    assert 400 <= broken.status_code < 500 and "new.evalset_result.json" in broken.text
    for bad in ("..%2F..%2Fetc", "a%00b"):
        assert 400 <= client.get(f"{API}/results/{bad}/cases").status_code < 500


def test_cases_a_run_could_not_run_are_listed_with_why(served: tuple[TestClient, Path]) -> None:
    # A trace run that found no trace for case e: the result counts it apart (summary.casesNotRun).
    client, root = served
    path = root / "data" / "results" / "shop" / "traced.evalset_result.json"
    summary = {"overallStatus": "passed", "numRuns": 1, "casesNotRun": [{"evalId": "e", "reason": "no trace"}]}
    _write(path, [_case(i, 1, 1.0) for i in "abcd"], 400.0, evalSetResultId="traced", summary=summary)
    from agentgauge.server._cache import file_key
    from agentgauge.server._digest import digest_of_result
    from agentgauge.server._digest_index import IndexedDigest
    from agentgauge.server._digest_read import read_digest

    light = read_digest(path)
    assert light.not_run == digest_of_result(load_result(path)).not_run == (("e", "no trace"),)
    assert IndexedDigest.of(file_key(path), light).digest().not_run == light.not_run  # kept across a restart
    [row] = [r for r in _ok(client.get(f"{API}/results")) if r["evalSetResultId"] == "traced"]
    assert (row["counts"]["passed"], row["notRun"]) == (4, 1)
    listed = _ok(client.get(f"{API}/eval-sets/cart/case-list"))
    assert listed["resultId"] == "traced"
    [e] = [c for c in listed["cases"] if c["evalId"] == "e"]
    assert (e["status"], e["reason"], e["statusText"]) == (None, "not run: no trace", "not run: no trace")
    cases = _ok(client.get(f"{API}/results/traced/cases"))["cases"]
    assert [c["evalId"] for c in cases] == ["a", "b", "c", "d", "e"] and cases[-1]["reason"] == "not run: no trace"
