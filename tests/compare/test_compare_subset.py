"""Comparing a run over selected cases with a full run: the cases it did not select are "not run", listed apart from
the compared ones, and never make the comparison regressed -- in compare_results, the terminal, Markdown, HTML and
JSON outputs of ``agentgauge compare``, ``eval --baseline``, and the server's compare route.

Before, a run of 1 selected case against a full run of 6 reported "REGRESSED: 1 broken, 5 removed".
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from agentgauge.cli import app
from agentgauge.compare import ChangeKind, compare_results, headline, render_html, render_markdown
from agentgauge.formats import load_result
from agentgauge.model import EvalCaseResult, EvalSetResult, EvalSetResultSummary, EvalStatus

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"
BASE = EXAMPLES / "compare" / "base.evalset_result.json"
SET = EXAMPLES / "calculator" / "calculator.evalset.json"
BROKEN_AGENT = EXAMPLES / "compare" / "broken_agent.py"
OTHERS = ["calc_add", "calc_subtract_from", "calc_divide", "calc_multi_turn", "calc_not_a_calculation"]


def _run(eval_id: str, passed: bool) -> EvalCaseResult:
    status = EvalStatus.PASSED if passed else EvalStatus.FAILED
    return EvalCaseResult(eval_set_id="calc", eval_id=eval_id, final_eval_status=status)


def _result(*runs: EvalCaseResult, selected: list[str] | None = None, interrupted: bool = False) -> EvalSetResult:
    summary = EvalSetResultSummary(selected_eval_ids=selected or [])
    return EvalSetResult(eval_set_id="calc", eval_case_results=list(runs), summary=summary, interrupted=interrupted)


FULL = _result(_run("a", True), _run("b", True), _run("c", False))


def test_cases_the_new_run_did_not_select_are_not_run() -> None:
    comparison = compare_results(FULL, _result(_run("a", True), selected=["a"]))
    assert {c.eval_id: c.change for c in comparison.cases} == {
        "a": ChangeKind.STILL_PASSING,
        "b": ChangeKind.NOT_RUN,
        "c": ChangeKind.NOT_RUN,
    }
    assert comparison.regressed is False
    assert comparison.not_run("new") == ["b", "c"] and comparison.not_run("base") == []
    assert comparison.new.selected_eval_ids == ["a"]
    assert headline(comparison) == "no regression: 1 still passing (2 not run)"
    assert any("limited to 1 selected case: 2 other cases were not run" in n for n in comparison.notes)


def test_a_selected_case_that_broke_still_regresses() -> None:
    comparison = compare_results(FULL, _result(_run("b", False), selected=["b"]))
    assert comparison.regressed is True
    assert headline(comparison) == "REGRESSED: 1 broken (2 not run)"


def test_a_full_run_against_a_selection_in_base_is_not_new() -> None:
    comparison = compare_results(_result(_run("a", True), selected=["a"]), FULL)
    assert [c.change for c in comparison.cases] == [ChangeKind.STILL_PASSING, ChangeKind.NOT_RUN, ChangeKind.NOT_RUN]
    assert comparison.not_run("base") == ["b", "c"]
    assert headline(comparison) == "no regression: 1 still passing (2 not run)"


def test_an_interrupted_run_did_not_run_its_missing_cases() -> None:
    comparison = compare_results(FULL, _result(_run("a", True), interrupted=True))
    assert comparison.count(ChangeKind.NOT_RUN) == 2 and comparison.count(ChangeKind.REMOVED) == 0


def test_without_a_selection_missing_cases_are_still_removed_and_new() -> None:
    comparison = compare_results(FULL, _result(_run("a", True), _run("z", True)))
    kinds = {c.eval_id: c.change for c in comparison.cases}
    assert kinds == {
        "a": ChangeKind.STILL_PASSING,
        "b": ChangeKind.REMOVED,
        "c": ChangeKind.REMOVED,
        "z": ChangeKind.NEW,
    }
    assert headline(comparison) == "no regression: 1 new, 2 removed, 1 still passing"


def test_reports_list_not_run_cases_apart_from_the_table() -> None:
    comparison = compare_results(FULL, _result(_run("a", False), selected=["a"]))
    markdown = render_markdown(comparison)
    assert "**REGRESSED: 1 broken (2 not run)**" in markdown
    assert "| b |" not in markdown and "| a | broken |" in markdown
    assert "Not run in new (2, not compared): b, c" in markdown
    page = render_html(comparison)
    assert '<p class="not_run">Not run in new (2, not compared): b, c</p>' in page
    assert "<td>b</td>" not in page


def _subset_run(tmp_path: Path, cases: str) -> Path:
    out = tmp_path / "new"
    result = CliRunner().invoke(app, ["eval", str(BROKEN_AGENT), f"{SET}:{cases}", "--output-dir", str(out)])
    assert result.exit_code == 1, result.output  # calc_natural_multiply breaks under the bug
    (path,) = (out / "calculator").glob("*.evalset_result.json")
    return path


def test_cli_compare_of_a_one_case_run_with_the_full_base(tmp_path: Path) -> None:
    new = _subset_run(tmp_path, "calc_natural_multiply")
    assert load_result(new).summary.selected_eval_ids == ["calc_natural_multiply"]  # type: ignore[union-attr]
    md = tmp_path / "c.md"
    result = CliRunner().invoke(app, ["compare", str(BASE), str(new), "--markdown", str(md)])
    assert result.exit_code == 1, result.output
    assert "REGRESSED: 1 broken (5 not run)" in result.output
    assert "removed" not in result.output
    assert f"Not run in new (5, not compared): {', '.join(OTHERS)}" in result.output
    assert "**REGRESSED: 1 broken (5 not run)**" in md.read_text()
    doc = json.loads(CliRunner().invoke(app, ["compare", str(BASE), str(new), "--json"]).stdout)
    changes = {c["evalId"]: c["change"] for c in doc["cases"]}
    assert changes == {"calc_natural_multiply": "broken", **dict.fromkeys(OTHERS, "not_run")}
    assert doc["new"]["selectedEvalIds"] == ["calc_natural_multiply"]
    # Swapped: the subset run is the base; the full run's other cases were not run there, nothing broke.
    swapped = CliRunner().invoke(app, ["compare", str(new), str(BASE)])
    assert swapped.exit_code == 0, swapped.output
    assert "no regression: 1 fixed (5 not run)" in swapped.output
    assert "Not run in base (5, not compared)" in swapped.output


def test_a_full_run_records_no_selection(tmp_path: Path) -> None:
    new = _subset_run(tmp_path, ",".join(["calc_natural_multiply", *OTHERS]))  # every case: not a subset
    assert "selectedEvalIds" not in new.read_text()


def test_eval_baseline_with_a_subset(tmp_path: Path) -> None:
    shutil.copy(BASE, tmp_path / "base.evalset_result.json")
    result = CliRunner().invoke(
        app,
        [
            "eval",
            str(BROKEN_AGENT),
            f"{SET}:calc_natural_multiply,calc_add",
            "--output-dir",
            str(tmp_path / "out"),
            "--baseline",
            str(tmp_path / "base.evalset_result.json"),
        ],
    )
    assert result.exit_code == 1, result.output
    assert ": 0 fixed, 1 broken (4 not run)" in result.output
    assert "the new run was limited to 2 selected cases: 4 other cases were not run" in result.output


async def test_server_compare_of_a_selected_run_with_a_full_run(tmp_path: Path) -> None:
    pytest.importorskip("fastapi")
    import asyncio

    import httpx

    from agentgauge.server import ServerConfig, create_app

    data = tmp_path / "data" / "calculator"
    data.mkdir(parents=True)
    for name in ("calculator.evalset.json", "calculator.metrics.json"):
        shutil.copy(EXAMPLES / "calculator" / name, data / name)
    config = ServerConfig(data_dir=tmp_path / "data", agents={"calculator": str(EXAMPLES / "calculator" / "agent.py")})
    transport = httpx.ASGITransport(app=create_app(config), client=("127.0.0.1", 50000))
    async with httpx.AsyncClient(transport=transport, base_url="http://localhost") as client:

        async def run(body: dict[str, object]) -> str:
            started = (await client.post("/api/apps/calculator/eval-sets/calculator/runs", json=body)).json()
            for _ in range(300):
                state = (await client.get(f"/api/runs/{started['runId']}")).json()
                if state["status"] != "running":
                    return str(state["resultId"])
                await asyncio.sleep(0.1)
            raise AssertionError("the run did not finish")

        full, one = await run({}), await run({"caseIds": ["calc_add"]})
        diff = (await client.get(f"/api/apps/calculator/compare?base={full}&new={one}")).json()
    assert diff["regressed"] is False
    changes = {c["evalId"]: c["change"] for c in diff["cases"]}
    assert changes.pop("calc_add") == "still_passing"
    assert set(changes.values()) == {"not_run"} and len(changes) == 5
