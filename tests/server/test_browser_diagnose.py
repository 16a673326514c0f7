"""The diagnosis views in a real headless Chromium: compare's first divergences with base and new side by side, the
replay view's replay record and steps against the expected turns, and a result's Triage tab."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from _browser import Page, chromium_driver, csp_violations, running_server, shot

from agentgauge.server import ServerConfig, create_app

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

REPLAY = Path(__file__).resolve().parents[2] / "examples" / "replay"
IDS = {"replayed": "replay_calculator_replay_1", "swapped": "replay_calculator_replay_2"}


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Any, str]]:
    """Chromium and a server whose app ``replay`` holds the replay set and the two replayed results."""
    root = tmp_path_factory.mktemp("diagnose-ui")
    (root / "data" / "replay").mkdir(parents=True)
    shutil.copy(REPLAY / "calculator_replay.evalset.json", root / "data" / "replay")
    results = root / "data" / "results" / "replay"
    results.mkdir(parents=True)
    for name, result_id in IDS.items():
        text = (REPLAY / f"{name}.evalset_result.json").read_text()
        original = text.split('"evalSetResultId": "', 1)[1].split('"', 1)[0]
        (results / f"{result_id}.evalset_result.json").write_text(text.replace(original, result_id))
    with chromium_driver() as driver, running_server(create_app(ServerConfig(data_dir=root / "data"))) as url:
        yield driver, url


def _open_results(page: Page, url: str) -> None:
    page.open_set(url, "replay", "calculator_replay")
    page.click("#tab-runs")
    page.wait.until(lambda d: len(page.all(".result-row")) == 2)


def test_compare_marks_where_base_and_new_fork(served: tuple[Any, str]) -> None:
    driver, url = served
    page = Page(driver)
    csp_violations(driver)
    _open_results(page, url)
    for box in page.all(".compare-check"):
        box.click()
    page.click("#compare-selected")
    # The comparison is drawn, then its first case opens (compare.js show()): read the list once both are done.
    page.wait.until(lambda d: d.find_element("tag name", "body").get_attribute("data-compared"))
    item = page.css('.divergence-item[data-case="product_then_sum"]')
    assert item.get_attribute("data-kind") == "different_arguments"
    assert "turn 2, step 1: different arguments" in item.text
    item.click()
    fork = page.css("#compare-fork tr.step.fork")
    assert fork.get_attribute("data-op") == "replace"
    cells = [c.text for c in fork.find_elements("css selector", "td")]
    assert cells[0] == "2.1" and cells[1].startswith('calculator({"operation":"add","a":42,"b":8})')
    assert cells[4].startswith('calculator({"operation":"add","a":8,"b":42})')
    assert page.css("#compare-fork p.divergence").text.startswith(
        "First divergence at turn 2, step 1: different arguments"
    )
    assert [r.get_attribute("data-op") for r in page.all("#compare-fork tr.step")] == [
        "match",
        "match",
        "replace",
        "delete",
        "replace",
    ]
    shot(driver, "compare-fork", "#compare-fork")
    assert csp_violations(driver) == []


def test_replay_view_shows_the_replay_record_and_the_fork_against_the_expected_turns(served: tuple[Any, str]) -> None:
    driver, url = served
    page = Page(driver)
    page.open_set(url, "replay", "calculator_replay")
    page.click("#tab-review")
    page.click('.case-item[data-case="product_then_sum"]')
    # Looked up on every try: the pane is drawn again when the chosen case replaces the first failing one.
    page.wait.until(lambda d: "drift at call 1 calculator" in page.css("#turn-2 .ev.replay").text)
    record = page.css("#turn-2 .ev.replay").text
    assert "0/2 recorded call(s) answered (strict)" in record
    assert "recorded call 2 is_prime" in record and "never consumed" in record
    fork = page.css("#replay-fork tr.step.fork")
    assert fork.get_attribute("data-op") == "replace"
    assert page.css("#replay-fork").get_attribute("open") is not None
    shot(driver, "replay-fork", "#replay-fork")


def test_triage_tab_lists_a_results_clusters(served: tuple[Any, str]) -> None:
    driver, url = served
    page = Page(driver)
    _open_results(page, url)
    page.click(f'.result-row[data-result="{IDS["swapped"]}"] .open-result')  # looked up again if re-drawn
    page.click("#triage-result")
    page.wait.until(lambda d: "1 failing case(s)" in page.css("#triage-summary").text)  # the table drawn once
    cluster = page.css('#triage-table tr.cluster[data-rank="1"]')
    assert "replay_fidelity · different arguments at calculator" in cluster.text
    assert "product_then_sum (run 1)" in cluster.text
    assert page.css("#triage-summary").text == "1 failing case(s) of 1 in 1 cluster(s)"
    shot(driver, "triage")
    cluster.find_element("css selector", "a").click()  # the typical member opens in the replay view
    page.wait.until(
        lambda d: d.find_element("tag name", "body").get_attribute("data-replay-case") == "product_then_sum"
    )
