"""Bad input never gets a 5xx: every route, every path parameter, ids too long or holding control characters, and
bodies of the wrong JSON type each answer a 4xx whose message names the field (400 for ids, 422 for types)."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

import httpx
import pytest
from fastapi import FastAPI

from agentgauge.server import ServerConfig, create_app
from agentgauge.server._app import adk_web_assets

ROOT = Path(__file__).resolve().parents[2]
CALCULATOR = ROOT / "examples" / "calculator"

LONG_IDS = ("x" * 256, "x" * 300)
CONTROL_ID = "agpwn\r\nX-Injected:1"

# A valid value for every path parameter, so that only the parameter under test is bad.
VALID = {
    "app_name": "calculator",
    "app": "calculator",
    "eval_set_id": "calculator",
    "set_id": "calculator",
    "eval_case_id": "calc_add",
    "case_id": "calc_add",
    "user_id": "u",
    "session_id": "s",
    "eval_result_id": "r",
    "result_id": "r",
    "run_id": "r",
    "event_id": "e",
    "session_key": "k",
    "optimization_id": "o",
}
# What the error message calls each parameter.
FIELD = {
    "app_name": "app name",
    "app": "app name",
    "eval_set_id": "eval set id",
    "set_id": "eval set id",
    "eval_case_id": "eval case id",
    "case_id": "eval case id",
    "user_id": "user id",
    "session_id": "session id",
    "eval_result_id": "eval set result id",
    "result_id": "eval set result id",
    "optimization_id": "optimization id",
}


def _routes(app: FastAPI) -> Iterator[tuple[str, str]]:
    """(method, path template) of every route, including those of included routers (FastAPI ≥ 0.120 keeps them
    behind ``_IncludedRouter`` objects)."""
    pending: list[Any] = list(app.routes)
    while pending:
        route = pending.pop(0)
        if hasattr(route, "effective_route_contexts"):
            pending.extend(route.effective_route_contexts())
            continue
        methods = getattr(route, "methods", None) or getattr(getattr(route, "original_route", None), "methods", None)
        path = getattr(route, "path", "")
        for method in sorted(methods or ()):
            if method != "HEAD":
                yield method, path


@pytest.fixture
def app(tmp_path: Path) -> FastAPI:
    """The server over a copy of the calculator app, with ADK Web's routes when google-adk is installed."""
    import shutil

    app_dir = tmp_path / "data" / "calculator"
    app_dir.mkdir(parents=True)
    for name in ("calculator.evalset.json", "calculator.metrics.json"):
        shutil.copy(CALCULATOR / name, app_dir / name)
    config = ServerConfig(
        data_dir=tmp_path / "data",
        agents={"calculator": str(CALCULATOR / "agent.py")},
        adk_web=adk_web_assets() is not None,
    )
    return create_app(config)


@pytest.fixture
async def http(app: FastAPI) -> AsyncIterator[httpx.AsyncClient]:
    transport = httpx.ASGITransport(app=app, client=("127.0.0.1", 50000), raise_app_exceptions=False)
    async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1") as client:
        yield client


_PARAM = re.compile(r"{(\w+)(?::\w+)?}")


def _bad_id_requests(app: FastAPI) -> list[tuple[str, str, str, str]]:
    """(method, url, parameter, bad value) for each path parameter of each route and each bad id."""
    out = []
    for method, template in _routes(app):
        params = _PARAM.findall(template)
        for param in params:
            for bad in (*LONG_IDS, CONTROL_ID):
                values = {p: quote(bad if p == param else VALID[p], safe="") for p in params}
                url = _PARAM.sub(lambda m, values=values: values[m[1]], template)  # type: ignore[misc]
                out.append((method, url, param, bad))
    return out


def _detail(response: httpx.Response) -> str:
    try:
        body = response.json()
    except ValueError:
        return ""
    return str(body.get("detail", "")) if isinstance(body, dict) else ""


