"""Labelling a judge verdict in the web UI (headless Chromium): the label is stored beside the result and
``agentgauge calibrate`` reads it."""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from _browser import chromium_driver, csp_violations, running_server
from typer.testing import CliRunner

from agentgauge.cli import app as cli
from agentgauge.server import ServerConfig, create_app

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

WAIT = 15
EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "calibration"
LENIENT = next(p for p in (EXAMPLE / "results" / "capitals").glob("*.json") if "judge-lenient" in p.read_text())


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Any, str, Path]]:
    """Chromium and a server whose app ``capitals`` has the example's eval set and its lenient judge's result."""
    root = tmp_path_factory.mktemp("labels-ui")
    (root / "evals" / "capitals").mkdir(parents=True)
    shutil.copy(EXAMPLE / "capitals.evalset.json", root / "evals" / "capitals")
    results = root / "data" / "results" / "capitals"
    results.mkdir(parents=True)
    shutil.copy(LENIENT, results)
    config = ServerConfig(data_dir=root / "data", evals_dir=root / "evals")
    with chromium_driver() as driver, running_server(create_app(config)) as url:
        yield driver, url, root


def _row(driver: Any, case: str) -> Any:
    return driver.find_element("css selector", f'tr.label-row[data-case-id="{case}"]')


def test_label_a_verdict_and_calibrate_reads_it(served: tuple[Any, str, Path]) -> None:
    from selenium.webdriver.support.ui import WebDriverWait

    driver, url, root = served
    wait = WebDriverWait(driver, WAIT)
    csp_violations(driver)
    driver.get(url + "/")
    wait.until(lambda d: d.find_element("tag name", "body").get_attribute("data-ready") == "true")
    driver.find_element("css selector", '.app-item[data-app="capitals"]').click()
    driver.find_element("css selector", "#tab-runs").click()
    wait.until(lambda d: d.find_elements("css selector", ".result-row .open-result"))
    driver.find_element("css selector", ".result-row .open-result").click()
    wait.until(lambda d: d.find_element("css selector", "#labels-box").is_displayed())
    assert driver.find_element("css selector", "#labels-count").text == "12 judge verdicts"
    assert _row(driver, "canada").find_element("css selector", ".status").text == "pass (1.00)"

    driver.find_element("css selector", "#label-author").send_keys("tester")
    _row(driver, "canada").find_element("css selector", ".label-note").send_keys("Toronto is not the capital")
    _row(driver, "canada").find_element("css selector", ".label-disagree").click()
    wait.until(lambda d: _row(d, "canada").find_element("css selector", ".label-state").text.startswith("disagree"))
    # Read where one labels: the user message, the agent's answer and the expected one beside the buttons.
    said = _row(driver, "canada").find_element("css selector", ".label-said").text
    assert "Toronto, not Ottawa as many think." in said and "EXPECTEDOttawa" in said.replace("\n", "")
    # Keys: focus the japan verdict, then a agrees with it.
    driver.execute_script("arguments[0].focus()", _row(driver, "japan"))
    driver.switch_to.active_element.send_keys("a")
    wait.until(lambda d: _row(d, "japan").get_attribute("data-label") == "agree")
    assert "disagree by tester" in _row(driver, "canada").find_element("css selector", ".label-state").text
    folder = os.environ.get("AGENTGAUGE_SCREENSHOT_DIR")  # docs/images/labels.png is made this way
    if folder:
        driver.execute_script("document.getElementById('labels-box').scrollIntoView()")
        driver.save_screenshot(str(Path(folder) / "labels.png"))
    assert not driver.find_element("css selector", "#labels-error").is_displayed()
    assert csp_violations(driver) == []

    (sidecar,) = (root / "data" / "results" / "capitals").glob("*.labels.jsonl")
    stored = [json.loads(line) for line in sidecar.read_text().splitlines()]
    assert [(s["evalId"], s["verdict"], s["judgeVerdict"], s.get("note")) for s in stored] == [
        ("canada", "disagree", "pass", "Toronto is not the capital"),
        ("japan", "agree", "pass", None),
    ]
    assert stored[0]["author"] == "tester"

    done = CliRunner().invoke(cli, ["calibrate", str(root / "data" / "results")])
    assert done.exit_code == 0, done.output
    assert "llm_final_response judge-lenient case     2    0.500" in done.stdout
    assert "    note: Toronto is not the capital (tester)" in done.stdout

    # Opened again, the result shows the stored labels; Clear removes one.
    driver.get(url + "/")
    wait.until(lambda d: d.find_element("tag name", "body").get_attribute("data-ready") == "true")
    driver.find_element("css selector", '.app-item[data-app="capitals"]').click()
    driver.find_element("css selector", "#tab-runs").click()
    wait.until(lambda d: d.find_elements("css selector", ".result-row .open-result"))
    driver.find_element("css selector", ".result-row .open-result").click()
    wait.until(lambda d: _row(d, "canada").get_attribute("data-label") == "disagree")
    assert _row(driver, "canada").find_element("css selector", ".label-note").get_attribute("value") == (
        "Toronto is not the capital"
    )
    _row(driver, "japan").find_element("css selector", ".label-clear").click()
    wait.until(lambda d: _row(d, "japan").get_attribute("data-label") == "")
    assert [json.loads(line)["evalId"] for line in sidecar.read_text().splitlines()] == ["canada"]
