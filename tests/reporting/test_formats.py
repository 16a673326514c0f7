"""JSON, JUnit XML, Markdown and HTML reports built from model fixtures."""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from result_samples import errored_case, failing_case, multi_run_result, passing_case, usage_result

from agentgauge.errors import InputError
from agentgauge.model import EvalSetResult
from agentgauge.reporting import FORMATS, render, write_report


def _counts(suite: ET.Element) -> tuple[str | None, ...]:
    return tuple(suite.get(k) for k in ("tests", "failures", "errors", "skipped"))


def _suite(xml_text: str) -> ET.Element:
    root = ET.fromstring(xml_text)
    assert root.tag == "testsuites"
    suites = root.findall("testsuite")
    assert len(suites) == 1
    return suites[0]


def test_json_is_the_eval_set_result(single_run: EvalSetResult) -> None:
    data = json.loads(render(single_run, "json"))
    assert data["evalSetId"] == "calc"
    assert [c["evalId"] for c in data["evalCaseResults"]] == [
        "add_small",
        "multiply_pipe|<tag>",
        "no_expected",
        "agent_crash",
    ]
    assert EvalSetResult.model_validate(data) == single_run


def test_junit_counts_failures_errors_and_skips(single_run: EvalSetResult) -> None:
    suite = _suite(render(single_run, "junit"))
    assert (
        suite.get("name"),
        suite.get("tests"),
        suite.get("failures"),
        suite.get("errors"),
        suite.get("skipped"),
    ) == (
        "calc",
        "4",
        "1",
        "1",
        "1",
    )
    cases = {c.get("name"): c for c in suite.findall("testcase")}
    assert list(cases) == ["add_small", "multiply_pipe|<tag>", "no_expected", "agent_crash"]
    assert {c.get("classname") for c in cases.values()} == {"calc"}
    assert [child.tag for child in cases["add_small"] if child.tag != "properties"] == []
    failure = cases["multiply_pipe|<tag>"].find("failure")
    assert failure is not None
    assert failure.get("message") == (
        "tool_trajectory_avg_score (invocation 2): score 0 < threshold 1; "
        "response_match_score (invocation 2): score 0.5 < threshold 0.8"
    )
    text = failure.text or ""
    assert 'Expected:\n    tool calls: multiply({"a": 6, "b": 7})' in text
    assert 'Actual:\n    tool calls: multiply({"a": 6, "b": 8})' in text
    assert "tool_trajectory_avg_score: tool 0: arguments differ: b: 7 != 8" in text
    assert cases["multiply_pipe|<tag>"].find("error") is None
    error = cases["agent_crash"].find("error")
    assert error is not None and error.find("..") is None
    # The control character \x01 is not valid XML 1.0 and is replaced, everything else survives escaping.
    assert error.get("message") == 'inference failed: ZeroDivisionError("division by zero") & <stop>\ufffd'
    assert cases["agent_crash"].find("failure") is None
    assert cases["no_expected"].find("skipped") is not None
    props = {p.get("name"): p.get("value") for p in cases["multiply_pipe|<tag>"].iter("property")}
    assert props == {"metric.tool_trajectory_avg_score": "0.5", "metric.response_match_score": "0.75"}


def test_junit_one_testcase_per_case_with_its_runs(multi_run: EvalSetResult) -> None:
    suite = _suite(render(multi_run, "junit"))
    cases = suite.findall("testcase")
    assert [c.get("name") for c in cases] == ["add_small", "multiply_pipe|<tag>"]
    assert (suite.get("tests"), suite.get("failures"), suite.get("errors"), suite.get("skipped")) == (
        "2",
        "1",
        "0",
        "0",
    )
    failing = cases[1]
    properties = {p.get("name"): p.get("value") for p in failing.iter("property")}
    assert properties["case_status"] == "failed (1/3 runs passed; rule: mean of runs ≥ threshold)"
    assert (properties["runs"], properties["runs_passed"], properties["flaky"]) == ("3", "1", "true")
    assert [properties[f"run.{n}.status"] for n in (1, 2, 3)] == ["failed", "passed", "failed"]
    failure = failing.find("failure")
    assert failure is not None and failure.get("message", "").startswith(
        "multiply_pipe|<tag> failed (1/3 runs passed; rule: mean of runs ≥ threshold); run 1: "
    )
    assert "run 1 (failed):" in (failure.text or "") and "run 3 (failed):" in (failure.text or "")
    out = failing.find("system-out")
    assert out is not None and (out.text or "").splitlines()[1] == "run 2: passed"
    assert cases[0].find("failure") is None


