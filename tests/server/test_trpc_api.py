"""trpc-agent-go's evaluation service on ``serve --trpc-api``: every route's good and bad requests, their answers
validated against the service's published schemas (``data/trpc_evaluation_schemas.json``, transcribed from its
``openapi.yaml``), a ``POST /runs`` round trip whose result the schemas accept and ``GET /results/{id}`` gives
back, and the server's own rules (Host, token, body size) in front of it."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import jsonschema
import pytest

from agentgauge.errors import InputError
from agentgauge.server import ServerConfig, create_app

SCHEMAS = json.loads((Path(__file__).parent / "data" / "trpc_evaluation_schemas.json").read_text())
BASE = "/evaluation"

# The answer schema of each route and status, as openapi.yaml's paths give them.
ROUTES: dict[tuple[str, str, int], str] = {
    ("GET", "/sets", 200): "ListSetsResponse",
    ("GET", "/sets/{setId}", 200): "GetSetResponse",
    ("GET", "/metrics", 200): "ListMetricsResponse",
    ("POST", "/metrics", 201): "MetricResponse",
    ("GET", "/metrics/{metricName}", 200): "MetricResponse",
    ("PUT", "/metrics/{metricName}", 200): "MetricResponse",
    ("POST", "/runs", 201): "CreateRunResponse",
    ("GET", "/results", 200): "ListResultsResponse",
    ("GET", "/results/{resultId}", 200): "GetResultResponse",
}
ERROR_STATUSES = {
    ("GET", "/sets"): {500},
    ("GET", "/sets/{setId}"): {404, 500},
    ("GET", "/metrics"): {400, 500},
    ("POST", "/metrics"): {400, 409, 500},
    ("GET", "/metrics/{metricName}"): {400, 404, 500},
    ("PUT", "/metrics/{metricName}"): {400, 404, 500},
    ("DELETE", "/metrics/{metricName}"): {400, 404, 500},
    ("POST", "/runs"): {400, 404, 408, 500, 504},
    ("GET", "/results"): {500},
    ("GET", "/results/{resultId}"): {404, 500},
}


def conforms(name: str, value: Any) -> None:
    """``value`` is valid against the schema ``name`` (every ``$ref`` resolved within the document)."""
    jsonschema.validate(value, {"$ref": f"#/$defs/{name}", **SCHEMAS})


def check(response: httpx.Response, method: str, route: str, status: int) -> Any:
    """The response has ``status`` and the body the published schema gives that route and status."""
    assert response.status_code == status, response.text
    if status == 204:
        assert response.content == b""
        return None
    body = response.json()
    if (method, route, status) in ROUTES:
        conforms(ROUTES[(method, route, status)], body)
    else:
        assert status in ERROR_STATUSES[(method, route)], f"{method} {route}: {status} is not a documented answer"
        conforms("ErrorResponse", body)
    return body


@pytest.fixture
def trpc_config(config: ServerConfig) -> ServerConfig:
    config.trpc_api = True
    return config


@pytest.fixture
async def trpc(trpc_config: ServerConfig) -> AsyncIterator[httpx.AsyncClient]:
    transport = httpx.ASGITransport(app=create_app(trpc_config), client=("127.0.0.1", 50000))
    async with httpx.AsyncClient(transport=transport, base_url="http://localhost") as http:
        yield http


async def test_sets(trpc: httpx.AsyncClient) -> None:
    listed = check(await trpc.get(f"{BASE}/sets"), "GET", "/sets", 200)
    assert [s["evalSetId"] for s in listed["sets"]] == ["calculator"]
    one = check(await trpc.get(f"{BASE}/sets/calculator"), "GET", "/sets/{setId}", 200)
    assert one["set"]["evalCases"][0]["evalId"] == "calc_add"
    missing = check(await trpc.get(f"{BASE}/sets/nowhere"), "GET", "/sets/{setId}", 404)
    assert "nowhere" in missing["error"]


async def test_metrics_crud(trpc: httpx.AsyncClient, data_dir: Path) -> None:
    listed = check(await trpc.get(f"{BASE}/metrics", params={"setId": "calculator"}), "GET", "/metrics", 200)
    assert [m["metricName"] for m in listed["metrics"]] == ["tool_trajectory_avg_score", "final_response_avg_score"]
    metric = {
        "metricName": "short",
        "evaluatorName": "final_response_avg_score",
        "threshold": 1,
        "criterion": {"finalResponse": {"text": {"matchStrategy": "contains"}}},
    }
    made = await trpc.post(f"{BASE}/metrics", json={"setId": "calculator", "metric": metric})
    assert check(made, "POST", "/metrics", 201)["metric"]["metricName"] == "short"
    again = await trpc.post(f"{BASE}/metrics", json={"setId": "calculator", "metric": metric})
    assert check(again, "POST", "/metrics", 409) == {"error": "already exists"}
    got = check(
        await trpc.get(f"{BASE}/metrics/short", params={"setId": "calculator"}), "GET", "/metrics/{metricName}", 200
    )
    assert got["metric"]["threshold"] == 1
    changed = {**metric, "threshold": 0.5}
    del changed["metricName"]  # the name comes from the path
    put = await trpc.put(f"{BASE}/metrics/short", json={"setId": "calculator", "metric": changed})
    assert check(put, "PUT", "/metrics/{metricName}", 200)["metric"]["threshold"] == 0.5
    on_disk = json.loads((data_dir / "calculator" / "calculator.metrics.json").read_text())
    assert [m["metricName"] for m in on_disk][-1] == "short" and on_disk[-1]["threshold"] == 0.5
    deleted = await trpc.delete(f"{BASE}/metrics/short", params={"setId": "calculator"})
    check(deleted, "DELETE", "/metrics/{metricName}", 204)
    gone = await trpc.get(f"{BASE}/metrics/short", params={"setId": "calculator"})
    check(gone, "GET", "/metrics/{metricName}", 404)
    empty = check(await trpc.get(f"{BASE}/metrics", params={"setId": "new-set"}), "GET", "/metrics", 200)
    assert empty == {"metrics": []}


BAD_REQUESTS = [
    ("GET", "/metrics", "/metrics", None, None, "setId must not be empty"),
    ("POST", "/metrics", "/metrics", {"setId": "calculator"}, None, "metric must not be empty"),
    ("POST", "/metrics", "/metrics", {"setId": "", "metric": {"metricName": "x"}}, None, "setId must not be empty"),
    (
        "POST",
        "/metrics",
        "/metrics",
        {"setId": "calculator", "metric": {}},
        None,
        "metric.metricName must not be empty",
    ),
    (
        "POST",
        "/metrics",
        "/metrics",
        {"setId": "calculator", "metric": {"metricName": "x"}, "extra": 1},
        None,
        'unknown field "extra"',
    ),
    (
        "POST",
        "/metrics",
        "/metrics",
        {"setId": "calculator", "metric": {"metricName": "x", "threshold": "high"}},
        None,
        "threshold",
    ),
    (
        "PUT",
        "/metrics/{metricName}",
        "/metrics/short",
        {"setId": "calculator", "metric": {"metricName": "other"}},
        None,
        "metric.metricName must match path metricName when provided",
    ),
    ("DELETE", "/metrics/{metricName}", "/metrics/short", None, None, "setId must not be empty"),
    ("POST", "/runs", "/runs", {}, None, "setId"),
    ("POST", "/runs", "/runs", {"setId": "  "}, None, "setId must not be empty"),
    ("POST", "/runs", "/runs", {"setId": "calculator", "numRuns": 0}, None, "numRuns must be greater than 0"),
    ("POST", "/runs", "/runs", {"setId": "calculator", "numRuns": "2"}, None, "numRuns"),
    ("POST", "/runs", "/runs", {"setId": "calculator", "numRuns": 500}, None, "numRuns must be between 1 and 100"),
    ("POST", "/runs", "/runs", {"setId": "calculator", "caseIds": ["x"]}, None, 'unknown field "caseIds"'),
    ("POST", "/runs", "/runs", None, b"[1, 2]", "request body must contain a single JSON object"),
    ("POST", "/runs", "/runs", None, b"{not json", "invalid request body"),
]


@pytest.mark.parametrize(("method", "route", "path", "body", "raw", "problem"), BAD_REQUESTS)
async def test_bad_requests_answer_400_naming_the_field(
    trpc: httpx.AsyncClient, method: str, route: str, path: str, body: Any, raw: bytes | None, problem: str
) -> None:
    content = raw if raw is not None else (json.dumps(body).encode() if body is not None else b"")
    response = await trpc.request(method, BASE + path, content=content, headers={"content-type": "application/json"})
    assert problem in check(response, method, route, 400)["error"]


async def test_unknown_things_answer_404(trpc: httpx.AsyncClient) -> None:
    run = await trpc.post(f"{BASE}/runs", json={"setId": "nowhere"})
    assert "nowhere" in check(run, "POST", "/runs", 404)["error"]
    check(await trpc.get(f"{BASE}/results/nothing"), "GET", "/results/{resultId}", 404)
    ghost = {"evaluatorName": "tool_trajectory_avg_score", "threshold": 1}
    put = await trpc.put(f"{BASE}/metrics/ghost", json={"setId": "calculator", "metric": ghost})
    check(put, "PUT", "/metrics/{metricName}", 404)


async def test_other_methods_and_trailing_slashes(trpc: httpx.AsyncClient) -> None:
    wrong = await trpc.delete(f"{BASE}/sets")
    assert (
        wrong.status_code == 405 and wrong.headers["allow"] == "GET" and wrong.json() == {"error": "method not allowed"}
    )
    assert (await trpc.get(f"{BASE}/runs")).headers["allow"] == "POST"
    slash = await trpc.get(f"{BASE}/metrics/?setId=calculator")
    assert slash.status_code == 308 and slash.headers["location"] == f"{BASE}/metrics?setId=calculator"


async def test_a_run_round_trip_conforms_and_is_read_back(trpc: httpx.AsyncClient) -> None:
    created = check(await trpc.post(f"{BASE}/runs", json={"setId": "calculator", "numRuns": 2}), "POST", "/runs", 201)
    evaluation = created["evaluationResult"]
    assert evaluation["appName"] == "calculator" and evaluation["overallStatus"] == "passed"
    assert isinstance(evaluation["executionTime"], int) and evaluation["executionTime"] > 0
    cases = evaluation["evalCases"]
    assert [c["evalId"] for c in cases][:2] == ["calc_add", "calc_natural_multiply"]
    assert all(len(c["evalCaseResults"]) == 2 for c in cases)
    assert {m["metricName"]: m["score"] for m in cases[0]["metricResults"]} == {
        "tool_trajectory_avg_score": 1.0,
        "final_response_avg_score": 1.0,
    }
    saved = evaluation["evalSetResult"]
    assert {c["score"] for c in saved["evalCaseResults"]} == {1.0}  # trpc's case score
    assert saved["summary"]["numRuns"] == 2
    result_id = saved["evalSetResultId"]
    again = check(await trpc.get(f"{BASE}/results/{result_id}"), "GET", "/results/{resultId}", 200)
    assert again["result"] == saved
    listed = check(await trpc.get(f"{BASE}/results", params={"setId": "calculator"}), "GET", "/results", 200)
    assert [r["evalSetResultId"] for r in listed["results"]] == [result_id]
    none = check(await trpc.get(f"{BASE}/results", params={"setId": "other"}), "GET", "/results", 200)
    assert none == {"results": []}


async def test_errors_and_missing_scores_take_trpcs_shapes(trpc: httpx.AsyncClient, data_dir: Path) -> None:
    # A case whose agent fails and a metric that errors: statuses trpc knows, no null numbers.
    eval_set = json.loads((data_dir / "calculator" / "calculator.evalset.json").read_text())
    eval_set["evalSetId"] = "broken"
    eval_set["evalCases"] = eval_set["evalCases"][:1]
    (data_dir / "calculator" / "broken.evalset.json").write_text(json.dumps(eval_set))
    judge = [
        {
            "metricName": "llm_final_response",
            "threshold": 0.5,
            "criterion": {
                "llmJudge": {
                    "judgeModel": {
                        "providerName": "openai",
                        "modelName": "m",
                        "baseURL": "http://127.0.0.1:9/v1",
                        "apiKey": "sk-secret-1",
                    }
                }
            },
        }
    ]
    (data_dir / "calculator" / "broken.metrics.json").write_text(json.dumps(judge))
    created = check(await trpc.post(f"{BASE}/runs", json={"setId": "broken"}), "POST", "/runs", 201)
    case = created["evaluationResult"]["evalSetResult"]["evalCaseResults"][0]
    assert case["finalEvalStatus"] == "failed" and "llm_final_response" in case["errorMessage"]
    assert "score" not in case["overallEvalMetricResults"][0]
    assert "sk-secret-1" not in json.dumps(created)
    metrics = check(await trpc.get(f"{BASE}/metrics", params={"setId": "broken"}), "GET", "/metrics", 200)
    assert metrics["metrics"][0]["criterion"]["llmJudge"]["judgeModel"]["apiKey"] == ""


async def test_the_servers_rules_stand_in_front(trpc_config: ServerConfig) -> None:
    trpc_config.token = "t0ken"
    trpc_config.max_upload_bytes = 1000
    transport = httpx.ASGITransport(app=create_app(trpc_config), client=("127.0.0.1", 50000))
    async with httpx.AsyncClient(transport=transport, base_url="http://localhost") as http:
        assert (await http.get(f"{BASE}/sets")).status_code == 401
        auth = {"authorization": "Bearer t0ken"}
        assert (await http.get(f"{BASE}/sets", headers=auth)).status_code == 200
        foreign = await http.get(f"{BASE}/sets", headers={**auth, "host": "evil.example"})
        assert foreign.status_code == 403
        huge = await http.post(f"{BASE}/runs", headers=auth, content=b'{"setId": "' + b"x" * 2000 + b'"}')
        assert huge.status_code == 413


async def test_the_served_app_and_base_path_are_checked(config: ServerConfig) -> None:
    config.trpc_api, config.agents = True, {"a": "a.py", "b": "b.py"}
    with pytest.raises(InputError, match=r"name it with --trpc-app \(apps: a, b\)"):
        create_app(config)
    config.trpc_app, config.trpc_base_path = "a", "/api/evaluation"
    with pytest.raises(InputError, match="is a path of the server's own routes"):
        create_app(config)
    config.trpc_app, config.trpc_base_path = "calculator", "/trpc/evaluation/"
    transport = httpx.ASGITransport(app=create_app(config), client=("127.0.0.1", 50000))
    async with httpx.AsyncClient(transport=transport, base_url="http://localhost") as http:
        listed = await http.get("/trpc/evaluation/sets")
    assert [s["evalSetId"] for s in listed.json()["sets"]] == ["calculator"]
