"""The web UI in a real headless Chromium: the ADK Eval-tab flow end to end, and ADK Web served by --adk-web.

Set ``AGENTGAUGE_SCREENSHOT_DIR`` to keep screenshots of the main pages (docs/images is made this way).
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from _browser import chromium_driver, csp_violations, side_by_side

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

WAIT = 15  # seconds any one UI change may take


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """One headless Chromium for the module."""
    with chromium_driver() as driver:
        yield driver


def _shot(driver: Any, name: str) -> None:
    folder = os.environ.get("AGENTGAUGE_SCREENSHOT_DIR")
    if folder:
        Path(folder).mkdir(parents=True, exist_ok=True)
        driver.save_screenshot(str(Path(folder) / f"{name}.png"))


class UI:
    """Small helpers over the page (ids are the ones of static/index.html)."""

    def __init__(self, driver: Any) -> None:
        from selenium.common.exceptions import StaleElementReferenceException
        from selenium.webdriver.support.ui import WebDriverWait

        self.driver = driver
        # A condition that reads an element the page re-renders meanwhile (a live list) is evaluated again.
        self.wait = WebDriverWait(driver, WAIT, ignored_exceptions=(StaleElementReferenceException,))

    def css(self, selector: str) -> Any:
        from selenium.webdriver.common.by import By

        return self.wait.until(lambda d: d.find_element(By.CSS_SELECTOR, selector))

    def all(self, selector: str) -> list[Any]:
        from selenium.webdriver.common.by import By

        return list(self.driver.find_elements(By.CSS_SELECTOR, selector))

    def click(self, selector: str) -> None:
        from selenium.common.exceptions import StaleElementReferenceException

        def attempt(_: Any) -> bool:
            # A list the page re-renders meanwhile (e.g. the eval sets of an app chosen twice) is looked up again.
            try:
                node = self.css(selector)
                if not (node.is_displayed() and node.is_enabled()):
                    return False
                node.click()
            except StaleElementReferenceException:
                return False
            return True

        self.wait.until(attempt)

    def type(self, selector: str, text: str) -> None:
        field = self.css(selector)
        field.clear()
        field.send_keys(text)

    def text_in(self, selector: str, expected: str) -> str:
        self.wait.until(lambda d: expected in self.css(selector).text)
        return str(self.css(selector).text)

    def case_status(self, case_id: str) -> str:
        return str(self.css(f'.case-row[data-case="{case_id}"] .case-status').text)


def _tick(ui: UI, selector: str, index: int = 0) -> None:
    """Tick the ``index``-th checkbox ``selector`` matches (left ticked when it is), looked up again when the page
    re-draws its list meanwhile (a result saved re-draws the lists; their ticks are kept)."""
    from selenium.common.exceptions import StaleElementReferenceException

    def attempt(_: Any) -> bool:
        try:
            boxes = ui.all(selector)
            if len(boxes) <= index:
                return False
            if not boxes[index].is_selected():
                boxes[index].click()
            return bool(boxes[index].is_selected())
        except StaleElementReferenceException:
            return False

    ui.wait.until(attempt)


def _run_and_wait(ui: UI, case_id: str, outcome: str) -> None:
    ui.click("#tab-cases")
    _tick(ui, f'.case-row[data-case="{case_id}"] .case-check')
    ui.click("#run-selected")
    ui.text_in("#run-done", f"Run finished: {outcome}.")
    ui.wait.until(lambda d: ui.case_status(case_id) == outcome.replace("_", " "))
    assert ui.css("#progress").get_attribute("value") == "1"


def test_eval_tab_flow_in_chromium(browser: Any, live_server: tuple[str, Path]) -> None:
    url, data = live_server
    ui = UI(browser)
    csp_violations(browser)  # drop what earlier tests left in the console
    browser.get(url + "/")
    ui.wait.until(lambda d: d.find_element("tag name", "body").get_attribute("data-ready") == "true")
    ui.css('.app-item.active[data-app="calculator"]')

    # Create an eval set.
    ui.type("#new-set-id", "browser_set")
    ui.click("#create-set")
    ui.css('.set-item.active[data-set="browser_set"]')
    assert (data / "calculator" / "browser_set.evalset.json").is_file()

    # Chat with the calculator agent and add the session to the eval set.
    ui.click("#tab-chat")
    ui.click("#chat-new")
    ui.type("#chat-input", "calc add 2 3")
    ui.click("#chat-send")
    ui.text_in("#chat-log", "calc result: 5")
    assert "calculator" in ui.css(".msg.tool").text
    ui.type("#save-case-id", "add_case")
    ui.click("#save-case")
    ui.text_in("#saved-case", "Added case add_case to browser_set.")
    _shot(browser, "chat")

    # Run it: it passes (the default metrics: tool trajectory and response match).
    _run_and_wait(ui, "add_case", "passed")
    _shot(browser, "cases")

    # Edit the case: invalid JSON shapes are reported inline with their path, nothing is saved.
    ui.click('.case-row[data-case="add_case"] .case-edit')  # looked up again: a finished run re-draws the table
    ui.text_in("#editor-case", "add_case")
    editor = ui.css("#case-editor")
    ui.wait.until(lambda d: '"evalId": "add_case"' in (editor.get_attribute("value") or ""))
    case = json.loads(editor.get_attribute("value"))
    browser.execute_script("arguments[0].value = arguments[1]", editor, json.dumps({"conversation": 5}))
    ui.click("#case-save")
    error = ui.text_in("#case-error", "conversation")
    assert "list" in error.lower() or "array" in error.lower()
    _shot(browser, "editor")

    # Break the expected values and save.
    expected = case["conversation"][0]
    expected["finalResponse"]["content"] = "calc result: 6"
    expected["tools"][0]["arguments"]["b"] = 4
    browser.execute_script("arguments[0].value = arguments[1]", editor, json.dumps(case, indent=2))
    ui.click("#case-save")
    ui.text_in("#save-ok", "Saved case add_case.")
    assert ui.css("#case-error").is_displayed() is False
    stored = json.loads((data / "calculator" / "browser_set.evalset.json").read_text())
    assert stored["evalCases"][0]["conversation"][0]["finalResponse"]["content"] == "calc result: 6"

    # Run again: it fails, and the result view shows the difference.
    _run_and_wait(ui, "add_case", "failed")
    ui.click("#tab-runs")
    ui.wait.until(lambda d: len(ui.all(".result-row")) == 2)
    ui.click(".result-row .open-result")  # the first; looked up again when the list is re-drawn
    frame = ui.css("#result-frame")
    ui.wait.until(lambda d: "report.html" in (frame.get_attribute("src") or ""))
    browser.switch_to.frame(frame)
    try:
        ui.text_in("h1", "failed")
        assert ui.css('details[data-case-id="add_case"]').get_attribute("open") is not None
        # The expected answer's "6" is marked removed and the actual "5" added (tool-argument marks come too).
        assert "6" in [d.text for d in ui.all(".pane del")]
        assert "5" in [i.text for i in ui.all(".pane ins")]
        calls = [c.text for c in ui.all(".call.diff")]
        assert any("b=4" in c or '"b": 4' in c for c in calls), calls
    finally:
        browser.switch_to.default_content()
    _shot(browser, "result")

    # Compare the two runs: the case broke; metric deltas, pass@k and the significance note are shown.
    for index in range(len(ui.all(".compare-check"))):
        _tick(ui, ".compare-check", index)
    ui.click("#compare-selected")
    row = ui.css('.compare-row[data-case="add_case"]')
    assert row.find_element("css selector", ".change").text == "broken"
    assert row.find_element("css selector", ".runs").text == "1/1 → 0/1"
    assert "< threshold" in row.find_element("css selector", ".reason").text
    assert ui.css("#compare-summary").text == "REGRESSED: 1 broken"
    # The gate's verdict and rule, as `agentgauge compare` exits by, and what failed it.
    assert ui.css("#compare-gate .gate-verdict").text.startswith("Gate: FAILED (--fail-on broken, alpha 0.05): fails")
    assert ui.css("#compare-gate .gate-finding").text == "add_case: passed -> failed"
    delta = ui.css('.metric-delta[data-metric="response_match_score"] .delta')
    assert delta.text.startswith("-") and "neg" in (delta.get_attribute("class") or "")
    assert ui.css(".pass-at-k").text.split() == ["1", "1.000", "→", "0.000", "1.000", "→", "0.000"]
    assert "exact McNemar test" in ui.css(".significance").text
    assert ui.css('.estimate[data-estimate="pass rate (runs)"]').text.startswith("pass rate (runs): 1.000 → 0.000")
    # The broken case opens with both answers side by side (the same agent: nothing differs but the verdict).
    sides = side_by_side(browser, ui.wait, "add_case", lambda: _shot(browser, "compare"))
    assert sides[0] == sides[1] and "calc result: 5" in sides[1]

    # Delete the eval set (after confirming).
    ui.click("#tab-cases")
    ui.click("#delete-set")
    browser.switch_to.alert.accept()
    ui.wait.until(lambda d: not ui.all('.set-item[data-set="browser_set"]'))
    assert not (data / "calculator" / "browser_set.evalset.json").exists()
    # The whole flow, the report in its frame included, ran under the pages' Content-Security-Policy.
    assert csp_violations(browser) == []


def _fill(ui: UI, selector: str, text: str) -> None:
    """Type ``text`` into an input until it holds it on two checks in a row: ADK Web's dialog fills in its own
    default name once it has opened, which may land after (and replace) what was typed."""
    seen: list[bool] = []

    def attempt(_: Any) -> bool:
        box = ui.css(selector)
        if box.get_attribute("value") != text:
            box.clear()
            box.send_keys(text)
            seen.clear()
            return False
        seen.append(True)
        return len(seen) >= 2

    ui.wait.until(attempt)


def _click_text(ui: UI, text: str) -> None:
    """Click the first visible element whose own text is ``text`` (ADK Web's buttons have no stable ids)."""

    def attempt(driver: Any) -> bool:
        for node in driver.find_elements("xpath", f"//*[normalize-space(text())='{text}']"):
            try:
                node.click()
                return True
            except Exception:  # covered or not interactable yet: try the next one, then again
                continue
        return False

    ui.wait.until(attempt)


def test_adk_web_eval_tab_flow_with_our_agent(browser: Any, live_server: tuple[str, Path]) -> None:
    """--adk-web: google-adk's own UI, unchanged, against agentgauge: chat with the calculator agent, add the
    session to an eval set from the Evals tab, run it, see it pass."""
    import urllib.request

    from selenium.webdriver.common.keys import Keys

    url, data = live_server
    csp_violations(browser)
    urllib.request.urlopen(urllib.request.Request(url + "/dev/apps/calculator/eval_sets/adk_web_set", method="POST"))
    browser.get(url + "/dev-ui/")
    ui = UI(browser)
    ui.wait.until(lambda d: "calculator" in d.find_element("tag name", "body").text)
    config = browser.execute_script("return fetch('/dev-ui/assets/config/runtime-config.json').then(r => r.json())")
    assert config["backendUrl"] == ""
    box = ui.css("textarea")
    box.send_keys("calc mul 6 7")
    box.send_keys(Keys.ENTER)
    ui.wait.until(lambda d: "calc result: 42" in d.find_element("tag name", "body").text)
    _click_text(ui, "Evals")
    _click_text(ui, "adk_web_set")
    _click_text(ui, "From Current Session")
    _fill(ui, "mat-dialog-container input", "adk_web_case")
    _click_text(ui, "Create")
    ui.wait.until(lambda d: "adk_web_case" in d.find_element("tag name", "body").text)
    stored = json.loads((data / "calculator" / "adk_web_set.evalset.json").read_text())
    assert [c["evalId"] for c in stored["evalCases"]] == ["adk_web_case"]
    assert stored["evalCases"][0]["conversation"][0]["finalResponse"]["content"] == "calc result: 42"
    _click_text(ui, "Run All")
    run = ui.wait.until(
        lambda d: next((b for b in d.find_elements("css selector", "mat-dialog-container button")
                        if b.text.strip().endswith("Run")), None)
    )  # fmt: skip
    run.click()
    ui.wait.until(lambda d: "PASS" in d.find_element("tag name", "body").text)
    assert csp_violations(browser) == []  # ADK Web, unchanged, works under the policy it is served with
    results = list((data / "results" / "calculator").glob("calculator_adk_web_set_*.evalset_result.json"))
    assert len(results) == 1
    _shot(browser, "adk-web")


HANG_AGENT = """
import asyncio
from agentgauge.agents import AgentOutput

async def root_agent(request):
    text = request.user_content.content
    if text.startswith("hang"):
        await asyncio.Event().wait()  # never answers: only Cancel ends the run
    return AgentOutput(final_response="ok " + text)
"""


@pytest.fixture(scope="module")
def two_apps(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Path]]:
    """A server with app ``hang`` (an agent that never answers inputs starting with "hang") and app ``traces``
    (trace-mode eval sets and one ADK eval history result, no agent); yields (base URL, its folder)."""
    from _browser import running_server

    from agentgauge.server import ServerConfig, create_app

    root = tmp_path_factory.mktemp("two-apps")
    hang = root / "evals" / "hang"
    hang.mkdir(parents=True)
    (hang / "agent.py").write_text(HANG_AGENT)
    cases = [{"evalId": t, "conversation": [{"userContent": {"content": t}, "finalResponse": {"content": f"ok {t}"}}]}
             for t in ("quick1", "hang1", "quick2")]  # fmt: skip
    (hang / "s.evalset.json").write_text(json.dumps({"evalSetId": "s", "evalCases": cases}))
    traces = root / "evals" / "traces"
    history = traces / ".adk" / "eval_history"
    history.mkdir(parents=True)
    examples = Path(__file__).resolve().parents[2] / "examples" / "trace_mode"
    shutil.copy(examples / "calculator_traces.evalset.json", traces)
    adk_results = Path(__file__).resolve().parents[1] / "formats" / "data" / "adk_results"
    shutil.copy(
        adk_results / "full.evalset_result.json", history / "weather_app_weather_1761134484.5.evalset_result.json"
    )
    config = ServerConfig(data_dir=root / "data", evals_dir=root / "evals", agents={"hang": str(hang / "agent.py")})
    with running_server(create_app(config)) as url:
        yield url, root


