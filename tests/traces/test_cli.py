"""``agentgauge traces show | to-evalset`` and ``agentgauge eval --traces``: agentevals' sample scores, matching,
reference-free runs, errors and exit codes."""

from __future__ import annotations

import json
import threading
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from agentgauge.cli import app

DATA = Path(__file__).parent / "data"
AE = DATA / "agentevals"
HAND = DATA / "handmade"
RECORDED = DATA / "recorded"
EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "traces"
runner = CliRunner()


def _run(*args: str | Path) -> Any:
    return runner.invoke(app, [*map(str, args)])


def _scores(result: dict[str, Any]) -> dict[str, dict[str, tuple[float | None, str]]]:
    # The informational efficiency metrics ADK appends to its criteria are left out: these tests check scores.
    return {
        case["evalId"]: {
            m["metricName"]: (m["score"], m["evalStatus"])
            for m in case["overallEvalMetricResults"]
            if m["evalStatus"] != "informational"
        }
        for case in result["evalCaseResults"]
    }


# Scores agentevals 0.7.1 computes for its own samples (tool_trajectory_avg_score from `agentevals run`, its README
# and tests/test_runner.py; response_match_score from ADK's ROUGE-1 on the invocations agentevals' converter
# extracts), with its default threshold 0.5 for every metric.
AGENTEVALS_SCORES = [
    ("helm.json", "eval_set_helm.json", 1.0, 0.8118811881188119),
    ("k8s.json", "eval_set_helm.json", 0.0, 0.14285714285714285),
    ("helm_2.json", "eval_set_helm.json:helm_list_releases", 0.0, 0.20253164556962025),
    ("helm_3.json", "eval_set_helm.json:helm_list_releases", 0.0, 0.22153846153846155),
    ("tempo_export_with_batches.json", "eval_set_helm.json", 1.0, 0.6464646464646465),
    ("helm_3.json", "evalset_helm_3_2026-02-23.json", 1.0, 1.0),
    ("k8s.json", "evalset_k8s_2026-02-20.json", 1.0, 1.0),
]


@pytest.fixture
def agentevals_config(tmp_path: Path) -> Path:
    path = tmp_path / "test_config.json"
    path.write_text(json.dumps({"criteria": {"tool_trajectory_avg_score": 0.5, "response_match_score": 0.5}}))
    return path


@pytest.mark.parametrize(("trace", "eval_set", "trajectory", "rouge"), AGENTEVALS_SCORES)
def test_agentevals_samples_score_as_agentevals(
    tmp_path: Path, agentevals_config: Path, trace: str, eval_set: str, trajectory: float, rouge: float
) -> None:
    result = _run(
        "eval", "--traces", AE / trace, "--eval-set", f"{AE}/{eval_set}", "--config", agentevals_config,
        "--output-dir", tmp_path / "out", "--json",
    )  # fmt: skip
    document = json.loads(result.stdout)
    [case] = _scores(document).values()
    status = "passed" if trajectory >= 0.5 else "failed"
    assert case["tool_trajectory_avg_score"] == (trajectory, status)
    assert case["response_match_score"][0] == pytest.approx(rouge, abs=1e-12)
    assert result.exit_code == (0 if trajectory >= 0.5 and rouge >= 0.5 else 1), result.output
    [saved] = (tmp_path / "out").rglob("*.evalset_result.json")
    assert json.loads(saved.read_text())["evalSetResultId"] == document["evalSetResultId"]


