"""Every ADK eval route, under both prefixes and in both spellings, answered in ADK's JSON shapes.

Shapes are checked with google-adk's own pydantic models: each response must validate and dump back (by alias,
without nulls, as FastAPI answers ADK's routes) to exactly what the server sent.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import pytest

adk_dev = pytest.importorskip("google.adk.cli.dev_server")

from google.adk.evaluation.eval_case import EvalCase as AdkEvalCase  # noqa: E402
from google.adk.evaluation.eval_result import EvalSetResult as AdkEvalSetResult  # noqa: E402
from google.adk.evaluation.eval_set import EvalSet as AdkEvalSet  # noqa: E402

PREFIXES = ["/dev", ""]


def _contained(sent: Any, dumped: Any, path: str = "$", extras: frozenset[str] = frozenset()) -> None:
    """Every key and value the server sent is in ADK's dump (ADK adds only its defaults)."""
    if isinstance(sent, dict):
        assert isinstance(dumped, dict), path
        for key, value in sent.items():
            if key in extras:
                continue
            assert key in dumped, f"{path}.{key} is not a field ADK writes"
            _contained(value, dumped[key], f"{path}.{key}", extras)
    elif isinstance(sent, list):
        assert isinstance(dumped, list) and len(sent) == len(dumped), path
        for i, (a, b) in enumerate(zip(sent, dumped, strict=True)):
            _contained(a, b, f"{path}[{i}]", extras)
    else:
        assert sent == dumped, f"{path}: {sent!r} != {dumped!r}"


def _same_in_adk(model: Any, data: Any, extras: set[str] | None = None) -> None:
    """``data`` validates as ADK's ``model`` and everything in it survives ADK's dump (by alias, without nulls, as
    FastAPI answers ADK's routes): no key is misspelled, dropped or changed."""
    parsed = model.model_validate(data)
    _contained(data, parsed.model_dump(mode="json", by_alias=True, exclude_none=True), extras=frozenset(extras or ()))


async def _chat(client: httpx.AsyncClient, text: str, user: str = "u1") -> str:
    created = await client.post("/apps/calculator/users/" + user + "/sessions", json={})
    assert created.status_code == 200
    session_id: str = created.json()["id"]
    ran = await client.post(
        "/run",
        json={"appName": "calculator", "userId": user, "sessionId": session_id,
              "newMessage": {"role": "user", "parts": [{"text": text}]}},
    )  # fmt: skip
    assert ran.status_code == 200, ran.text
    return session_id


@pytest.mark.parametrize("prefix", PREFIXES)
async def test_list_eval_sets_both_spellings(client: httpx.AsyncClient, prefix: str) -> None:
    current = await client.get(f"{prefix}/apps/calculator/eval-sets")
    _same_in_adk(adk_dev.ListEvalSetsResponse, current.json())
    assert current.json() == {"evalSetIds": ["calculator"]}
    legacy = await client.get(f"{prefix}/apps/calculator/eval_sets")
    assert legacy.json() == ["calculator"]
    assert (await client.get(f"{prefix}/apps/unknown_app/eval-sets")).json() == {"evalSetIds": []}


@pytest.mark.parametrize("prefix", PREFIXES)
async def test_create_eval_set_both_spellings(client: httpx.AsyncClient, data_dir: Path, prefix: str) -> None:
    body = {"eval_set": {"eval_set_id": "new_set", "model_execution_mode": "live", "eval_cases": []}}
    created = await client.post(f"{prefix}/apps/calculator/eval-sets", json=body)
    assert created.status_code == 200, created.text
    _same_in_adk(AdkEvalSet, created.json())
    # ADK's EvalSet has no aliases: its own keys are snake_case (its cases are camelCase).
    assert created.json()["eval_set_id"] == "new_set" and created.json()["eval_cases"] == []
    assert (data_dir / "calculator" / "new_set.evalset.json").is_file()
    again = await client.post(f"{prefix}/apps/calculator/eval-sets", json={"evalSet": {"evalSetId": "new_set"}})
    assert again.status_code == 400 and "already exists" in again.json()["detail"]
    legacy = await client.post(f"{prefix}/apps/calculator/eval_sets/legacy_set")
    assert legacy.status_code == 200 and legacy.json() is None
    assert (data_dir / "calculator" / "legacy_set.evalset.json").is_file()