def _open_ui(browser: Any, url: str) -> UI:
    ui = UI(browser)
    browser.get(url + "/")
    ui.wait.until(lambda d: d.find_element("tag name", "body").get_attribute("data-ready") == "true")
    return ui


def test_cancel_button_stops_a_run_and_keeps_its_finished_cases(browser: Any, two_apps: tuple[str, Path]) -> None:
    url, root = two_apps
    ui = _open_ui(browser, url)
    ui.click('.app-item[data-app="hang"]')
    ui.click('.set-item[data-set="s"]')
    ui.css('.case-row[data-case="hang1"]')
    assert not ui.css("#run-cancel").is_displayed()
    ui.click("#run-selected")
    ui.text_in("#progress-text", "2 / 3")  # both quick cases done; hang1 never answers
    ui.wait.until(lambda d: ui.case_status("hang1") == "running")
    ui.click("#run-cancel")
    ui.text_in("#run-done", "Run cancelled: 2 of 3 finished and kept.")
    assert not ui.css("#run-cancel").is_displayed() and ui.css("#run-selected").is_enabled()
    (saved,) = (root / "data" / "results" / "hang").glob("*.evalset_result.json")
    stored = json.loads(saved.read_text())
    assert stored["cancelled"] is True and sorted(c["evalId"] for c in stored["evalCaseResults"]) == [
        "quick1",
        "quick2",
    ]
    ui.click("#tab-runs")
    row = ui.css(".result-row")
    assert row.find_element("css selector", ".status").text == "cancelled"


