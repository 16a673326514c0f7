"""People's labels on a result's judge verdicts over HTTP: stored beside the result file or in the SQL store,
behind the server's checks, with 4xx answers naming the field; ``agentgauge calibrate`` reads what was stored."""

from __future__ import annotations

import shutil
from pathlib import Path

import httpx
import pytest
from typer.testing import CliRunner

from agentgauge.cli import app as cli
from agentgauge.server import ServerConfig, create_app

ROOT = Path(__file__).resolve().parents[2]
RESULTS = ROOT / "examples" / "calibration" / "results" / "capitals"
LENIENT = next(p for p in RESULTS.glob("*.evalset_result.json") if "judge-lenient" in p.read_text())
RESULT_ID = LENIENT.name.removesuffix(".evalset_result.json")
CASE = f"/api/apps/capitals/results/{RESULT_ID}/cases"


@pytest.fixture
def data(tmp_path: Path) -> Path:
    folder = tmp_path / "data" / "results" / "capitals"
    folder.mkdir(parents=True)
    shutil.copy(LENIENT, folder / LENIENT.name)
    return tmp_path / "data"


def _client(config: ServerConfig, peer: str = "127.0.0.1") -> httpx.AsyncClient:
    transport = httpx.ASGITransport(app=create_app(config), client=(peer, 50000))
    return httpx.AsyncClient(transport=transport, base_url="http://localhost")


async def test_label_store_replace_and_delete(data: Path) -> None:
    result_file = data / "results" / "capitals" / LENIENT.name
    before = result_file.read_bytes()
    async with _client(ServerConfig(data_dir=data)) as client:
        assert (await client.get(f"{CASE}/canada/labels")).json() == []
        body = {"metricName": "llm_final_response", "verdict": "agree", "note": "looks right", "author": "maria"}
        first = await client.put(f"{CASE}/canada/labels", json=body)
        assert first.status_code == 200, first.text
        (label,) = first.json()
        assert label["judgeVerdict"] == "pass"  # the stored verdict, filled in by the server
        assert label["judgeModel"] == "judge-lenient"
        assert (label["evalSetResultId"], label["evalSetId"], label["runId"]) == (RESULT_ID, "capitals", 1)
        assert label["labelledAt"] > 0
        body.update(verdict="disagree", note="Toronto is not the capital")
        (label,) = (await client.put(f"{CASE}/canada/labels", json=body)).json()  # replaced, not added
        assert (label["verdict"], label["note"]) == ("disagree", "Toronto is not the capital")
        turn = {"metricName": "llm_final_response", "verdict": "fail", "invocation": 1}
        assert len((await client.put(f"{CASE}/canada/labels", json=turn)).json()) == 2
        await client.put(f"{CASE}/france/labels", json={"metricName": "llm_final_response", "verdict": "pass"})
        every = (await client.get(f"/api/apps/capitals/results/{RESULT_ID}/labels")).json()
        assert sorted(x["evalId"] for x in every) == ["canada", "canada", "france"]
        gone = await client.delete(
            f"{CASE}/canada/labels", params={"metricName": "llm_final_response", "invocation": 1}
        )
        assert gone.json() == {"removed": 1}
        assert [x.get("invocation") for x in (await client.get(f"{CASE}/canada/labels")).json()] == [None]
    sidecar = result_file.with_name(f"{RESULT_ID}.labels.jsonl")
    assert len(sidecar.read_text().splitlines()) == 2
    assert result_file.read_bytes() == before  # labels never rewrite the result file
    done = CliRunner().invoke(cli, ["calibrate", str(data / "results")])
    assert done.exit_code == 0, done.output
    assert "llm_final_response judge-lenient case     2    0.500" in done.stdout