def test_junit_one_testcase_per_run_with_junit_runs(multi_run: EvalSetResult) -> None:
    suite = _suite(render(multi_run, "junit", junit_runs=True))
    names = [c.get("name") for c in suite.findall("testcase")]
    assert names == [
        "add_small [run 1]",
        "multiply_pipe|<tag> [run 1]",
        "add_small [run 2]",
        "multiply_pipe|<tag> [run 2]",
        "add_small [run 3]",
        "multiply_pipe|<tag> [run 3]",
    ]
    assert (suite.get("tests"), suite.get("failures"), suite.get("errors"), suite.get("skipped")) == (
        "6",
        "2",
        "0",
        "0",
    )


@given(st.text(max_size=60), st.text(max_size=60))
def test_junit_is_well_formed_for_any_text(eval_id: str, error: str) -> None:
    case = errored_case()
    case.eval_id = eval_id
    case.error_message = error or "x"
    failing = failing_case()
    failing.overall_eval_metric_results[0].details = None
    failing.eval_metric_result_per_invocation[1].actual_invocation.final_response.content = error  # type: ignore[union-attr]
    result = EvalSetResult(eval_set_id=eval_id or "s", eval_case_results=[case, failing])
    suite = _suite(render(result, "junit"))
    assert suite.get("tests") == "2"
    assert suite.get("errors") == "1"
    assert suite.get("failures") == "1"


def test_markdown_summary_and_failed_cases(single_run: EvalSetResult) -> None:
    text = render(single_run, "markdown")
    assert text.startswith("## agentgauge: `calc` ❌ failed\n")
    assert "| Cases | Passed | Failed | Error | Not evaluated | Runs |" in text
    assert "| 4 | 1 | 1 | 1 | 1 | 1 |" in text
    assert "| tool_trajectory_avg_score | 0.75 | 1 | ❌ failed | 1 | 1 | 0 |" in text
    assert "| response_match_score | 0.875 | 0.8 | ✅ passed | 1 | 1 | 1 |" in text
    assert "#### `multiply_pipe|<tag>` ❌ failed" in text
    assert "**Error:** `inference failed:" in text
    assert "#### `no_expected` ⚪ not evaluated" in text
    assert "add_small" not in text.split("### Cases that did not pass")[1]
    block = re.search(r"```text\n(.*?)\n```", text, re.S)
    assert block is not None
    assert "  Expected:\n    tool calls: multiply" in block.group(1)
    assert "response_match_score: judge: the number is wrong" in block.group(1)
    assert "rubric correct scored 0: 42 expected" in block.group(1)


def test_markdown_pass_at_k_for_multi_run(multi_run: EvalSetResult) -> None:
    text = render(multi_run, "markdown")
    # add_small passed 3 of 3 runs, the multiply case 1 of 3: pass@1 = (1 + 1/3) / 2, pass^3 = (1 + 1/27) / 2.
    assert "| 1 | 0.6667 | 0.6667 |" in text
    assert "| 3 | 1 | 0.5185 |" in text
    assert "`multiply_pipe|<tag> [run 1]`" in text
    assert "`multiply_pipe|<tag> [run 2]`" not in text


def test_markdown_escapes_table_cells() -> None:
    case = passing_case()
    case.overall_eval_metric_results[0].metric_name = "a|b<c>"
    text = render(EvalSetResult(eval_set_id="s", eval_case_results=[case]), "markdown")
    assert "| a\\|b\\<c\\> |" in text


@pytest.mark.parametrize("result", [multi_run_result(), EvalSetResult(eval_set_id="empty")], ids=["multi", "empty"])
def test_html_is_self_contained(result: EvalSetResult, single_run: EvalSetResult) -> None:
    for res in (result, single_run):
        html = render(res, "html")
        assert html.startswith("<!DOCTYPE html>")
        assert "http://" not in html and "https://" not in html
        assert "<link" not in html and "<script src" not in html and "@import" not in html
        assert "<style>" in html and "<script>" in html


