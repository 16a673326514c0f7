"""``/api/apps/{app}/compare`` takes the command line's result selectors (ids, ``label:``, ``latest``; never a file on
the server's disk) and the gate's ``failOn`` / ``alpha``, and answers with the gate's verdict."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import quote

import httpx
import pytest

from agentgauge.formats import load_result, save_result
from agentgauge.model import RunMetadata

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "compare"


@pytest.fixture
def ids(data_dir: Path) -> dict[str, str]:
    """The compare example's two results among the app's results: base (env=prod), then new (env=staging)."""
    results = data_dir / "results" / "calculator"
    results.mkdir(parents=True)
    out = {}
    for stamp, (name, env) in enumerate((("base", "prod"), ("new", "staging")), start=1):
        result = load_result(EXAMPLES / f"{name}.evalset_result.json")
        result.run_metadata, result.creation_timestamp = RunMetadata(labels={"env": env}), 1_700_000_000.0 + stamp
        save_result(result, results / f"{result.eval_set_result_id}.evalset_result.json")
        out[name] = result.eval_set_result_id
    return out


async def _compare(client: httpx.AsyncClient, **query: str) -> httpx.Response:
    params = "&".join(f"{key}={quote(value)}" for key, value in query.items())
    return await client.get(f"/api/apps/calculator/compare?{params}")


async def test_selectors_pick_the_results(client: httpx.AsyncClient, ids: dict[str, str]) -> None:
    for base, new in (
        (ids["base"], ids["new"]),
        ("label:env=prod", "label:env=staging"),
        (ids["base"], "latest"),
        ("latest", ids["new"]),  # the newest besides NEW
        ("label:env=prod", "latest"),
    ):
        answer = await _compare(client, base=base, new=new)
        assert answer.status_code == 200, (base, new, answer.text)
        doc = answer.json()
        assert (doc["base"]["evalSetResultId"], doc["new"]["evalSetResultId"]) == (ids["base"], ids["new"])
        assert doc["gate"]["failOn"] == "broken" and doc["gate"]["failed"] is True
        assert doc["gate"]["findings"] == [
            "calc_natural_multiply: passed -> failed",
            "calc_multi_turn: passed -> failed",
        ]


async def test_the_gate_rule_and_alpha(client: httpx.AsyncClient, ids: dict[str, str]) -> None:
    answer = await _compare(client, base=ids["base"], new=ids["new"], failOn="never", alpha="0.01")
    gate = answer.json()["gate"]
    assert (gate["failOn"], gate["alpha"], gate["failed"], gate["rule"]) == (
        "never",
        0.01,
        False,
        "never fails: the comparison is reported only",
    )
    bad_rule = await _compare(client, base=ids["base"], new=ids["new"], failOn="sometimes")
    assert bad_rule.status_code == 400 and "query parameter 'failOn': unknown rule 'sometimes'" in bad_rule.text
    bad_alpha = await _compare(client, base=ids["base"], new=ids["new"], alpha="2")
    assert bad_alpha.status_code == 400 and "query parameter 'alpha' must be between 0 and 1" in bad_alpha.text
    assert (await _compare(client, base=ids["base"], new=ids["new"], alpha="x")).status_code == 422


async def test_bad_selectors_are_4xx_and_never_read_files(
    client: httpx.AsyncClient, ids: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(EXAMPLES)  # result files the server's working directory holds are no selector over HTTP
    for new, status, words in (
        ("new.evalset_result.json", 404, "'new.evalset_result.json' of app 'calculator' not found"),
        (str(EXAMPLES / "new.evalset_result.json"), 400, "must not contain '/'"),
        ("label:env=dev", 404, "label:env=dev: no result of eval set 'calculator' with these labels of app"),
        ("label:env", 400, "'label:env': label 'env' is not KEY=VALUE"),
        ("nope", 404, "'nope'"),
    ):
        answer = await _compare(client, base=ids["base"], new=new)
        assert answer.status_code == status and words in answer.text, (new, answer.text)
    both = await _compare(client, base="latest", new="latest")
    assert both.status_code == 400 and "both 'latest'" in both.text
    huge = await _compare(client, base=ids["base"], new="label:k=" + "v" * 5000)
    assert huge.status_code == 422  # bounded: a selector is at most 1024 characters