@pytest.mark.parametrize("prefix", PREFIXES)
async def test_get_and_delete_eval_set(client: httpx.AsyncClient, data_dir: Path, prefix: str) -> None:
    got = await client.get(f"{prefix}/apps/calculator/eval-sets/calculator")
    assert got.status_code == 200
    adk_set = AdkEvalSet.model_validate(got.json())
    assert [c.eval_id for c in adk_set.eval_cases][:2] == ["calc_add", "calc_natural_multiply"]
    await client.post(f"{prefix}/apps/calculator/eval_sets/gone")
    assert (await client.delete(f"{prefix}/apps/calculator/eval-sets/gone")).status_code == 200
    assert not (data_dir / "calculator" / "gone.evalset.json").exists()
    await client.post(f"{prefix}/apps/calculator/eval_sets/gone2")
    assert (await client.delete(f"{prefix}/apps/calculator/eval_sets/gone2")).status_code == 200
    assert (await client.delete(f"{prefix}/apps/calculator/eval_sets/gone2")).status_code == 404


@pytest.mark.parametrize("prefix", PREFIXES)
async def test_list_evals_sorted_and_400_for_a_missing_set(client: httpx.AsyncClient, prefix: str) -> None:
    listed = await client.get(f"{prefix}/apps/calculator/eval_sets/calculator/evals")
    assert listed.json() == sorted(listed.json()) and "calc_add" in listed.json()
    missing = await client.get(f"{prefix}/apps/calculator/eval_sets/nope/evals")
    assert missing.status_code == 400 and missing.json()["detail"] == "Eval set `nope` not found."


@pytest.mark.parametrize("prefix", PREFIXES)
@pytest.mark.parametrize("spelling", ["eval-sets/calculator/eval-cases", "eval_sets/calculator/evals"])
async def test_get_put_delete_case(client: httpx.AsyncClient, prefix: str, spelling: str) -> None:
    url = f"{prefix}/apps/calculator/{spelling}/calc_add"
    got = await client.get(url)
    assert got.status_code == 200
    _same_in_adk(AdkEvalCase, got.json())
    case = got.json()
    case["conversation"][0]["finalResponse"]["parts"][0]["text"] = "calc result: 6"
    put = await client.put(url, json=case)
    assert put.status_code == 200 and put.json() is None
    again = (await client.get(url)).json()
    assert again["conversation"][0]["finalResponse"]["parts"][0]["text"] == "calc result: 6"
    mismatch = await client.put(url, json={**case, "evalId": "other"})
    assert mismatch.status_code == 400 and "should match" in mismatch.json()["detail"]
    assert (
        await client.put(f"{prefix}/apps/calculator/{spelling}/nope", json=case | {"evalId": ""})
    ).status_code == 404
    assert (await client.delete(url)).status_code == 200
    gone = await client.get(url)
    assert gone.status_code == 404 and gone.json()["detail"] == "Eval set `calculator` or Eval `calc_add` not found."
    assert (await client.delete(url)).status_code == 404


@pytest.mark.parametrize("prefix", PREFIXES)
@pytest.mark.parametrize("route", ["eval-sets/calculator/add-session", "eval_sets/calculator/add_session"])
async def test_add_session_makes_a_case(client: httpx.AsyncClient, prefix: str, route: str) -> None:
    session_id = await _chat(client, "calc mul 6 7")
    body = {"evalId": "from_chat", "sessionId": session_id, "userId": "u1"}
    added = await client.post(f"{prefix}/apps/calculator/{route}", json=body)
    assert added.status_code == 200 and added.json() is None
    case = (await client.get(f"{prefix}/apps/calculator/eval_sets/calculator/evals/from_chat")).json()
    _same_in_adk(AdkEvalCase, case)
    turn = case["conversation"][0]
    assert turn["userContent"]["parts"][0]["text"] == "calc mul 6 7"
    assert turn["finalResponse"]["parts"][0]["text"] == "calc result: 42"
    assert turn["intermediateData"]["toolUses"][0]["args"] == {"operation": "mul", "a": 6, "b": 7}
    assert case["sessionInput"] == {"appName": "calculator", "userId": "u1", "state": {}}
    duplicate = await client.post(f"{prefix}/apps/calculator/{route}", json=body)
    assert duplicate.status_code == 400 and "already exists" in duplicate.json()["detail"]
    snake = {"eval_id": "x", "session_id": "missing", "user_id": "u1"}
    assert (await client.post(f"{prefix}/apps/calculator/{route}", json=snake)).status_code == 404


METRICS = [{"metricName": "tool_trajectory_avg_score", "threshold": 1.0}]


@pytest.mark.parametrize("prefix", PREFIXES)
async def test_run_current_spelling(client: httpx.AsyncClient, prefix: str) -> None:
    body = {"evalCaseIds": ["calc_add", "calc_divide"], "evalMetrics": METRICS}
    ran = await client.post(f"{prefix}/apps/calculator/eval-sets/calculator/run", json=body)
    assert ran.status_code == 200, ran.text
    _same_in_adk(adk_dev.RunEvalResponse, ran.json())
    results = ran.json()["runEvalResults"]
    assert [r["evalId"] for r in results] == ["calc_add", "calc_divide"]
    assert [r["finalEvalStatus"] for r in results] == [1, 1]
    first = results[0]
    assert first["evalMetricResults"] == [] and first["overallEvalMetricResults"][0]["score"] == 1.0
    # The run stored one session per case run, which the session route serves.
    session = await client.get(f"/apps/calculator/users/{first['userId']}/sessions/{first['sessionId']}")
    assert session.status_code == 200
    texts = [p.get("text") for e in session.json()["events"] for p in e["content"]["parts"]]
    assert "calc add 2 3" in texts and "calc result: 5" in texts