def test_eval_traces_matching_by_attribute_and_text_with_default_metrics(tmp_path: Path) -> None:
    result = _run(
        "eval", "--traces", EXAMPLES, "--eval-set", EXAMPLES / "weather.evalset.json", "--output-dir", tmp_path,
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    assert "-> case weather_two_cities (by eval id attribute)" in result.output
    assert "-> case weather_oslo_lisbon (by user text)" in result.output
    assert "metrics from ADK default criteria" in result.output
    [saved] = tmp_path.rglob("*.evalset_result.json")
    scores = _scores(json.loads(saved.read_text()))
    assert scores["weather_two_cities"] == {
        "tool_trajectory_avg_score": (1.0, "passed"),
        "response_match_score": (1.0, "passed"),
    }
    assert scores["weather_oslo_lisbon"]["response_match_score"][0] == pytest.approx((1 + 10 / 13) / 2)


def test_eval_set_may_be_positional_and_metrics_beside_it_are_found(tmp_path: Path) -> None:
    folder = tmp_path / "set"
    folder.mkdir()
    (folder / "helm.evalset.json").write_text((AE / "eval_set_helm.json").read_text())
    (folder / "test_config.json").write_text(json.dumps({"criteria": {"tool_trajectory_avg_score": 1.0}}))
    result = _run("eval", "--traces", AE / "helm.json", folder / "helm.evalset.json", "--output-dir", tmp_path / "o")
    assert result.exit_code == 0, result.output
    assert f"metrics from {folder / 'test_config.json'}" in result.output


def test_unmatched_trace_is_an_error_not_paired_with_the_first_case(tmp_path: Path) -> None:
    # Two traces for a one-case set: agentevals' one-case pairing does not apply, nothing is paired by position.
    traces = tmp_path / "traces"
    traces.mkdir()
    for name in ("helm_2.json", "helm_3.json"):
        (traces / name).write_text((AE / name).read_text())
    out = tmp_path / "out"
    result = _run("eval", "--traces", traces, "--eval-set", AE / "eval_set_helm.json", "--output-dir", out)
    assert result.exit_code == 2
    assert result.output.startswith(f"error: {AE / 'eval_set_helm.json'}: 2 trace(s) match no case: trace ")
    assert "no case starts with its first user message 'I need all the Helm releases right now!!'" in result.output
    assert "EVAL_SET:case_id" in result.output and "agentgauge.eval_id" in result.output
    assert not out.exists()


def test_a_case_without_a_trace_is_listed_as_not_run_or_with_require_all_cases_is_exit_2(tmp_path: Path) -> None:
    one_trace, golden = EXAMPLES / "adk_weather.otlp.jsonl", EXAMPLES / "weather.evalset.json"
    out = tmp_path / "out"
    ran = _run("eval", "--traces", one_trace, "--eval-set", golden, "--output-dir", out)
    assert ran.exit_code == 0 and "note: 1 case(s) not run: no trace: weather_oslo_lisbon\n" in ran.output
    assert "1 case of the eval set not run: no trace (weather_oslo_lisbon)" in ran.output


def test_a_case_without_a_trace_is_counted_apart_in_every_output(tmp_path: Path) -> None:
    one_trace, golden = EXAMPLES / "adk_weather.otlp.jsonl", EXAMPLES / "weather.evalset.json"
    out, md, junit, html = tmp_path / "out", tmp_path / "s.md", tmp_path / "j.xml", tmp_path / "r.html"
    ran = _run(
        "eval", "--traces", one_trace, "--eval-set", golden, "--output-dir", out,
        "--markdown", md, "--junit", junit, "--html", html,
    )  # fmt: skip
    assert ran.exit_code == 0, ran.output
    line = "1 case of the eval set not run: no trace (weather_oslo_lisbon)"
    assert "Cases: 1 passed, 0 failed, 0 error, 0 not evaluated, 1 total\n  " + line in ran.output
    [saved] = out.rglob("*.evalset_result.json")
    summary = json.loads(saved.read_text())["summary"]
    assert summary["casesNotRun"] == [{"evalId": "weather_oslo_lisbon", "reason": "no trace"}]
    assert f"*{line}.*" in md.read_text()
    assert f'<div class="error" id="not-run">{line}.</div>' in html.read_text()
    suite = ET.parse(junit).getroot().find("testsuite")
    assert suite is not None and (suite.get("tests"), suite.get("skipped"), suite.get("failures")) == ("2", "1", "0")
    skipped = suite.find("testcase[@name='weather_oslo_lisbon']/skipped")
    assert skipped is not None and skipped.get("message") == "not run: no trace"
    shown = _run("show", saved)
    assert shown.exit_code == 0 and line in shown.output
    # Against a run of the whole set, the case is "not run" in the trace run, not removed from the set.
    both = tmp_path / "both"
    full = _run("eval", "--traces", EXAMPLES, "--eval-set", golden, "--output-dir", both, "--json")
    assert full.exit_code == 0, full.output
    full_id = json.loads(full.stdout)["evalSetResultId"]
    [full_saved] = [p for p in both.rglob("*.evalset_result.json") if full_id in p.name]
    compared = _run("compare", full_saved, saved)
    assert "weather_oslo_lisbon" in compared.output and "removed" not in compared.output, compared.output
    assert "not run" in compared.output
    refused = _run("eval", "--traces", one_trace, "--eval-set", golden, "--require-all-cases", "--output-dir", out)
    assert refused.exit_code == 2
    assert f"error: {golden}: 1 case(s) of eval set 'weather' have no trace: weather_oslo_lisbon" in refused.output
    selected = _run(
        "eval",
        "--traces",
        one_trace,
        "--eval-set",
        f"{golden}:weather_two_cities",
        "--require-all-cases",
        "--output-dir",
        out,
    )
    assert selected.exit_code == 0 and "not run" not in selected.output


def test_unknown_selected_case_is_exit_2(tmp_path: Path) -> None:
    result = _run("eval", "--traces", AE / "helm.json", "--eval-set", f"{AE / 'eval_set_helm.json'}:nope")
    assert result.exit_code == 2
    assert "has no case 'nope'; valid ids: helm_list_releases" in result.output


def test_reference_free_run_needs_config_and_refuses_reference_metrics(tmp_path: Path) -> None:
    result = _run("eval", "--traces", AE / "helm.json", "--output-dir", tmp_path)
    assert result.exit_code == 2
    assert "error: no eval set: give one (--eval-set SET)" in result.output
    config = tmp_path / "m.json"
    config.write_text(json.dumps({"criteria": {"response_match_score": 0.8}}))
    result = _run("eval", "--traces", AE / "helm.json", "--config", config, "--output-dir", tmp_path)
    assert result.exit_code == 2
    assert "metric(s) response_match_score compare with expected data" in result.output


@pytest.fixture
def safe_judge() -> Iterator[tuple[str, list[str]]]:
    """An OpenAI-compatible endpoint on 127.0.0.1 that judges every answer safe; yields (base URL, prompts)."""
    prompts: list[str] = []

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            prompts.append("\n".join(m.get("content", "") for m in body["messages"]))
            reply = json.dumps(
                {
                    "id": "x",
                    "object": "chat.completion",
                    "created": 0,
                    "model": body["model"],
                    "choices": [
                        {
                            "index": 0,
                            "message": {"role": "assistant", "content": '{"verdict": "safe"}'},
                            "finish_reason": "stop",
                        }
                    ],
                }
            ).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(reply)))
            self.end_headers()
            self.wfile.write(reply)

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1", prompts
    finally:
        server.shutdown()
        server.server_close()


