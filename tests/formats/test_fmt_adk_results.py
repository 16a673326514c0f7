"""Result files as ``adk eval`` 2.13 writes them load, validate, show and convert (both ways).

The files in ``data/adk_results`` were written by ADK's own ``LocalEvalSetResultsManager`` (see
``adk_results_gen.py``); one test regenerates them live with google-adk and checks they load identically.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from adk_results_gen import DATA_DIR, generate
from typer.testing import CliRunner

from agentgauge.cli import app
from agentgauge.formats import load_result, parse_result, save_result
from agentgauge.model import EvalMetricResult, EvalSetResult, EvalStatus, Invocation

FILES = sorted(DATA_DIR.glob("*.evalset_result.json"))
NAMES = [f.name.removesuffix(".evalset_result.json") for f in FILES]
runner = CliRunner()


def test_every_shape_is_committed() -> None:
    assert NAMES == ["all_cases", "deprecated_fields", "full", "legacy_double_encoded", "minimal", "no_cases"]


@pytest.mark.parametrize("path", FILES, ids=NAMES)
def test_validate_show_and_convert(path: Path, tmp_path: Path) -> None:
    res = runner.invoke(app, ["validate", str(path)])
    assert res.exit_code == 0, res.output
    assert res.stdout.startswith(f"ok: {path} (result, ")
    res = runner.invoke(app, ["show", str(path)])
    assert res.exit_code == (0 if "  passed  " in res.stdout.splitlines()[0] else 1), res.output  # 1: not passed
    assert "Eval set weather" in res.stdout
    native, adk = tmp_path / "native.json", tmp_path / "adk.json"
    assert runner.invoke(app, ["convert", str(path), str(native)]).exit_code == 0
    assert runner.invoke(app, ["convert", str(native), str(adk), "--to", "adk"]).exit_code == 0
    assert load_result(native).model_dump(mode="json") == load_result(path).model_dump(mode="json")
    assert load_result(adk).eval_set_id == "weather"


def test_full_result_keeps_every_detail() -> None:
    result = load_result(DATA_DIR / "full.evalset_result.json")
    [case] = result.eval_case_results
    assert (case.eval_id, case.final_eval_status, case.session_id, case.user_id) == (
        "paris",
        EvalStatus.FAILED,
        "session-1",
        "user-1",
    )
    metrics = {m.metric_name: m for m in case.overall_eval_metric_results}
    rubric = metrics["rubric_based_final_response_quality_v1"].details
    assert rubric is not None
    assert [(s.id, s.reason, s.score) for s in rubric.rubric_scores] == [
        ("r1", "It greets the user.", 1.0),
        ("r2", "", None),
        ("r3", "", 0.0),
    ]
    usage = metrics["token_usage_v1"]
    assert usage.eval_status is EvalStatus.INFORMATIONAL and usage.details is not None
    assert usage.details.token_usage_details is not None and usage.details.token_usage_details["total_tokens"] == 1200
    assert usage.details.duration_details is not None and usage.details.duration_details["tool_seconds"] == 0.5
    assert metrics["final_response_match_v2"].score is None
    assert metrics["response_match_score"].details is None  # all-null details read as none
    assert (metrics["my_custom_metric"].model_extra or {})["custom_function_path"] == "my_pkg.metrics.score"
    first, second = case.eval_metric_result_per_invocation
    assert first.expected_invocation is not None and second.expected_invocation is None
    assert [(t.name, t.arguments) for t in first.expected_invocation.tools] == [
        ("get_weather", {"city": "Paris"}),
        ("get_time", None),
        ("list_cities", {}),
    ]
    assert [(t.name, t.arguments, t.result) for t in first.actual_invocation.tools] == [("get_weather", {}, {"sky": 1})]
    session = (case.model_extra or {})["session_details"]
    assert session["id"] == "session-1" and len(session["events"]) == 2


def _adk_dump(text: str) -> dict[str, Any]:
    utils = pytest.importorskip("google.adk.evaluation._eval_set_results_manager_utils")
    dumped: dict[str, Any] = utils.parse_eval_set_result_json(text).model_dump(mode="json")
    return dumped


@pytest.mark.parametrize("path", FILES, ids=NAMES)
def test_adk_output_is_read_by_adk_with_the_same_content(path: Path, tmp_path: Path) -> None:
    out = tmp_path / "out.evalset_result.json"
    save_result(load_result(path), out, fmt="adk")
    theirs, ours = _adk_dump(path.read_text()), _adk_dump(out.read_text())
    for mine, original in zip(ours["eval_case_results"], theirs["eval_case_results"], strict=True):
        assert mine["session_details"] == original["session_details"]
        for m, o in zip(mine["overall_eval_metric_results"], original["overall_eval_metric_results"], strict=True):
            assert (m["metric_name"], m["score"], m["eval_status"], m["details"]) == (
                o["metric_name"],
                o["score"],
                o["eval_status"],
                {**o["details"], "rubric_scores": o["details"]["rubric_scores"] or None},
            )
        for m, o in zip(
            mine["eval_metric_result_per_invocation"], original["eval_metric_result_per_invocation"], strict=True
        ):
            for key in ("actual_invocation", "expected_invocation"):
                assert (m[key] is None) == (o[key] is None)
                if o[key] is not None:
                    assert m[key]["user_content"] == o[key]["user_content"]
                    assert m[key]["intermediate_data"] == o[key]["intermediate_data"]


def test_regenerated_with_adk_loads_identically(tmp_path: Path) -> None:
    adk = pytest.importorskip("google.adk")
    fresh = generate(tmp_path)
    assert sorted(fresh) == NAMES
    for name, path in fresh.items():
        committed = DATA_DIR / path.name
        assert load_result(path).model_dump(mode="json") == load_result(committed).model_dump(mode="json"), name
        if adk.__version__ == "2.13.0":  # the committed files came from this version, byte for byte
            assert path.read_bytes() == committed.read_bytes(), name
        else:
            assert json.loads(path.read_text()) is not None


def test_camel_case_dump_loads_like_the_file() -> None:
    # ADK's web server returns results with camelCase aliases; they read the same.
    utils = pytest.importorskip("google.adk.evaluation._eval_set_results_manager_utils")
    path = DATA_DIR / "all_cases.evalset_result.json"
    camel = utils.parse_eval_set_result_json(path.read_text()).model_dump_json(by_alias=True)
    assert '"rubricScores": null' in camel.replace('":null', '": null')
    assert _content(parse_result(camel)) == _content(load_result(path))


def _content(result: EvalSetResult) -> list[Any]:
    # What a reader of the result uses (preserved ADK originals keep the spelling they were written in).
    def metric(m: EvalMetricResult) -> Any:
        return (m.metric_name, m.score, m.eval_status, m.threshold, m.details and m.details.model_dump(mode="json"))

    def invocation(inv: Invocation | None) -> Any:
        if inv is None:
            return None
        final = inv.final_response.content if inv.final_response else None
        return (inv.user_content.content, final, [(t.id, t.name, t.arguments, t.result) for t in inv.tools])

    return [
        (
            c.eval_id,
            c.final_eval_status,
            c.session_id,
            c.user_id,
            [metric(m) for m in c.overall_eval_metric_results],
            [
                (
                    invocation(p.actual_invocation),
                    invocation(p.expected_invocation),
                    [metric(m) for m in p.eval_metric_results],
                )
                for p in c.eval_metric_result_per_invocation
            ],
        )
        for c in result.eval_case_results
    ]
