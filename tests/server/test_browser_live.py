"""The Live tab in a real headless Chromium: a session exported over OTLP appears while the page is open (server-sent
events), shows its turns, tool calls, tokens and durations, is scored against an eval set and saved as a case.

Set ``AGENTGAUGE_SCREENSHOT_DIR`` to keep the screenshot (docs/images/live.png is made this way).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import httpx
import pytest
from _browser import chromium_driver, csp_violations, running_server
from test_browser import UI, _shot

from agentgauge.server import ServerConfig, create_app

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

ROOT = Path(__file__).resolve().parents[2]
TRACES = ROOT / "examples" / "traces"


def _row_text(ui: UI) -> list[str]:
    return [row.text for row in ui.all("#live-list tr")]


def test_a_live_session_appears_is_scored_and_saved(tmp_path: Path) -> None:
    evals = tmp_path / "evals" / "weather"
    evals.mkdir(parents=True)
    shutil.copy(TRACES / "weather.evalset.json", evals)
    app = create_app(ServerConfig(data_dir=tmp_path / "data", evals_dir=tmp_path / "evals", otlp=True))
    with running_server(app) as url, chromium_driver() as driver:
        ui = UI(driver)
        driver.get(url + "/")
        ui.wait.until(lambda d: d.find_element("tag name", "body").get_attribute("data-ready") == "true")
        ui.click('#sets li[data-set="weather"]')
        ui.click("#tab-live")
        ui.wait.until(lambda d: d.find_element("tag name", "body").get_attribute("data-live") == "true")
        assert ui.css("#live-empty").is_displayed() and _row_text(ui) == []
        # The agent exports while the page is open: the row appears without a reload.
        for line in (TRACES / "adk_weather.otlp.jsonl").read_bytes().splitlines():
            answer = httpx.post(f"{url}/v1/traces", content=line, headers={"Content-Type": "application/json"})
            assert answer.status_code == 200
        ui.wait.until(lambda _: any("What is the weather in Paris?" in t for t in _row_text(ui)))
        ui.wait.until(lambda _: "ended" in _row_text(ui)[0])
        [row] = _row_text(ui)
        assert "weather_agent" in row and " 2 2 " in f" {row} "  # two turns, two tool calls
        # An OpenTelemetry-instrumented OpenAI loop exports too; its spans carry token usage.
        for line in (TRACES / "openai_weather.otlp.jsonl").read_bytes().splitlines():
            httpx.post(f"{url}/v1/traces", content=line, headers={"Content-Type": "application/json"})
        ui.wait.until(lambda _: len(_row_text(ui)) == 2 and "80 in / 40 out" in _row_text(ui)[0])
        ui.click('#live-list tr[data-key="703a6acc-a98d-48ce-9c32-ebd8aeb59ccf"] a.open-live')
        ui.text_in("#live-facts", "2 turn(s), 2 tool call(s)")
        turns = ui.all(".live-turn")
        assert len(turns) == 2
        assert "get_weather" in turns[0].text and "It is sunny in Paris, 21 °C." in turns[0].text
        assert " ms" in turns[0].text  # the turn's duration from its spans
        ui.click("#live-score")
        note = ui.text_in("#live-score-note", "weather: passed")
        assert "weather_two_cities (by eval id attribute)" in note
        scores = [r.text for r in ui.all("#live-score-list tr")]
        assert any(r.startswith("weather_two_cities tool_trajectory_avg_score 1.000") for r in scores), scores
        assert any("response_match_score" in r and "passed" in r for r in scores), scores
        _shot(driver, "live")
        ui.type("#live-case-id", "live_weather")
        ui.click("#live-save")
        ui.text_in("#live-saved", "Saved as case live_weather of weather (2 turn(s)).")
        saved: dict[str, Any] = json.loads((evals / "weather.evalset.json").read_text())
        assert [c["evalId"] for c in saved["evalCases"]][-1] == "live_weather"
        ui.wait.until(lambda d: d.find_element("css selector", '#case-list tr[data-case="live_weather"]') is not None)
        assert csp_violations(driver) == []