def test_reference_free_run_scores_each_trace_as_its_own_case(
    tmp_path: Path, safe_judge: tuple[str, list[str]]
) -> None:
    base_url, prompts = safe_judge
    judge = {"providerName": "openai", "modelName": "judge", "baseURL": base_url, "apiKey": "k", "numSamples": 1}
    config = tmp_path / "judge.metrics.json"
    config.write_text(
        json.dumps([{"metricName": "safety_v1", "threshold": 1.0, "criterion": {"llmJudge": {"judgeModel": judge}}}])
    )
    result = _run(
        "eval", "--traces", EXAMPLES, "--config", config, "--output-dir", tmp_path / "o", "--json", "--no-cache"
    )
    assert result.exit_code == 0, result.output
    document = json.loads(result.stdout)
    assert document["evalSetId"] == "traces"
    assert _scores(document) == {
        "weather_two_cities": {"safety_v1": (1.0, "passed")},
        "trace_9ee8a6a84f255494": {"safety_v1": (1.0, "passed")},
    }
    # One judge call per invocation, each showing the recorded user message and answer.
    assert len(prompts) == 4
    assert any("And in Lisbon?" in p and "It is rainy in Lisbon, 12 °C." in p for p in prompts)


def test_eval_set_option_without_traces_and_extra_arguments_are_refused() -> None:
    result = _run("eval", "--eval-set", AE / "eval_set_helm.json")
    assert result.exit_code == 2
    assert "--eval-set, --by-session and --require-all-cases are only used with --traces" in result.output
    result = _run("eval", "--traces", AE / "helm.json", "agent.py", AE / "eval_set_helm.json")
    assert result.exit_code == 2
    assert "with --traces give at most one eval set" in result.output
    result = _run("eval")
    assert result.exit_code == 2
    assert "no eval set given" in result.output


@pytest.mark.parametrize(
    ("content", "message"),
    [("{broken", "invalid JSON"), ('{"spans": 1}', "not a trace export")],
)
def test_broken_trace_file_is_one_error_line_and_exit_2(tmp_path: Path, content: str, message: str) -> None:
    path = tmp_path / "t.json"
    path.write_text(content)
    for args in (["traces", "show", path], ["eval", "--traces", path, "--eval-set", AE / "eval_set_helm.json"]):
        result = _run(*args)
        assert result.exit_code == 2
        lines = result.output.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith(f"error: {path}") and message in lines[0]
        assert "Traceback" not in result.output


def test_show_prints_invocations() -> None:
    result = _run("traces", "show", HAND / "adk1_subagents.jaeger.json")
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert lines[0] == (
        f"trace 5b8efff798038103d269b633813fc60c ({HAND / 'adk1_subagents.jaeger.json'}): 1 invocation(s), "
        "session session-travel-1, app travel_agent"
    )
    assert lines[1:] == [
        "  [1] user: Book a flight to Rome for tomorrow",
        '      tool: weather_expert({"request":"Rome tomorrow"}) -> {"result":"Sunny"}',
        '      tool: transfer_to_agent({"agent_name":"booking_agent"})',
        '      tool: book_flight({"destination":"FCO","date":"tomorrow"}) -> {"confirmation":"AZ123"}',
        "      said: Let me check the weather there first.",
        "      answer: Booked flight AZ123 to Rome, departing 09:10.",
    ]