def test_html_contains_every_case_and_marks_differences(single_run: EvalSetResult) -> None:
    html = render(single_run, "html")
    for case in single_run.eval_case_results:
        assert f'data-case-id="{case.eval_id.replace("<", "&lt;").replace(">", "&gt;")}"' in html
    assert 'id="only-failed"' in html
    # Differing tool calls are flagged on both sides with the differing words marked; a passing case's call is
    # not; words of the answer are diffed.
    assert '<div class="call diff"><code>multiply({&quot;a&quot;: 6, &quot;b&quot;: <del>7</del>})</code></div>' in html
    assert '<div class="call diff"><code>multiply({&quot;a&quot;: 6, &quot;b&quot;: <ins>8</ins>})</code></div>' in html
    assert '<div class="call"><code>add({&quot;a&quot;: 2, &quot;b&quot;: 3})</code></div>' in html
    assert "The answer is <del>42</del>." in html
    assert "The answer is <ins>48</ins>." in html
    assert "judge: the number is wrong" in html
    assert "ZeroDivisionError(&quot;division by zero&quot;) &amp; &lt;stop&gt;" in html
    assert "multiply_pipe|<tag>" not in html


@pytest.mark.parametrize("fmt", FORMATS)
def test_write_report_writes_atomically(fmt: str, tmp_path: Path, single_run: EvalSetResult) -> None:
    target = tmp_path / "deep" / f"report.{fmt}"
    write_report(single_run, target, fmt)  # type: ignore[arg-type]
    assert target.read_text(encoding="utf-8") == render(single_run, fmt)  # type: ignore[arg-type]
    assert [p.name for p in target.parent.iterdir()] == [target.name]


def test_unknown_format_is_an_input_error(single_run: EvalSetResult) -> None:
    with pytest.raises(InputError, match="unknown report format 'pdf': expected one of json, junit, markdown, html"):
        render(single_run, "pdf")  # type: ignore[arg-type]


def test_junit_time_comes_from_recorded_durations() -> None:
    suite = _suite(render(usage_result(), "junit"))
    times = {case.get("name"): case.get("time") for case in suite.iter("testcase")}
    assert times == {"weather": "1.500", "rubric_case": "0.250", "crash": "2.000", "fine": None}
    assert suite.get("time") == "3.750"
    props = {
        p.get("name"): p.get("value")
        for p in next(c for c in suite.iter("testcase") if c.get("name") == "weather").iter("property")
    }
    assert (props["usage.total_tokens"], props["usage.cost"], props["usage.model"]) == ("150", "0.002", "gpt-test")


def test_junit_has_no_time_when_nothing_was_recorded(single_run: EvalSetResult) -> None:
    suite = _suite(render(single_run, "junit"))
    assert suite.get("time") is None
    assert all(case.get("time") is None for case in suite.iter("testcase"))
    assert not any(p.get("name", "").startswith("usage.") for p in suite.iter("property"))


def test_markdown_shows_usage_and_a_table_of_cases_that_did_not_pass() -> None:
    md = render(usage_result(), "markdown")
    assert "**Usage:** 3.75 s (model 1.88 s) · 210 tokens (170 in / 40 out) · 2 model calls · cost ≥0.002" in md
    assert "| Case | Status | Duration | Tokens | Cost | First reason |" in md
    assert (
        "| `weather` | ❌ failed | 1.50 s | 150 | 0.002 | tool_trajectory_avg_score (invocation 1): score 0 \\< "
        "threshold 1: arguments differ at $.city |"
    ) in md
    assert "*1.50 s (model 0.75 s) · 150 tokens (120 in / 30 out) · 1 model call · cost 0.002*" in md
    assert "<details><summary>Traceback</summary>\n\n```text\nTraceback (most recent call last):" in md


def test_markdown_groups_runs_per_case(multi_run: EvalSetResult) -> None:
    md = render(multi_run, "markdown")
    assert (
        "| `multiply_pipe\\|<tag>` | ❌ failed (1/3 runs passed; rule: mean of runs ≥ threshold) | 1/3 | run 1: "
        "tool_trajectory_avg_score"
    ) in md
    assert "Duration" not in md
