"""The HTML report in headless Chromium: its script sorts and filters the cases and sorts the tables.

Needs ``chromium``, ``chromedriver`` and selenium: skipped (with the reason shown) when one is missing, except with
``CI=true``, where a missing browser fails the test.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from result_samples import usage_result

from agentgauge.reporting import write_report


def _unavailable(reason: str) -> None:
    if os.environ.get("CI") == "true":
        pytest.fail(f"CI=true but {reason}")
    pytest.skip(reason)


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """A headless Chromium driven by selenium."""
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    chromedriver = shutil.which("chromedriver")
    if chromium is None or chromedriver is None:
        _unavailable("chromium and chromedriver are needed for the browser check of the HTML report")
    try:
        from selenium import webdriver
    except ImportError:
        _unavailable("selenium is needed for the browser check of the HTML report (pip install selenium)")
    options = webdriver.ChromeOptions()
    options.binary_location = str(chromium)
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"):
        options.add_argument(arg)
    driver = webdriver.Chrome(options=options, service=webdriver.ChromeService(executable_path=str(chromedriver)))
    try:
        yield driver
    finally:
        driver.quit()


@pytest.fixture
def page(browser: Any, tmp_path: Path) -> Any:
    """The report of :func:`usage_result` open in the browser."""
    path = tmp_path / "report.html"
    write_report(usage_result(), path, "html")
    browser.get(path.as_uri())
    return browser


def _blocks(page: Any) -> list[str]:
    from selenium.webdriver.common.by import By

    return [e.get_attribute("data-case-id") for e in page.find_elements(By.CSS_SELECTOR, "#case-list > details.case")]


def _visible(page: Any) -> list[str]:
    from selenium.webdriver.common.by import By

    return [
        e.get_attribute("data-case-id")
        for e in page.find_elements(By.CSS_SELECTOR, "#case-list > details.case")
        if e.is_displayed()
    ]


def test_case_blocks_sort_by_each_key(page: Any) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    sort = Select(page.find_element(By.ID, "case-sort"))
    expected = {
        "tokens": ["weather", "crash", "rubric_case", "fine"],  # unrecorded last, in run order
        "duration": ["crash", "weather", "rubric_case", "fine"],
        "cost": ["weather", "rubric_case", "crash", "fine"],
        "id": ["crash", "fine", "rubric_case", "weather"],
        "status": ["weather", "rubric_case", "crash", "fine"],
        "order": ["weather", "rubric_case", "crash", "fine"],
    }
    for key, order in expected.items():
        sort.select_by_value(key)
        assert _blocks(page) == order, key


def test_filters_hide_cases(page: Any) -> None:
    from selenium.webdriver.common.by import By

    assert _visible(page) == ["weather", "rubric_case", "crash", "fine"]
    page.find_element(By.ID, "only-failed").click()
    assert _visible(page) == ["weather", "rubric_case", "crash"]
    page.find_element(By.ID, "case-search").send_keys("WEA")
    assert _visible(page) == ["weather"]


def test_clicking_a_header_sorts_the_case_table(page: Any) -> None:
    from selenium.webdriver.common.by import By

    table = page.find_element(By.CSS_SELECTOR, "table.cases")
    header = next(th for th in table.find_elements(By.TAG_NAME, "th") if th.text.startswith("Tokens"))

    def first_column() -> list[str]:
        return [row.find_elements(By.TAG_NAME, "td")[0].text for row in table.find_elements(By.TAG_NAME, "tr")[1:]]

    header.click()
    assert first_column() == ["crash", "weather", "rubric_case", "fine"]
    header.click()
    assert first_column()[:2] == ["weather", "crash"]
    assert header.get_attribute("aria-sort") == "descending"
