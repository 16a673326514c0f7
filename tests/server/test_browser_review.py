"""The review views in a real headless Chromium: replay of a failed case, its span timeline, the case list's filter
and search, the history's trend chart and runs × cases matrix over three runs, the metric picker saving an ADK
``test_config.json`` that google-adk loads, the report grown to its height, and a narrow window.

Set ``AGENTGAUGE_SCREENSHOT_DIR`` to keep screenshots of each view (docs/images is made this way).
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from _browser import Page, chromium_driver, csp_violations, running_server, shot
from typer.testing import CliRunner

from agentgauge.cli import app as cli
from agentgauge.server import ServerConfig, create_app

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def _three_runs(evals: Path, results: Path, scratch: Path) -> None:
    """Three trace-mode runs of ``weather_usage``: its metrics file (one case fails), a lenient file (both pass),
    its metrics file again."""
    lenient = scratch / "lenient.metrics.json"
    lenient.write_text(json.dumps([{"metricName": "tool_trajectory_avg_score", "threshold": 0}]))
    evalset = evals / "trace_mode" / "weather_usage.evalset.json"
    for extra in ([], ["--metrics", str(lenient)], []):
        out = scratch / f"out{len(list(scratch.glob('out*')))}"
        done = CliRunner().invoke(cli, ["eval", str(evalset), "--output-dir", str(out), *extra])
        assert done.exit_code in (0, 1), done.output
        for file in out.rglob("*.evalset_result.json"):
            shutil.copy(file, results)


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Any, str, Path]]:
    """Chromium and a server with the trace-mode examples (three runs of ``weather_usage``) and the ADK example
    ``home_automation`` (an ADK eval set with its ``test_config.json``)."""
    root = tmp_path_factory.mktemp("review-ui")
    evals = root / "evals"
    shutil.copytree(EXAMPLES / "trace_mode", evals / "trace_mode")
    shutil.copytree(EXAMPLES / "home_automation", evals / "home_automation")
    results = root / "data" / "results" / "trace_mode"
    results.mkdir(parents=True)
    _three_runs(evals, results, root)
    config = ServerConfig(data_dir=root / "data", evals_dir=evals)
    with chromium_driver() as driver, running_server(create_app(config)) as url:
        yield driver, url, root


def test_replay_of_a_failed_case_and_its_timeline(served: tuple[Any, str, Path]) -> None:
    driver, url, _ = served
    page = Page(driver)
    csp_violations(driver)
    page.open_set(url, "trace_mode", "weather_usage")
    page.css("#tab-review").click()
    page.wait.until(lambda d: page.ids() == ["paris_today", "oslo_fahrenheit"])
    failing = page.css('.case-item[data-case="oslo_fahrenheit"]')
    assert failing.get_attribute("data-status") == "failed"
    assert "tool_trajectory_avg_score (invocation 1)" in failing.find_element("css selector", ".case-reason").text

    # j jumps to the next failed case and replays it.
    page.css("body").send_keys("j")
    page.wait.until(lambda d: d.find_element("tag name", "body").get_attribute("data-replay-case") == "oslo_fahrenheit")
    turn = page.css("#turn-1")
    assert (
        "failed" in turn.get_attribute("class") and turn.find_element("css selector", ".verdict-badge").text == "FAIL"
    )
    assert turn.find_element("css selector", ".ev.user").text.endswith(
        "How warm will it get in Oslo today, in Fahrenheit?"
    )
    calls = [n.text for n in turn.find_elements("css selector", ".ev.tool-call code")]
    assert calls == ['get_weather({"city": "Oslo"})', 'celsius_to_fahrenheit({"celsius": 12})']
    assert [n.text for n in turn.find_elements("css selector", ".ev.tool-call ins")] == ["12"]  # the actual side
    results = [n.text for n in turn.find_elements("css selector", ".ev.tool-result code")]
    assert results[-1] == '{"fahrenheit": 53.6}'
    # Each metric's verdict sits beside the turn it judges, with its reason.
    verdict = turn.find_element("css selector", '.verdict[data-metric="final_response_avg_score"]')
    assert "does not contain expected '51.8'" in verdict.text and "0.00 / 1.00" in verdict.text
    # The expected side, open on a failed turn, marks what differs as the HTML report does.
    expected = turn.find_element("css selector", "details.expected .expected-side")
    assert [n.text for n in expected.find_elements("css selector", "del")] == ["11", "51.8"]
    assert "must contain:" in expected.text
    shot(driver, "replay")

    # The timeline: trace-mode results keep per-invocation timings, not spans, and say so.
    timeline = page.css("#timeline")
    assert timeline.get_attribute("data-source") == "invocations"
    assert "No spans were recorded" in page.css("#timeline-note").text
    bars = page.all("#timeline .tl-bar")
    assert [b.get_attribute("class") for b in bars] == [
        "tl-bar agent",
        "tl-bar model aggregate",
        "tl-bar tool aggregate",
    ]
    hover = bars[1].find_element("css selector", "title").get_attribute("textContent")
    assert "model calls (3)" in hover and "655 in / 44 out tokens" in hover and "model gpt-4o-mini" in hover
    driver.execute_script(
        "arguments[0].dispatchEvent(new MouseEvent('click', {bubbles: true}))",
        bars[0].find_element("css selector", "rect"),
    )
    page.wait.until(lambda d: "highlight" in d.find_element("css selector", "#turn-1").get_attribute("class"))
    shot(driver, "timeline", "#timeline-note")
    assert csp_violations(driver) == []


def test_case_list_filter_and_search(served: tuple[Any, str, Path]) -> None:
    driver, url, _ = served
    page = Page(driver)
    page.open_set(url, "trace_mode", "weather_usage")
    page.css("#tab-review").click()
    page.wait.until(lambda d: len(page.ids()) == 2)
    from selenium.webdriver.support.ui import Select

    Select(page.css("#case-filter")).select_by_value("passed")
    page.wait.until(lambda d: page.ids() == ["paris_today"])
    assert page.css("#case-count").text == "1 of 2 cases · 1 failing"
    Select(page.css("#case-filter")).select_by_value("")
    search = page.css("#case-search")
    search.send_keys("oslo")  # the id
    page.wait.until(lambda d: page.ids() == ["oslo_fahrenheit"])
    search.clear()
    search.send_keys("weather in paris")  # words of the first user message
    page.wait.until(lambda d: page.ids() == ["paris_today"])
    search.clear()
    search.send_keys("arguments mismatch")  # words of the failure reason
    page.wait.until(lambda d: page.ids() == ["oslo_fahrenheit"])
    search.clear()
    search.send_keys("nothing like this")
    page.wait.until(lambda d: page.ids() == [])
    assert page.css("#case-count").text == "0 of 2 cases · 1 failing"
    assert page.css("#case-none").text == "No case matches the filter and search: clear them to see every case."


def test_trend_chart_and_matrix_over_three_runs(served: tuple[Any, str, Path]) -> None:
    driver, url, _ = served
    page = Page(driver)
    csp_violations(driver)
    page.open_set(url, "trace_mode", "weather_usage")
    page.css("#tab-history").click()
    page.wait.until(lambda d: d.find_element("tag name", "body").get_attribute("data-history-loaded") == "3")
    hits = page.all(".trend-hit")
    assert len(hits) == 3
    labels = [h.get_attribute("data-tip") for h in hits]  # the styled tooltip's text
    assert [line.split("\n")[1] for line in labels] == [
        "pass rate 0.500 (1/2 case runs)",
        "pass rate 1.000 (2/2 case runs)",
        "pass rate 0.500 (1/2 case runs)",
    ]
    assert "tool_trajectory_avg_score: 0.500" in labels[0] and "final_response_avg_score: 0.500" in labels[0]
    series = [p.get_attribute("data-series") for p in page.all("polyline.trend-line")]
    assert list(dict.fromkeys(series)) == ["pass rate", "tool_trajectory_avg_score", "final_response_avg_score"]
    assert series.count("final_response_avg_score") == 2  # run 2 did not score it: its line breaks there
    # The matrix: failing cases first, one column per run.
    cells = page.all("#matrix-box rect.cell")
    assert [(c.get_attribute("data-case"), c.get_attribute("class")) for c in cells] == [
        ("oslo_fahrenheit", "cell failed"),
        ("oslo_fahrenheit", "cell passed"),
        ("oslo_fahrenheit", "cell failed"),
        ("paris_today", "cell passed"),
        ("paris_today", "cell passed"),
        ("paris_today", "cell passed"),
    ]
    # The x-axis names each run; a hover shows the styled tooltip.
    assert [t.get_attribute("textContent").split(" ")[0] for t in page.all(".run-tick tspan:first-child")] == [
        "#1",
        "#2",
        "#3",
    ]
    from selenium.webdriver.common.action_chains import ActionChains

    ActionChains(driver).move_to_element(hits[1]).perform()
    page.wait.until(lambda d: d.find_element("id", "tip").is_displayed())
    assert "pass rate 1.000 (2/2 case runs)" in page.css("#tip").text
    shot(driver, "history")

    # Pick the first two runs and compare them: the failing case is fixed.
    for hit in page.all(".trend-hit")[:2]:
        driver.execute_script("arguments[0].dispatchEvent(new MouseEvent('click', {bubbles: true}))", hit)
    assert page.css("#history-picked").text == "Picked: #1 and #2"
    page.css("#history-compare").click()
    page.wait.until(lambda d: "fixed" in d.find_element("css selector", "#compare-summary").text)
    assert page.css('.compare-row[data-case="oslo_fahrenheit"]').get_attribute("data-change") == "fixed"

    # A cell opens that case of that run in the replay.
    page.css("#tab-history").click()
    page.wait.until(lambda d: len(page.all("#matrix-box rect.cell")) == 6)
    cell = page.all("#matrix-box rect.cell")[2]
    driver.execute_script("arguments[0].dispatchEvent(new MouseEvent('click', {bubbles: true}))", cell)
    page.wait.until(lambda d: d.find_element("tag name", "body").get_attribute("data-replay-case") == "oslo_fahrenheit")
    assert cell.get_attribute("data-result") in page.css("#review-scope").text
    assert csp_violations(driver) == []


def test_metric_picker_saves_an_adk_file_that_google_adk_loads(served: tuple[Any, str, Path]) -> None:
    driver, url, root = served
    try:
        from google.adk.evaluation.eval_config import get_evaluation_criteria_or_default
    except ImportError:
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail("CI=true but google-adk is not installed", pytrace=False)
        pytest.skip("needs google-adk (pip install 'agentgauge[adk]')")
    page = Page(driver)
    page.open_set(url, "home_automation", "home_automation_agent_light_on_off_set")
    page.css("#tab-metrics").click()
    page.wait.until(lambda d: "test_config.json" in d.find_element("css selector", "#picker-file").text)
    assert "ADK test_config.json form" in page.css("#picker-file").text
    row = page.css('.picker-row[data-metric="response_match_score"]')
    assert "chosen" in row.get_attribute("class")
    threshold = row.find_element("css selector", ".picker-threshold")
    threshold.clear()
    threshold.send_keys("0.6")
    judge = page.css('.picker-row[data-metric="final_response_match_v2"]')
    assert "1" in judge.find_elements("css selector", "td")[2].text  # the value range
    judge.find_element("css selector", ".picker-check").click()
    judge.find_element("css selector", ".picker-judge").send_keys("gemini-2.5-flash")
    page.click('.picker-row[data-metric="tool_trajectory_avg_score"] .picker-check')  # untick
    shot(driver, "metrics", "#panel-metrics")
    page.css("#picker-save").click()
    page.wait.until(lambda d: d.find_element("css selector", "#picker-note").text.startswith("Saved 2 metrics"))

    saved = root / "evals" / "home_automation" / "test_config.json"
    assert json.loads(saved.read_text()) == {
        "criteria": {
            "response_match_score": 0.6,
            "final_response_match_v2": {"threshold": 1.0, "judge_model_options": {"judge_model": "gemini-2.5-flash"}},
        }
    }
    loaded = get_evaluation_criteria_or_default(str(saved))
    assert set(loaded.criteria) == {"response_match_score", "final_response_match_v2"}
    assert not page.all(".picker-row.chosen .picker-check:not(:checked)")


def test_report_grows_to_its_height_and_narrow_window(served: tuple[Any, str, Path]) -> None:
    driver, url, _ = served
    page = Page(driver)
    csp_violations(driver)
    driver.set_window_size(1280, 800)
    page.open_set(url, "trace_mode", "weather_usage")
    page.css("#tab-runs").click()
    page.wait.until(lambda d: len(page.all(".result-row .open-result")) == 3)
    page.click(".result-row .open-result")
    frame = page.css("#result-frame")
    page.wait.until(lambda d: "fitted" in (frame.get_attribute("class") or ""))
    height = frame.size["height"]
    driver.switch_to.frame(frame)
    try:
        inner = driver.execute_script("return [document.documentElement.scrollHeight, window.innerHeight]")
    finally:
        driver.switch_to.default_content()
    assert inner[0] <= inner[1] + 1, inner  # the report never scrolls inside the page
    assert height >= inner[0] - 1
    assert page.css("#result-actions").is_displayed()
    page.css("#replay-result").click()
    page.wait.until(lambda d: len(page.ids()) == 2)

    driver.set_window_size(400, 800)
    try:
        page.click(".case-item", 1)
        page.wait.until(lambda d: d.find_elements("css selector", "#turn-1"))
        overflow = driver.execute_script("return document.documentElement.scrollWidth - window.innerWidth")
        assert overflow <= 1, overflow  # nothing wider than the window: no sideways scroll
        # The sidebar is folded behind its toggle: the content is the first screen.
        assert not page.css("#sidebar").is_displayed() and page.css("#sidebar-toggle").is_displayed()
    finally:
        driver.set_window_size(1280, 900)
    assert csp_violations(driver) == []