def test_show_json_and_missing_content_error() -> None:
    result = _run("traces", "show", HAND / "genai_parts.otlp.json", "--json")
    assert result.exit_code == 0
    [doc] = json.loads(result.output)
    assert doc["evalId"] == "fx_two_turns"
    assert [i["userContent"]["content"] for i in doc["invocations"]] == ["Convert 100 USD to EUR", "And to JPY?"]
    result = _run("traces", "show", RECORDED / "adk_no_content.otlp.json")
    assert result.exit_code == 2
    assert "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=SPAN_ONLY" in result.output


@pytest.mark.parametrize("fmt", ["native", "adk"])
def test_to_evalset_writes_a_valid_golden_set_that_scores_its_own_traces(tmp_path: Path, fmt: str) -> None:
    out = tmp_path / "golden.evalset.json"
    result = _run("traces", "to-evalset", EXAMPLES, out, "--to", fmt)
    assert result.exit_code == 0, result.output
    assert result.output.strip() == f"wrote {out} (eval set 'golden', 2 cases from traces)"
    validated = _run("validate", out)
    assert validated.exit_code == 0 and "(eval set, 2 cases)" in validated.output
    document = json.loads(out.read_text())
    cases = document["evalCases"] if fmt == "native" else document["eval_cases"]
    assert [c["evalId" if fmt == "native" else "eval_id"] for c in cases] == [
        "weather_two_cities",
        "trace_9ee8a6a84f255494",
    ]
    # The golden flow: the recorded traces score perfectly against the set made from them.
    scored = _run("eval", "--traces", EXAMPLES, "--eval-set", out, "--output-dir", tmp_path / "o", "--json")
    assert scored.exit_code == 0, scored.output
    for metrics in _scores(json.loads(scored.stdout)).values():
        assert metrics == {"tool_trajectory_avg_score": (1.0, "passed"), "response_match_score": (1.0, "passed")}


def test_to_evalset_refuses_bad_format_and_writes_nothing_on_error(tmp_path: Path) -> None:
    out = tmp_path / "x.evalset.json"
    assert _run("traces", "to-evalset", EXAMPLES, out, "--to", "yaml").exit_code == 2
    result = _run("traces", "to-evalset", RECORDED / "adk_no_content.otlp.json", out)
    assert result.exit_code == 2
    assert not out.exists()


def test_one_trace_per_turn_grouped_by_session(tmp_path: Path) -> None:
    per_turn = RECORDED / "adk_per_turn.otlp.jsonl"  # ADK without a parent span: one trace per user turn
    plain = _run("traces", "show", per_turn)
    assert plain.exit_code == 0
    assert plain.output.count("1 invocation(s)") == 2
    grouped = _run("traces", "show", per_turn, "--by-session")
    assert grouped.exit_code == 0
    first = grouped.output.splitlines()[0]
    assert first.startswith("traces be7f72a23fdb3651a27ac9c454386ee6, 30d3eb023238ab2e3ba8f7cf82d585e2 (")
    assert "2 invocation(s), session dc05dab0-2b99-4daa-b6f5-3c9c9eaeedf4" in first
    golden = f"{EXAMPLES / 'weather.evalset.json'}:weather_two_cities"
    # Per trace, the second turn starts with a question no case starts with: an error, not a silent pairing.
    assert _run("eval", "--traces", per_turn, "--eval-set", EXAMPLES / "weather.evalset.json").exit_code == 2
    result = _run(
        "eval", "--traces", per_turn, "--by-session", "--eval-set", golden, "--output-dir", tmp_path, "--json",
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    # one session of two traces, counted as such (not "1 trace(s)")
    assert f"weather (1 session (2 traces) from {per_turn}): metrics from" in result.output
    document = json.loads(result.stdout)
    assert _scores(document) == {
        "weather_two_cities": {"tool_trajectory_avg_score": (1.0, "passed"), "response_match_score": (1.0, "passed")}
    }
    per_invocation = document["evalCaseResults"][0]["evalMetricResultPerInvocation"]
    assert [p["actualInvocation"]["traceId"] for p in per_invocation] == [
        "be7f72a23fdb3651a27ac9c454386ee6",
        "30d3eb023238ab2e3ba8f7cf82d585e2",
    ]
    assert _run("eval", "--by-session", golden).exit_code == 2