async def test_bad_ids_in_every_path_parameter_answer_4xx_naming_the_field(
    app: FastAPI, http: httpx.AsyncClient
) -> None:
    requests = _bad_id_requests(app)
    assert len(requests) > 250  # every route with parameters is covered (about 40 of them)
    failures = []
    for method, url, param, bad in requests:
        kwargs: dict[str, Any] = {"json": {}} if method in ("POST", "PUT") else {}
        response = await http.request(method, url, **kwargs)
        detail = _detail(response)
        expect_400 = param in FIELD  # a run id is no file name (runs live in memory): an unknown one is a 404
        if response.status_code >= 500:
            failures.append(f"{method} {url[:90]} -> {response.status_code} {detail[:120]}")
        elif not expect_400 and response.status_code != 404:
            failures.append(f"{method} {url[:90]} -> {response.status_code} {detail[:120]} (want 404)")
        elif expect_400 and not (response.status_code == 400 and FIELD[param] in detail):
            failures.append(f"{method} {url[:90]} -> {response.status_code} {detail[:120]} (want 400 naming the field)")
        elif expect_400 and bad in LONG_IDS and "at most" not in detail:
            failures.append(f"{method} {url[:90]} -> {detail[:160]} (want the limit)")
    assert not failures, f"{len(failures)} of {len(requests)} requests:\n" + "\n".join(failures)


TYPED_BODIES: list[tuple[str, str, Any, str]] = [
    ("POST", "/apps/calculator/users/u/sessions", {"state": "x"}, "state"),
    ("POST", "/apps/calculator/users/u/sessions", {"state": [1, 2]}, "state"),
    ("POST", "/apps/calculator/users/u/sessions", {"sessionId": 123}, "sessionId"),
    ("POST", "/apps/calculator/users/u/sessions/s9", [1, 2], "body"),
    ("POST", "/run", {"appName": "calculator", "userId": "u", "sessionId": "s", "newMessage": {"parts": 5}}, "parts"),
    (
        "POST",
        "/run_sse",
        {"appName": "calculator", "userId": "u", "sessionId": "s", "newMessage": {"parts": 5}},
        "parts",
    ),
    ("POST", "/run", {"appName": "calculator", "userId": "u", "sessionId": "s", "newMessage": 5}, "newMessage"),
    ("POST", "/dev/apps/calculator/eval-sets/calculator/run", {"evalCaseIds": 5}, "evalCaseIds"),
    ("POST", "/apps/calculator/eval_sets/calculator/run_eval", {"evalIds": "calc_add"}, "evalIds"),
    ("POST", "/dev/apps/calculator/eval-sets/calculator/run", {"evalMetrics": {"a": 1}}, "evalMetrics"),
    ("POST", "/dev/apps/calculator/eval-sets", {"evalSet": {"evalSetId": 5}}, "evalSetId"),
    ("POST", "/dev/apps/calculator/eval-sets/calculator/add-session", {"evalId": 5}, "evalId"),
    ("POST", "/api/apps/calculator/eval-sets", {"evalSetId": ["a"]}, "evalSetId"),
    ("POST", "/api/apps/calculator/eval-sets/calculator/runs", {"caseIds": "calc_add"}, "caseIds"),
    ("POST", "/api/apps/calculator/eval-sets/calculator/runs", {"numRuns": "two"}, "numRuns"),
    ("POST", "/api/apps/calculator/eval-sets/calculator/runs", {"numRuns": 1.5}, "numRuns"),
]

# Not strict JSON, but Python's parser (and so FastAPI's) reads them as infinities: still the field is named.
NON_FINITE_BODIES: list[tuple[str, str]] = [
    ('{"numRuns": Infinity}', "numRuns"),
    ('{"numRuns": 1e400}', "numRuns"),
    ('{"parallelism": -Infinity}', "parallelism"),
    ('{"numRuns": NaN}', "numRuns"),
]


async def test_wrong_json_types_answer_422_naming_the_field(http: httpx.AsyncClient) -> None:
    failures = []
    for method, url, body, field in TYPED_BODIES:
        response = await http.request(method, url, json=body)
        detail = _detail(response)
        if response.status_code != 422 or field not in detail:
            failures.append(f"{method} {url} {body} -> {response.status_code} {detail[:160]}")
    for text, field in NON_FINITE_BODIES:
        url = "/api/apps/calculator/eval-sets/calculator/runs"
        response = await http.post(url, content=text, headers={"Content-Type": "application/json"})
        detail = _detail(response)
        if response.status_code != 422 or field not in detail or "finite" not in detail:
            failures.append(f"POST {url} {text} -> {response.status_code} {detail[:160]}")
    total = len(TYPED_BODIES) + len(NON_FINITE_BODIES)
    assert not failures, f"{len(failures)} of {total} requests:\n" + "\n".join(failures)