@pytest.mark.parametrize("prefix", PREFIXES)
async def test_run_eval_legacy_spelling(client: httpx.AsyncClient, prefix: str) -> None:
    body = {"eval_ids": ["calc_add"], "eval_metrics": [{"metric_name": "response_match_score", "threshold": 0.8}]}
    ran = await client.post(f"{prefix}/apps/calculator/eval_sets/calculator/run_eval", json=body)
    assert ran.status_code == 200, ran.text
    assert isinstance(ran.json(), list)
    for item in ran.json():
        _same_in_adk(adk_dev.RunEvalResult, item)
    assert [r["evalId"] for r in ran.json()] == ["calc_add"]


async def test_run_errors(client: httpx.AsyncClient) -> None:
    missing = await client.post("/dev/apps/calculator/eval-sets/nope/run", json={"evalMetrics": METRICS})
    assert missing.status_code == 400 and missing.json()["detail"] == "Eval set `nope` not found."
    unknown = await client.post(
        "/dev/apps/calculator/eval-sets/calculator/run", json={"evalMetrics": [{"metricName": "no_such_metric"}]}
    )
    assert unknown.status_code == 400
    assert "unknown metric 'no_such_metric'" in unknown.json()["detail"]
    assert "tool_trajectory_avg_score" in unknown.json()["detail"]


@pytest.mark.parametrize("prefix", PREFIXES)
async def test_eval_results_both_spellings(client: httpx.AsyncClient, prefix: str) -> None:
    assert (await client.get(f"{prefix}/apps/calculator/eval-results")).json() == {"evalResultIds": []}
    await client.post(
        "/dev/apps/calculator/eval-sets/calculator/run", json={"evalCaseIds": ["calc_add"], "evalMetrics": METRICS}
    )
    listed = await client.get(f"{prefix}/apps/calculator/eval-results")
    _same_in_adk(adk_dev.ListEvalResultsResponse, listed.json())
    (result_id,) = listed.json()["evalResultIds"]
    assert (await client.get(f"{prefix}/apps/calculator/eval_results")).json() == [result_id]
    for spelling in ("eval-results", "eval_results"):
        got = await client.get(f"{prefix}/apps/calculator/{spelling}/{result_id}")
        assert got.status_code == 200
        # ADK ignores keys it lacks; agentgauge adds the multi-run summary and each case's run number.
        _same_in_adk(AdkEvalSetResult, got.json(), extras={"summary", "runId"})
        parsed = AdkEvalSetResult.model_validate(got.json())
        assert parsed.eval_set_result_id == result_id
        assert got.json()["evalCaseResults"][0]["finalEvalStatus"] == 1
        assert parsed.eval_case_results[0].final_eval_status.value == 1
    missing = await client.get(f"{prefix}/apps/calculator/eval-results/nope")
    assert missing.status_code == 404


@pytest.mark.parametrize("prefix", PREFIXES)
async def test_metrics_info(client: httpx.AsyncClient, prefix: str) -> None:
    info = await client.get(f"{prefix}/apps/calculator/metrics-info")
    _same_in_adk(adk_dev.ListMetricsInfoResponse, info.json())
    by_name = {m["metricName"]: m for m in info.json()["metricsInfo"]}
    assert by_name["response_evaluation_score"]["metricValueInfo"]["interval"]["maxValue"] == 5.0
    assert by_name["tool_trajectory_avg_score"]["metricValueInfo"]["interval"] == {
        "minValue": 0.0, "openAtMin": False, "maxValue": 1.0, "openAtMax": False,
    }  # fmt: skip


async def test_shell_routes(client: httpx.AsyncClient) -> None:
    from google.adk.cli.api_server import ListAppsResponse

    assert (await client.get("/health")).json() == {"status": "ok"}
    version = (await client.get("/version")).json()
    assert version["language"] == "python" and version["version"]
    assert (await client.get("/list-apps")).json() == ["calculator"]
    detailed = (await client.get("/list-apps?detailed=true")).json()
    assert ListAppsResponse.model_validate(detailed).apps[0].name == "calculator"
    info = (await client.get("/apps/calculator/app-info")).json()
    assert (info["name"], info["hasAgent"], info["evalSets"]) == ("calculator", True, ["calculator"])
    assert (await client.get("/apps/nope/app-info")).status_code == 404
