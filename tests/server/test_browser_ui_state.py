"""The web UI as a page one keeps open, in a real headless Chromium: every view has an address that survives a reload
and Back, a result written by a CLI run while the page is open appears without a reload, and the layouts hold at
1280 and 420 pixels wide.

Set ``AGENTGAUGE_SCREENSHOT_DIR`` to keep the screenshots docs/web.md shows (docs/images is made this way).
"""

from __future__ import annotations

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


def _eval(evalset: Path, out: Path, *extra: str) -> None:
    done = CliRunner().invoke(cli, ["eval", str(evalset), "--output-dir", str(out), "--app-name", "trace_mode", *extra])
    assert done.exit_code in (0, 1), done.output


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Any, str, Path]]:
    """Chromium and a server over the trace-mode examples with one run of ``weather_usage`` (``oslo_fahrenheit``
    fails); yields (driver, base URL, the folder the server reads results from)."""
    root = tmp_path_factory.mktemp("ui-state")
    evals = root / "evals"
    shutil.copytree(EXAMPLES / "trace_mode", evals / "trace_mode")
    results = root / "data" / "results"
    _eval(evals / "trace_mode" / "weather_usage.evalset.json", results)
    config = ServerConfig(data_dir=root / "data", evals_dir=evals)
    with chromium_driver() as driver, running_server(create_app(config)) as url:
        yield driver, url, results


def _ready(page: Page) -> None:
    page.wait.until(lambda d: d.find_element("tag name", "body").get_attribute("data-ready") == "true")


def _replayed(page: Page, case: str) -> None:
    page.wait.until(lambda d: d.find_element("tag name", "body").get_attribute("data-replay-case") == case)
    page.wait.until(lambda d: d.find_element("id", "replay-title").text == case)


def test_a_deep_link_to_a_failed_case_survives_a_reload_and_back(served: tuple[Any, str, Path]) -> None:
    driver, url, _ = served
    page = Page(driver)
    csp_violations(driver)
    driver.get(f"{url}/#app=trace_mode&set=weather_usage&tab=replay&case=oslo_fahrenheit")
    _ready(page)
    _replayed(page, "oslo_fahrenheit")
    assert page.css('.set-item.active[data-set="weather_usage"]')
    assert not page.css("#panel-review").get_attribute("hidden")
    driver.refresh()
    _ready(page)
    _replayed(page, "oslo_fahrenheit")
    shot(driver, "replay-by-url")

    page.click('.case-item[data-case="paris_today"]')
    _replayed(page, "paris_today")
    assert "case=paris_today" in driver.current_url
    driver.back()
    _replayed(page, "oslo_fahrenheit")
    assert "case=oslo_fahrenheit" in driver.current_url
    driver.forward()
    _replayed(page, "paris_today")

    # Another tab is another address; Back returns to the replay.
    page.css("#tab-history").click()
    page.wait.until(lambda d: "tab=history" in d.current_url)
    driver.back()
    _replayed(page, "paris_today")
    assert not page.css("#panel-review").get_attribute("hidden")

    # The status filter and search are part of the address.
    driver.get(f"{url}/#app=trace_mode&set=weather_usage&tab=replay&status=passed")
    _ready(page)
    page.wait.until(lambda d: [n.get_attribute("data-case") for n in page.all(".case-item")] == ["paris_today"])
    assert page.css("#case-filter").get_attribute("value") == "passed"
    assert csp_violations(driver) == []


def test_a_result_written_by_a_cli_run_appears_without_a_reload(served: tuple[Any, str, Path]) -> None:
    driver, url, results = served
    page = Page(driver)
    driver.get(f"{url}/#app=trace_mode&set=weather_usage&tab=results")
    _ready(page)
    page.wait.until(lambda d: len(page.all("#result-list .result-row")) >= 1)
    before = len(page.all("#result-list .result-row"))
    _eval(results.parent.parent / "evals" / "trace_mode" / "weather_usage.evalset.json", results)
    page.wait.until(lambda d: len(page.all("#result-list .result-row")) == before + 1)
    # The page was not loaded again: the address and the tab are those of before.
    assert "tab=results" in driver.current_url
    assert driver.execute_script("return performance.getEntriesByType('navigation').length") == 1


