"""The HTML report, parsed: case table, sort keys, tool results, criterion-aware diffs, errors, rubric texts."""

from __future__ import annotations

from html_dom import Node, parse
from result_samples import failing_case, multi_run_result, usage_result

from agentgauge.model import Criterion, EvalMetricResultDetails, EvalSetResult, EvalStatus
from agentgauge.reporting import render
from agentgauge.reporting._stream import stream_reports
from agentgauge.reporting._view import build_view


def _doc(result: EvalSetResult) -> Node:
    return parse(render(result, "html"))


def _case(doc: Node, eval_id: str) -> Node:
    return doc.find("details", "case", data_case_id=eval_id)


def _pane(block: Node, title: str, index: int = 0) -> Node:
    panes = [p for p in block.find_all("div", "pane") if p.find("h4").text == title]
    return panes[index]


def test_case_table_lists_every_case_with_usage_and_first_reason() -> None:
    doc = _doc(usage_result())
    table = doc.find("table", "cases")
    heads = [th.text for th in table.find_all("th")]
    assert heads == ["Case", "Status", "Duration", "Tokens", "Cost", "First reason"]
    rows = {r.find_all("td")[0].text: [td.text for td in r.find_all("td")[1:]] for r in table.find_all("tr")[1:]}
    assert rows["weather"] == [
        "failed",
        "1.50 s",
        "150",
        "0.002",
        "tool_trajectory_avg_score (invocation 1): score 0 < threshold 1: arguments differ at $.city",
    ]
    assert rows["rubric_case"][:4] == ["failed", "0.25 s", "-", "-"]
    assert rows["crash"][4] == "error: agent failed on invocation 2 of 2 (crash-2): RuntimeError: boom"
    assert rows["fine"] == ["passed", "-", "-", "-", ""]
    # Each case links to its block.
    link = table.find("a")
    assert doc.find_all(id=link.attrs["href"][1:])[0].attrs["data-case-id"] == "weather"
    cards = {c.find("span").text: c.find("b").text for c in doc.find_all("div", "card")}
    assert (cards["Agent time"], cards["Tokens"], cards["Cost"]) == ("3.75 s", "210", "≥0.002")


def test_case_blocks_carry_sort_keys_and_the_toolbar_offers_them() -> None:
    doc = _doc(usage_result())
    keys = {
        b.attrs["data-case-id"]: (b.attrs["data-order"], b.attrs["data-status"], b.attrs["data-duration"],
                                  b.attrs["data-tokens"], b.attrs["data-cost"])
        for b in doc.find_all("details", "case")
    }  # fmt: skip
    assert keys == {
        "weather": ("0", "0", "1.5", "150", "0.002"),
        "rubric_case": ("1", "0", "0.25", "", ""),
        "crash": ("2", "1", "2.0", "60", ""),  # error sorts after failed
        "fine": ("3", "4", "", "", ""),
    }
    options = [o.attrs["value"] for o in doc.find("select", id="case-sort").find_all("option")]
    assert options == ["order", "status", "id", "duration", "tokens", "cost"]
    assert len(doc.find_all("table", "sortable")) == 2  # metrics and cases


def test_tool_results_are_shown_and_a_differing_result_is_flagged() -> None:
    block = _case(_doc(usage_result()), "weather")
    expected, actual = _pane(block, "Expected"), _pane(block, "Actual")
    assert expected.find("div", "result").text == '→ {"sky": "sunny"}'
    flagged = actual.find("div", "rdiff")
    assert flagged.text.startswith('→ {"sky": "rain"}')
    assert "rdiff" not in expected.find("div", "result").classes


def test_diff_follows_the_failed_criterion() -> None:
    block = _case(_doc(usage_result()), "weather")
    expected, actual = _pane(block, "Expected"), _pane(block, "Actual")
    # The trajectory failed: the city is marked on both sides.
    assert [d.text for d in expected.find("div", "calls").find_all("del")] == ["Paris"]
    assert [i.text for i in actual.find("div", "calls").find_all("ins")] == ["Lyon"]
    # The final response passed its "contains" check: other words, but nothing is marked as changed.
    responses = [p.find("pre") for p in (expected, actual)]
    assert [r.text for r in responses] == ["It is sunny in Paris.", "Paris: sunny today, enjoy!"]
    assert not any(r.find_all("del") or r.find_all("ins") for r in responses)


