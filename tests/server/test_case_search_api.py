"""The case list's search words: every user message and expected final answer of a case, turn by turn (not only
its first user message), from the eval set and from a result, read lightly or by the full parse alike, and cut to
a bounded size."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from agentgauge.formats import load_result
from agentgauge.server import ServerConfig, create_app
from agentgauge.server._answers import CaseListAnswer
from agentgauge.server._digest import SEARCH_LIMIT, digest_of_result
from agentgauge.server._digest_read import digest_of_document

API = "/api/apps/shop"


def _turn(user: str, answer: str | None) -> dict[str, Any]:
    turn: dict[str, Any] = {"userContent": {"role": "user", "content": user}}
    if answer is not None:
        turn["finalResponse"] = {"role": "assistant", "content": answer}
    return turn


def _result_case(eval_id: str, turns: list[tuple[str, str | None]]) -> dict[str, Any]:
    per = [
        {"actualInvocation": _turn(user, "whatever"), "expectedInvocation": _turn(user, answer)}
        for user, answer in turns
    ]
    return {"evalId": eval_id, "runId": 1, "finalEvalStatus": "passed", "evalMetricResultPerInvocation": per}


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[TestClient, Path]]:
    """Set ``cart``: ``multi`` (two turns, the words zeppelin and aardvark only in its second user message and its
    expected answers), ``single`` (one turn, no expected answer), ``huge`` (a message far over the bound); a result
    of the same shape (quokka, narwhal)."""
    evals = tmp_path / "evals" / "shop"
    evals.mkdir(parents=True)
    cases = [
        {"evalId": "multi", "conversation": [_turn("first question", "four"), _turn("a zeppelin?", "an aardvark")]},
        {"evalId": "single", "conversation": [_turn("only question", None)]},
        {"evalId": "huge", "conversation": [_turn("x" * 10_000, "y" * 10_000)]},
    ]
    (evals / "cart.evalset.json").write_text(json.dumps({"evalSetId": "cart", "evalCases": cases}))
    results = tmp_path / "data" / "results" / "shop"
    results.mkdir(parents=True)
    result = {
        "evalSetId": "cart",
        "creationTimestamp": 1.0,
        "evalCaseResults": [
            _result_case("multi", [("first question", "four"), ("a quokka?", "a narwhal")]),
            _result_case("single", [("only question", None)]),
        ],
    }
    (results / "r1.evalset_result.json").write_text(json.dumps(result))
    with TestClient(create_app(ServerConfig(data_dir=tmp_path / "data", evals_dir=tmp_path / "evals"))) as client:
        yield client, tmp_path


def _rows(client: TestClient, url: str) -> dict[str, dict[str, Any]]:
    answer = client.get(url)
    assert answer.status_code == 200, answer.text
    body = answer.json()
    assert CaseListAnswer.model_validate(body).model_dump(by_alias=True) == body
    return {row["evalId"]: row for row in body["cases"]}


def test_the_set_case_list_searches_every_turn(served: tuple[TestClient, Path]) -> None:
    client, _ = served
    rows = _rows(client, f"{API}/eval-sets/cart/case-list")
    assert rows["multi"]["text"] == "first question"  # shown: the first user message
    assert rows["multi"]["search"] == "first question\nfour\na zeppelin?\nan aardvark"
    assert rows["single"]["search"] is None  # the same as its text: not sent twice
    assert len(rows["huge"]["search"]) <= SEARCH_LIMIT
    assert len(rows["huge"]["text"]) == 200


def test_the_result_case_list_searches_every_turn(served: tuple[TestClient, Path]) -> None:
    client, root = served
    rows = _rows(client, f"{API}/results/r1/cases")
    assert rows["multi"]["search"] == "first question\nfour\na quokka?\na narwhal"
    assert rows["single"]["search"] is None
    path = root / "data" / "results" / "shop" / "r1.evalset_result.json"
    light = digest_of_document(json.loads(path.read_text()), str(path))
    assert light is not None
    assert light.runs == digest_of_result(load_result(path)).runs  # the light reading gives the full parse's words


def test_an_adk_result_searches_every_turn(tmp_path: Path) -> None:
    def invocation(text: str) -> dict[str, Any]:
        return {
            "user_content": {"role": "user", "parts": [{"text": text}]},
            "final_response": {"role": "model", "parts": [{"text": f"answer to {text}"}]},
            "intermediate_data": {},
        }

    turns = [{"actual_invocation": invocation(t), "expected_invocation": invocation(t)} for t in ("one", "two wombat")]
    doc = {
        "eval_set_result_id": "adk",
        "eval_set_id": "cart",
        "eval_case_results": [{"eval_id": "a", "final_eval_status": 1, "eval_metric_result_per_invocation": turns}],
    }
    path = tmp_path / "adk.evalset_result.json"
    path.write_text(json.dumps(doc))
    light = digest_of_document(doc, str(path))
    assert light is not None
    assert light.runs[0].search == "one\nanswer to one\ntwo wombat\nanswer to two wombat"
    assert light.runs == digest_of_result(load_result(path)).runs