OFF_SCREEN = """
const width = window.innerWidth, out = [];
for (const node of document.querySelectorAll("button, input, select, textarea, a, [tabindex]")) {
  const box = node.getBoundingClientRect();
  if (!box.width || !box.height || getComputedStyle(node).visibility === "hidden") continue;
  const name = `${node.tagName}#${node.id}.${node.className}`;
  if (box.left < -1 || box.right > width + 1) out.push(`${name} ${Math.round(box.left)}..${Math.round(box.right)}`);
}
return [document.documentElement.scrollWidth, width, out];
"""

TABS = ["cases", "chat", "results", "compare", "live", "replay", "history", "metrics"]


def _in_view(driver: Any, where: str) -> None:
    scroll_width, width, off = driver.execute_script(OFF_SCREEN)
    assert off == [] and scroll_width <= width, (where, scroll_width, width, off)


def test_every_control_is_in_view_at_420_pixels(served: tuple[Any, str, Path]) -> None:
    driver, url, _ = served
    page = Page(driver)
    driver.set_window_size(420, 800)
    try:
        driver.get(f"{url}/#app=trace_mode&set=weather_usage")
        _ready(page)
        assert not page.css("#sidebar").is_displayed()  # folded away: the tab's content is the first screen
        page.css("#sidebar-toggle").click()
        page.wait.until(lambda d: d.find_element("id", "sidebar").is_displayed())
        _in_view(driver, "sidebar")
        page.click('.set-item[data-set="weather_usage"]')
        page.wait.until(lambda d: not d.find_element("id", "sidebar").is_displayed())
        for tab in TABS:
            page.css(f'#tabs .tab[data-panel="{_panel(tab)}"]').click()
            page.wait.until(lambda d, tab=tab: f"tab={tab}" in d.current_url)
            if tab == "results":
                page.click(".result-row .open-result")
                page.wait.until(lambda d: d.find_element("id", "result-frame").is_displayed())
            if tab == "replay":
                page.click('.case-item[data-case="oslo_fahrenheit"]')
                _replayed(page, "oslo_fahrenheit")
                shot(driver, "narrow")
            if tab == "compare":
                page.click("#compare-btn")
                page.css(".compare-detail .sbs-turn")
            if tab == "metrics":
                page.css("#picker-list tr")
            _in_view(driver, tab)
            if tab in ("results", "metrics", "compare"):
                shot(driver, f"narrow-{tab}")
    finally:
        driver.set_window_size(1280, 900)


def _panel(tab: str) -> str:
    """The panel of a tab named in the address (static/nav.js)."""
    return {"results": "panel-runs", "replay": "panel-review"}.get(tab, f"panel-{tab}")


def test_a_ui_run_ends_with_each_failing_case_its_reason_and_a_working_link(served: tuple[Any, str, Path]) -> None:
    driver, url, _ = served
    page = Page(driver)
    driver.get(f"{url}/#app=trace_mode&set=weather_usage&tab=cases")
    _ready(page)
    page.click("#run-selected")
    page.wait.until(lambda d: d.find_element("id", "run-done").text == "Run finished: failed.")
    failure = page.css('.run-failure[data-case="oslo_fahrenheit"]')
    assert "tool_trajectory_avg_score (invocation 1)" in failure.text and "arguments mismatch" in failure.text
    assert page.css("#run-summary").text == "1 of 2 cases did not pass:"
    assert not page.all('.run-failure[data-case="paris_today"]')
    shot(driver, "run-finished", "#run-box")
    result = page.css("#run-open-result").get_attribute("href").split("result=")[1]
    failure.find_element("css selector", "a.run-replay").click()
    page.wait.until(lambda d: d.find_element("id", "review-scope").text.startswith(f"Cases of result {result}"))
    _replayed(page, "oslo_fahrenheit")
    assert f"result={result}" in driver.current_url
    driver.back()  # back to the run's tab
    page.wait.until(lambda d: not d.find_element("id", "panel-cases").get_attribute("hidden"))