def test_a_failed_response_is_word_diffed_and_equal_calls_are_not_marked() -> None:
    doc = _doc(EvalSetResult(eval_set_id="s", eval_case_results=[failing_case()]))
    block = _case(doc, "multiply_pipe|<tag>")
    second = block.find_all("div", "inv")[1]
    assert [d.text for d in _pane(second, "Expected").find_all("del")] == ["7", "42"]
    assert [i.text for i in _pane(second, "Actual").find_all("ins")] == ["8", "48"]
    first = block.find_all("div", "inv")[0]  # all metrics passed there
    assert not first.find_all("div", "diff") and not first.find_all("del")


def test_errored_case_shows_traceback_and_partial_trajectory() -> None:
    block = _case(_doc(usage_result()), "crash")
    assert block.find("div", "error").text == "agent failed on invocation 2 of 2 (crash-2): RuntimeError: boom"
    traceback = block.find("details", "traceback")
    assert traceback.find("pre").text.endswith("RuntimeError: boom")
    assert block.find("div", "partial").text.startswith("Partial trajectory: 1 invocation finished before the error")
    invocations = block.find_all("div", "inv")
    assert len(invocations) == 1
    assert _pane(invocations[0], "Actual").find("code").text == 'add({"a": 2, "b": 3})'


def test_rubric_texts_are_shown_and_reasons_are_not_repeated() -> None:
    block = _case(_doc(usage_result()), "rubric_case")
    items = block.find_all("li")
    assert [li.text for li in items] == ["polite The answer thanks the user. — score 0 — no thanks given"]
    assert items[0].find("span", "rubric-text").text == "The answer thanks the user."
    reasons = [d.text for d in block.find_all("div", "reason")]
    assert reasons == ["the answer is curt"]  # once, at the invocation; not again in the case's table


def test_a_distinct_overall_reason_is_kept() -> None:
    case = failing_case()
    case.overall_eval_metric_results[0].details = EvalMetricResultDetails(reason="1/2 invocations matched")
    block = _case(_doc(EvalSetResult(eval_set_id="s", eval_case_results=[case])), "multiply_pipe|<tag>")
    assert next(d.text for d in block.find_all("div", "reason")) == "1/2 invocations matched"


def test_runs_are_grouped_per_case() -> None:
    doc = _doc(multi_run_result())
    rows = {r.find_all("td")[0].text: r.find_all("td")[2].text for r in doc.find("table", "cases").find_all("tr")[1:]}
    assert rows == {"add_small": "3/3", "multiply_pipe|<tag>": "1/3"}
    flaky = [b for b in doc.find_all("details", "case") if b.attrs["data-case-id"] == "multiply_pipe|<tag>"]
    assert [b.find("span", "runs").text for b in flaky] == ["1/3 runs passed"] * 3
    assert [b.attrs["id"] for b in flaky] == ["c1r1", "c1r2", "c1r3"]


def test_streamed_html_equals_the_rendered_page(tmp_path) -> None:  # type: ignore[no-untyped-def]
    result = usage_result()
    stream_reports(build_view(result), iter(result.eval_case_results), [(tmp_path / "r.html", "html")])
    assert (tmp_path / "r.html").read_text(encoding="utf-8") == render(result, "html")


def test_no_usage_means_no_usage_columns_or_cards() -> None:
    doc = _doc(EvalSetResult(eval_set_id="s", eval_case_results=[failing_case()]))
    assert [th.text for th in doc.find("table", "cases").find_all("th")] == ["Case", "Status", "First reason"]
    assert not doc.find_all("span", "usage")
    assert "Tokens" not in {c.find("span").text for c in doc.find_all("div", "card")}
    assert EvalStatus.FAILED.value in doc.find("h1").text


def test_a_failed_contains_check_marks_the_missing_text_not_a_word_diff() -> None:
    case = failing_case()
    check = case.eval_metric_result_per_invocation[1].eval_metric_results[1]
    check.criterion = Criterion(final_response={"text": {"matchStrategy": "contains"}})
    block = _case(_doc(EvalSetResult(eval_set_id="s", eval_case_results=[case])), "multiply_pipe|<tag>")
    second = block.find_all("div", "inv")[1]
    expected, actual = (_pane(second, t).find_all("pre")[-1] for t in ("Expected", "Actual"))
    assert expected.text == "must contain: The answer is 42."
    assert [d.text for d in expected.find_all("del")] == ["The answer is 42."]
    assert actual.text == "The answer is 48." and not actual.find_all("ins")
