"""The Replay tab's case list in a real headless Chromium at 1280 px: its search finds a case by a word of its
second user message or of an expected answer (not only its first message), and a long reason's row keeps in view
what differs (the headline gives way), the full reason in its title."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from _browser import Page, chromium_driver, running_server
from typer.testing import CliRunner

from agentgauge.cli import app as cli
from agentgauge.server import ServerConfig, create_app

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
CASES = [
    "calc_add",
    "calc_natural_multiply",
    "calc_subtract_from",
    "calc_divide",
    "calc_multi_turn",
    "calc_not_a_calculation",
]


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Any, str]]:
    """Chromium and a server with the calculator example and a run of its broken agent (two cases fail: it adds
    where it should multiply)."""
    root = tmp_path_factory.mktemp("case-search")
    evals = root / "evals"
    shutil.copytree(EXAMPLES / "calculator", evals / "calculator")
    out = root / "out"
    evalset = evals / "calculator" / "calculator.evalset.json"
    agent = EXAMPLES / "compare" / "broken_agent.py"
    done = CliRunner().invoke(cli, ["eval", str(agent), str(evalset), "--output-dir", str(out)])
    assert done.exit_code == 1, done.output
    results = root / "data" / "results" / "calculator"
    results.mkdir(parents=True)
    for file in out.rglob("*.evalset_result.json"):
        shutil.copy(file, results)
    config = ServerConfig(data_dir=root / "data", evals_dir=evals)
    with chromium_driver() as driver, running_server(create_app(config)) as url:
        yield driver, url


def _search(page: Page, text: str) -> None:
    """Type ``text`` in the search box in place of what it held (by keys: the page listens to their input)."""
    from selenium.webdriver.common.keys import Keys

    box = page.css("#case-search")
    box.send_keys(Keys.CONTROL, "a")
    box.send_keys(Keys.BACKSPACE)
    if text:
        box.send_keys(text)


def test_the_search_finds_a_word_of_any_turn(served: tuple[Any, str]) -> None:
    driver, url = served
    page = Page(driver)
    page.open_set(url, "calculator", "calculator")
    page.css("#tab-review").click()
    page.wait.until(lambda d: page.ids() == CASES)
    _search(page, "that")  # only in calc_multi_turn's second user message ("Now multiply that by 4")
    page.wait.until(lambda d: page.ids() == ["calc_multi_turn"])
    _search(page, "20")  # only in its second expected answer ("calc result: 20")
    page.wait.until(lambda d: page.ids() == ["calc_multi_turn"])
    _search(page, "joke")  # a first user message, as before
    page.wait.until(lambda d: page.ids() == ["calc_not_a_calculation"])
    _search(page, "")
    page.wait.until(lambda d: page.ids() == CASES)


_VISIBLE = """
const row = document.querySelector('.case-item[data-case="calc_natural_multiply"]');
const tail = row.querySelector('.case-reason .reason-tail');
const text = tail.firstChild;
const range = document.createRange();
range.setStart(text, 0);
range.setEnd(text, text.data.indexOf("'mul'") + 5);
return [range.getBoundingClientRect().right, tail.getBoundingClientRect().right, row.getBoundingClientRect().right,
        window.innerWidth];
"""


def test_a_long_reason_shows_what_differs(served: tuple[Any, str]) -> None:
    driver, url = served
    page = Page(driver)
    page.open_set(url, "calculator", "calculator")
    page.css("#tab-review").click()
    page.wait.until(lambda d: page.ids() == CASES)
    row = page.css('.case-item[data-case="calc_natural_multiply"]')
    reason = row.find_element("css selector", ".case-reason")
    assert reason.text.startswith("tool_trajectory_avg_score (invocation 1)")
    assert "actual 'add' != expected 'mul'" in reason.text
    assert "closest actual call id calc_1" in row.get_attribute("title")  # the full reason
    shown_to, tail_right, row_right, width = driver.execute_script(_VISIBLE)
    assert width == 1280
    assert shown_to <= tail_right + 0.5 <= row_right + 0.5  # the comparison ends inside the row: not cut away
