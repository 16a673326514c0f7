"""The Live tab's online section in a real headless Chromium: each rule's counts, latest scores and trend, the rules
file edited in place (a mistake shown with its path, a good file used at once), and History listing the period's
result as a run.

Set ``AGENTGAUGE_SCREENSHOT_DIR`` to keep the screenshot."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from _online import TOOL_METRICS, handled, online_server, send_sessions, wait_for

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "server"))

from _browser import chromium_driver, csp_violations
from test_browser import UI, _shot

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


def test_the_live_tab_shows_online_scores_and_edits_the_rules(tmp_path: Path) -> None:
    rules = "session_end: {settle_seconds: 0.1}\nniceness: 0\nrules:\n  - name: weather\n" + TOOL_METRICS
    with online_server(tmp_path / "data", rules) as url, chromium_driver() as driver:
        send_sessions(url, ["ui-1", "ui-2", "ui-3"])
        wait_for(url, lambda s: handled(s) == 3)
        ui = UI(driver)
        driver.get(url + "/")
        ui.wait.until(lambda d: d.find_element("tag name", "body").get_attribute("data-online") == "true")
        ui.click("#tab-live")
        counts = ui.text_in('.online-rule[data-rule="weather"] .online-counts', "3 scored")
        assert "3 ended" in counts and "0 errored" in counts
        assert len(ui.all('.online-rule[data-rule="weather"] polyline')) == 2  # a line per metric
        periods = ui.css(".online-periods").text
        assert "3 scored, 3 passed" in periods and "trajectory_tool_used 1.000" in periods
        recent = [r.text for r in ui.all(".online-recent tbody tr")]
        assert len(recent) == 3 and all("passed" in r and "online_weather_" in r for r in recent)
        _shot(driver, "online")
        results = tmp_path / "data" / "results" / "weather"
        ui.wait.until(lambda _: any(results.glob("online_weather_*.evalset_result.json")))  # saved every 5 s
        ui.click('.online-rule[data-rule="weather"] .online-history')  # each period is a run of online_weather
        ui.text_in("#history-scope", "1 runs of weather / online_weather")
        ui.click("#tab-live")
        ui.click("#online-edit")
        ui.wait.until(lambda _: "rules:" in ui.css("#online-text").get_attribute("value"))
        text = ui.css("#online-text")
        text.clear()
        text.send_keys("rules:\n  - name: x\n    sample_rate: 3\n")
        ui.click("#online-save")
        ui.text_in("#online-error", "rules[0].sample_rate")
        text.clear()
        text.send_keys("rules:\n  - name: renamed\n    metrics: [{metricName: tool_call_count_v1}]\n")
        ui.click("#online-save")
        ui.text_in("#online-saved", "Saved rules.yaml: renamed.")
        ui.wait.until(lambda d: d.find_elements("css selector", '.online-rule[data-rule="renamed"]'))
        assert csp_violations(driver) == []