def _result_ids(browser: Any) -> list[str]:
    ids: list[str] = browser.execute_script(
        "return [...document.querySelectorAll('.result-row')].map((r) => r.dataset.result)"
    )
    return ids


def test_results_and_chat_follow_the_chosen_app(browser: Any, two_apps: tuple[str, Path]) -> None:
    import urllib.request

    url, _ = two_apps
    start = urllib.request.Request(
        url + "/api/apps/hang/eval-sets/s/runs", data=json.dumps({"caseIds": ["quick1"]}).encode(),
        headers={"Content-Type": "application/json"}, method="POST",
    )  # fmt: skip
    with urllib.request.urlopen(start) as answer:
        run_id = json.load(answer)["runId"]
    with urllib.request.urlopen(f"{url}/api/runs/{run_id}/events") as events:
        events.read()  # the stream ends with the run
    ui = _open_ui(browser, url)
    ui.click('.app-item[data-app="hang"]')
    ui.click('.set-item[data-set="s"]')
    ui.click("#tab-runs")
    ui.wait.until(lambda d: len(_result_ids(d)) >= 1)
    hang_rows = set(_result_ids(browser))

    # Another app: its own runs (here ADK's eval history), none of the previous app's; "open" shows the report.
    ui.click('.app-item[data-app="traces"]')
    ui.wait.until(lambda d: _result_ids(d) == ["weather_app_weather_1761134484.5"])
    assert not hang_rows & set(_result_ids(browser))
    assert ui.css(".result-row .result-source").text == "ADK eval history"
    ui.click(".result-row .open-result")
    frame = ui.css("#result-frame")
    browser.switch_to.frame(frame)
    try:
        ui.text_in("h1", "Eval set weather")
    finally:
        browser.switch_to.default_content()

    # Chat is off for an app without an agent, with the reason; on again for an app with one.
    ui.click("#tab-chat")
    reason = ui.text_in("#chat-disabled", "App traces has no agent")
    assert "agentgauge serve" in reason
    assert not ui.css("#chat-input").is_enabled() and not ui.css("#chat-new").is_enabled()
    ui.click('.app-item[data-app="hang"]')
    ui.wait.until(lambda d: ui.css("#chat-input").is_enabled())
    assert not ui.css("#chat-disabled").is_displayed()
    assert not ui.css("#result-frame").is_displayed()  # the other app's report is closed
