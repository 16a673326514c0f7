"""The routes behind the web UI's joined-up views: one case of two results side by side, each run's status in a
replay, the history's runs passed per case, and the event stream telling open pages of new results."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from typer.testing import CliRunner

from agentgauge.cli import app as cli
from agentgauge.server import ServerConfig, create_app

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def _eval(evals: Path, results: Path, *extra: str) -> str:
    """Run ``weather_usage`` with the CLI into the server's results; the new result's id."""
    before = set(results.rglob("*.evalset_result.json"))
    evalset = evals / "trace_mode" / "weather_usage.evalset.json"
    done = CliRunner().invoke(
        cli, ["eval", str(evalset), "--output-dir", str(results), "--app-name", "trace_mode", *extra]
    )
    assert done.exit_code in (0, 1), done.output
    (new,) = set(results.rglob("*.evalset_result.json")) - before
    return new.name.removesuffix(".evalset_result.json")


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[httpx.Client, Path, dict[str, str]]]:
    """A running server over the trace-mode examples with three results: ``oslo_fahrenheit`` failing, every case
    passing (a lenient metrics file), and two runs per case."""
    from _browser import running_server

    root = tmp_path_factory.mktemp("ui-routes")
    evals = root / "evals"
    shutil.copytree(EXAMPLES / "trace_mode", evals / "trace_mode")
    results = root / "data" / "results"
    lenient = root / "lenient.metrics.json"
    lenient.write_text(json.dumps([{"metricName": "tool_trajectory_avg_score", "threshold": 0}]))
    ids = {
        "failing": _eval(evals, results),
        "passing": _eval(evals, results, "--metrics", str(lenient)),
        "twice": _eval(evals, results, "--num-runs", "2"),
    }
    app = create_app(ServerConfig(data_dir=root / "data", evals_dir=evals))
    with running_server(app) as url, httpx.Client(base_url=url, timeout=30) as http:
        yield http, evals, ids


def test_a_case_of_two_results_side_by_side(served: tuple[httpx.Client, Path, dict[str, str]]) -> None:
    http, _, ids = served
    answer = http.get(
        "/api/apps/trace_mode/compare/cases/oslo_fahrenheit", params={"base": ids["failing"], "new": ids["passing"]}
    )
    assert answer.status_code == 200, answer.text
    data = answer.json()
    assert (data["base"]["status"], data["new"]["status"]) == ("failed", "passed")
    assert "tool_trajectory_avg_score" in data["base"]["reason"] and data["new"]["reason"] is None
    (turn,) = data["turns"]
    assert turn["user"].endswith("in Fahrenheit?")
    # The same recorded trace on both sides: every segment is unchanged, calls aligned one to one.
    assert [s["op"] for s in turn["base"]["finalResponse"]] == ["="] == [s["op"] for s in turn["new"]["finalResponse"]]
    assert len(turn["base"]["toolCalls"]) == len(turn["new"]["toolCalls"]) == 2
    missing = http.get(
        "/api/apps/trace_mode/compare/cases/nope", params={"base": ids["failing"], "new": ids["passing"]}
    )
    assert missing.status_code == 200 and missing.json()["base"] is None and missing.json()["turns"] == []
    assert (
        http.get(
            "/api/apps/trace_mode/compare/cases/oslo_fahrenheit", params={"base": "x", "new": ids["passing"]}
        ).status_code
        == 404
    )
    no_base = http.get("/api/apps/trace_mode/compare/cases/oslo_fahrenheit", params={"new": ids["passing"]})
    assert no_base.status_code == 422 and "base" in no_base.text
    huge = http.get("/api/apps/trace_mode/compare/cases/oslo_fahrenheit", params={"base": "x" * 5000, "new": "y"})
    assert huge.status_code == 422


def test_each_run_has_its_status_and_the_history_its_runs_passed(
    served: tuple[httpx.Client, Path, dict[str, str]],
) -> None:
    http, _, ids = served
    replay = http.get(f"/api/apps/trace_mode/results/{ids['twice']}/cases/oslo_fahrenheit/replay").json()
    assert replay["runIds"] == [1, 2] and replay["runStatuses"] == ["failed", "failed"]
    history = http.get("/api/apps/trace_mode/eval-sets/weather_usage/history").json()
    shares = {run["resultId"]: run["caseRuns"] for run in history["runs"]}
    assert shares[ids["twice"]] == {"paris_today": [2, 2], "oslo_fahrenheit": [0, 2]}
    assert shares[ids["failing"]] == {}  # one run per case: the status says it all


def _events(stream: Any) -> Iterator[tuple[str, dict[str, Any]]]:
    kind = ""
    for line in stream.iter_lines():
        if line.startswith("event: "):
            kind = line.removeprefix("event: ")
        elif line.startswith("data: "):
            yield kind, json.loads(line.removeprefix("data: "))


def test_a_new_result_is_pushed_to_open_pages(served: tuple[httpx.Client, Path, dict[str, str]]) -> None:
    http, evals, _ = served
    with http.stream("GET", "/api/live/events") as stream:
        events = _events(stream)
        assert next(events) == ("hello", {"otlp": False})  # no OTLP receiver: no session events, no 404 to ask
        _eval(evals, evals.parent / "data" / "results")
        kind, data = next(events)
    assert kind == "results" and data["appName"] == "trace_mode" and data["version"] >= 1


def test_the_page_is_told_when_the_eval_sets_are_tracked_by_git(
    served: tuple[httpx.Client, Path, dict[str, str]],
) -> None:
    import subprocess

    http, evals, _ = served
    assert http.get("/api/evals-folder").json() == {"path": str(evals), "tracked": False}
    if shutil.which("git") is None:
        pytest.skip("needs git")
    subprocess.run(["git", "init", "-q", str(evals)], check=True)
    subprocess.run(["git", "-C", str(evals), "add", "trace_mode"], check=True)
    from _browser import running_server

    app = create_app(ServerConfig(data_dir=evals.parent / "data2", evals_dir=evals))
    with running_server(app) as url:
        assert httpx.get(f"{url}/api/evals-folder").json()["tracked"] is True