@pytest.mark.parametrize(
    ("body", "status", "message"),
    [
        ({"verdict": "pass"}, 422, "body.metricName: Field required"),
        ({"metricName": "llm_final_response", "verdict": "maybe"}, 422, "body.verdict: Input should be 'agree'"),
        ({"metricName": "llm_final_response", "verdict": "pass", "runId": 1.5}, 422, "body.runId: Input should be"),
        (
            b'{"metricName": "llm_final_response", "verdict": "pass", "note": "\\ud800"}',
            422,
            "body.note: Input should be a valid string",
        ),
        ({"metricName": "llm_final_response", "verdict": "pass", "invocation": 0}, 422, "body.invocation: Input"),
        ({"metricName": "safety_v1", "verdict": "pass"}, 400, "metricName: case 'canada' has no result for metric"),
        (
            {"metricName": "llm_final_response", "verdict": "pass", "invocation": 2},
            400,
            "invocation: case 'canada' has 1",
        ),
        ({"metricName": "llm_final_response", "verdict": "pass", "runId": 3}, 400, "runId: case 'canada' has no run 3"),
    ],
)
async def test_bad_bodies_name_the_field(
    data: Path, body: dict[str, object] | bytes, status: int, message: str
) -> None:
    async with _client(ServerConfig(data_dir=data)) as client:
        if isinstance(body, bytes):  # text JSON allows but UTF-8 cannot hold (a lone surrogate)
            sent = {"content": body, "headers": {"Content-Type": "application/json"}}
        else:
            sent = {"json": body}
        answer = await client.put(f"{CASE}/canada/labels", **sent)  # type: ignore[arg-type]
    assert answer.status_code == status, answer.text
    assert answer.json()["detail"].startswith(message)


async def test_missing_things_and_bad_ids(data: Path) -> None:
    body = {"metricName": "llm_final_response", "verdict": "pass"}
    async with _client(ServerConfig(data_dir=data)) as client:
        nothing = await client.put(f"{CASE}/nowhere/labels", json=body)
        assert nothing.status_code == 404 and "case 'nowhere' is not in result" in nothing.json()["detail"]
        missing = await client.get("/api/apps/capitals/results/nope/labels")
        assert missing.status_code == 404
        bad = await client.get("/api/apps/capitals/results/a%0Ab/labels")
        assert bad.status_code == 400 and "eval set result id" in bad.json()["detail"]
        text = await client.put(f"{CASE}/canada/labels", content=b"x", headers={"Content-Type": "text/plain"})
        assert text.status_code == 415


async def test_writes_need_the_same_origin_and_a_loopback_client(data: Path) -> None:
    body = {"metricName": "llm_final_response", "verdict": "pass"}
    async with _client(ServerConfig(data_dir=data)) as client:
        cross = await client.put(f"{CASE}/canada/labels", json=body, headers={"Origin": "http://evil.example"})
        assert cross.status_code == 403
        host = await client.get(f"{CASE}/canada/labels", headers={"Host": "evil.example"})
        assert host.status_code == 403
    async with _client(ServerConfig(data_dir=data), peer="10.1.2.3") as remote:
        assert (await remote.put(f"{CASE}/canada/labels", json=body)).status_code == 403
        assert (await remote.delete(f"{CASE}/canada/labels")).status_code == 403
    async with _client(ServerConfig(data_dir=data, token="s3cret-token")) as client:
        assert (await client.get(f"{CASE}/canada/labels")).status_code == 401
        auth = {"Authorization": "Bearer s3cret-token"}
        assert (await client.put(f"{CASE}/canada/labels", json=body, headers=auth)).status_code == 200
    (sidecar,) = (data / "results" / "capitals").glob("*.labels.jsonl")
    assert len(sidecar.read_text().splitlines()) == 1  # only the write that held the token


async def test_routes_are_in_the_openapi_schema(data: Path) -> None:
    async with _client(ServerConfig(data_dir=data)) as client:
        paths = (await client.get("/openapi.json")).json()["paths"]
    case = "/api/apps/{app}/results/{result_id}/cases/{case_id}/labels"
    assert set(paths[case]) == {"get", "put", "delete"}
    assert "LabelBody" in str(paths[case]["put"]["requestBody"])
    assert "get" in paths["/api/apps/{app}/results/{result_id}/labels"]


async def test_labels_of_a_stored_result_go_to_the_store(tmp_path: Path) -> None:
    from agentgauge.formats import load_result
    from agentgauge.sqlstore import open_store

    url = f"sqlite:///{tmp_path / 'results.db'}"
    open_store(url).results().save("capitals", load_result(LENIENT))
    async with _client(ServerConfig(data_dir=tmp_path / "data", store=url)) as client:
        for case, verdict in (("canada", "disagree"), ("japan", "agree"), ("france", "agree")):
            body = {"metricName": "llm_final_response", "verdict": verdict}
            assert (await client.put(f"{CASE}/{case}/labels", json=body)).status_code == 200
        assert (await client.delete(f"{CASE}/france/labels")).json() == {"removed": 1}
    assert not list(tmp_path.rglob("*.labels.jsonl"))
    assert len(open_store(url).labels().list("capitals", RESULT_ID)) == 2
    done = CliRunner().invoke(cli, ["calibrate", RESULT_ID, "--store", url])
    assert done.exit_code == 0, done.output
    assert "llm_final_response judge-lenient case     2    0.500" in done.stdout
