"""The *Cases* tab's windowed table in a real headless Chromium, over an eval set of 600 cases of the calculator agent:
checks, runs, statuses and deletion reach the cases whose rows are not drawn (only the rows in view are in the DOM).
"""

from __future__ import annotations

import copy
import json
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from _browser import chromium_driver, csp_violations, running_server

from agentgauge.server import ServerConfig, create_app

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

WAIT = 30
CALCULATOR = Path(__file__).resolve().parents[2] / "examples" / "calculator"
CASES = 600
FIRST, LAST = "case_000", f"case_{CASES - 1:03d}"


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Any, str, Path]]:
    """App ``calculator`` with eval set ``many``: 600 copies of the example's ``calc_add`` (2 + 3), the last one
    expecting 6, so it fails."""
    data = tmp_path_factory.mktemp("case-table") / "data"
    app_dir = data / "calculator"
    app_dir.mkdir(parents=True)
    template = json.loads((CALCULATOR / "calculator.evalset.json").read_text())["evalCases"][0]
    cases = []
    for i in range(CASES):
        case = copy.deepcopy(template)
        case["evalId"] = f"case_{i:03d}"
        cases.append(case)
    cases[-1]["conversation"][0]["finalResponse"]["content"] = "calc result: 6"
    (app_dir / "many.evalset.json").write_text(json.dumps({"evalSetId": "many", "evalCases": cases}))
    shutil.copy(CALCULATOR / "calculator.metrics.json", app_dir / "many.metrics.json")
    config = ServerConfig(data_dir=data, agents={"calculator": str(CALCULATOR / "agent.py")})
    with chromium_driver() as driver, running_server(create_app(config)) as url:
        driver.set_window_size(1280, 800)
        yield driver, url, data


def _drawn(driver: Any) -> list[str]:
    return [str(n.get_attribute("data-case")) for n in driver.find_elements("css selector", ".case-row")]


def _row(driver: Any, case_id: str, part: str) -> Any:
    return driver.find_element("css selector", f'.case-row[data-case="{case_id}"] {part}')


def _scroll(driver: Any, wait: Any, to: str, case_id: str) -> None:
    """Scroll the table to its top or end and wait for ``case_id``'s row to be drawn."""
    scroller = driver.find_element("css selector", "#case-scroll")
    driver.execute_script(f"arguments[0].scrollTop = {'0' if to == 'top' else 'arguments[0].scrollHeight'}", scroller)
    wait.until(lambda d: case_id in _drawn(d))


def _click(driver: Any, node: Any) -> None:
    driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", node)  # not under the sticky header
    node.click()


def test_checks_runs_and_statuses_reach_rows_out_of_view(served: tuple[Any, str, Path]) -> None:
    from selenium.common.exceptions import StaleElementReferenceException
    from selenium.webdriver.support.ui import WebDriverWait

    driver, url, data = served
    wait = WebDriverWait(driver, WAIT, ignored_exceptions=(StaleElementReferenceException,))
    csp_violations(driver)
    driver.get(url + "/")
    wait.until(lambda d: d.find_element("tag name", "body").get_attribute("data-ready") == "true")
    driver.find_element("css selector", '.set-item[data-set="many"]').click()
    wait.until(lambda d: FIRST in _drawn(d))
    assert len(_drawn(driver)) < 100 and LAST not in _drawn(driver)

    # Check the first case, and the last one at the end of the table; back at the top the first is still checked.
    _click(driver, _row(driver, FIRST, ".case-check"))
    _scroll(driver, wait, "end", LAST)
    _click(driver, _row(driver, LAST, ".case-check"))
    _scroll(driver, wait, "top", FIRST)
    assert _row(driver, FIRST, ".case-check").is_selected()
    assert driver.execute_script("return document.querySelector('#check-all').indeterminate") is True

    # Run the two checked cases: the last case's status reaches its row, drawn only once scrolled to.
    driver.find_element("css selector", "#run-selected").click()
    wait.until(lambda d: "Run finished: failed." in d.find_element("css selector", "#run-status").text)
    assert driver.find_element("css selector", "#progress-text").text == "2 / 2"
    wait.until(lambda d: _row(d, FIRST, ".case-status").text == "passed")
    assert _row(driver, "case_001", ".case-status").text == ""  # not run
    _scroll(driver, wait, "end", LAST)
    assert _row(driver, LAST, ".case-status").text == "failed"
    (result,) = (data / "results" / "calculator").glob("*.evalset_result.json")
    ran = sorted(c["evalId"] for c in json.loads(result.read_text())["evalCaseResults"])
    assert ran == [FIRST, LAST]

    # Delete a case far down: the table is the set read again, one case shorter, at the same place, the checks kept.
    _click(driver, _row(driver, "case_598", ".case-edit"))
    wait.until(lambda d: d.find_element("css selector", "#editor-case").text == "case_598")
    driver.find_element("css selector", "#case-delete").click()
    driver.switch_to.alert.accept()
    wait.until(lambda d: d.find_element("css selector", '.set-item[data-set="many"] .count').text == str(CASES - 1))
    wait.until(lambda d: "case_598" not in _drawn(d) and {"case_597", LAST} <= set(_drawn(d)))
    assert _row(driver, LAST, ".case-check").is_selected() and not _row(driver, "case_597", ".case-check").is_selected()
    assert "case_598" not in (data / "calculator" / "many.evalset.json").read_text()
    _scroll(driver, wait, "top", FIRST)
    assert _row(driver, FIRST, ".case-check").is_selected()
    assert csp_violations(driver) == []