@pytest.mark.parametrize(
    ("content", "content_type"),
    [
        (b'[{"metricName": "response_match_score"}]', "text/plain"),
        (b"metricName=response_match_score", "application/x-www-form-urlencoded"),
    ],
)
@pytest.mark.parametrize(
    "url",
    [
        "/api/apps/calculator/eval-sets/calculator/metrics",
        "/api/apps/calculator/eval-sets/calculator/cases/calc_add",
        "/dev/apps/calculator/eval-sets/calculator/eval-cases/calc_add",
    ],
)
async def test_a_body_that_is_not_json_answers_415(
    http: httpx.AsyncClient, url: str, content: bytes, content_type: str
) -> None:
    response = await http.put(url, content=content, headers={"Content-Type": content_type})
    assert response.status_code == 415, response.text
    assert "body" in _detail(response) and "application/json" in _detail(response)
    assert content_type in _detail(response)


async def test_a_body_without_content_type_is_named_when_refused(http: httpx.AsyncClient) -> None:
    # FastAPI >= 0.120 reads a body as JSON only when the request says so (older versions also read unlabelled ones).
    url = "/api/apps/calculator/eval-sets/calculator/metrics"
    response = await http.put(url, content=b'[{"metricName": "response_match_score"}]')
    assert response.status_code in (200, 415), response.text
    if response.status_code == 415:
        assert "no Content-Type" in _detail(response)


async def test_a_control_character_id_never_becomes_a_file(http: httpx.AsyncClient, tmp_path: Path) -> None:
    for method, url, body in (
        ("POST", "/dev/apps/calculator/eval-sets", {"evalSet": {"evalSetId": CONTROL_ID}}),
        ("POST", "/api/apps/calculator/eval-sets", {"evalSetId": CONTROL_ID}),
        ("POST", "/apps/calculator/users/u/sessions", {"sessionId": CONTROL_ID}),
        ("POST", f"/dev/apps/calculator/eval_sets/{quote(CONTROL_ID, safe='')}", None),
    ):
        response = await http.request(method, url, json=body)
        assert response.status_code == 400, (url, response.text)
        assert "control character" in _detail(response) and "\r" not in _detail(response)
    assert not [p for p in (tmp_path / "data").rglob("*") if "\r" in p.name or "\n" in p.name]


async def test_a_case_id_too_long_or_with_control_characters_is_refused(http: httpx.AsyncClient) -> None:
    created = await http.post("/apps/calculator/users/u/sessions", json={"sessionId": "s1"})
    assert created.status_code == 200
    for eval_id in ("c" * 256, CONTROL_ID):
        body = {"evalId": eval_id, "sessionId": "s1", "userId": "u"}
        response = await http.post("/dev/apps/calculator/eval-sets/calculator/add-session", json=body)
        assert response.status_code == 400 and "eval case id" in _detail(response), response.text
    ok = {"evalId": "c" * 255, "sessionId": "s1", "userId": "u"}
    assert (await http.post("/dev/apps/calculator/eval-sets/calculator/add-session", json=ok)).status_code == 200


async def test_text_that_is_no_unicode_is_refused_before_it_is_stored(http: httpx.AsyncClient, tmp_path: Path) -> None:
    # Python's JSON reader (and so FastAPI's) accepts a lone surrogate, which no file or database can hold.
    url = "/apps/calculator/users/u/sessions"
    state = await http.post(url, content=b'{"state": {"k": "\\ud800"}}', headers={"Content-Type": "application/json"})
    assert state.status_code == 422 and "state" in _detail(state) and "surrogate" in _detail(state), state.text
    named = await http.post(url, content=b'{"sessionId": "a\\udc00"}', headers={"Content-Type": "application/json"})
    assert named.status_code == 400 and "session id" in _detail(named), named.text
    text = b'{"userId": "u", "sessionId": "s", "newMessage": {"parts": [{"text": "\\ud800"}]}}'
    run = await http.post("/run", content=text, headers={"Content-Type": "application/json"})
    assert run.status_code == 422 and "parts" in _detail(run), run.text
    assert not list((tmp_path / "data").rglob("*.json.*tmp"))


async def test_a_union_body_of_the_wrong_type_names_the_body_not_pydantic_s_tags(http: httpx.AsyncClient) -> None:
    response = await http.put("/api/apps/calculator/eval-sets/calculator/metrics", json="response_match_score")
    assert response.status_code == 422
    assert _detail(response).startswith("body: Input should be a valid list"), _detail(response)
