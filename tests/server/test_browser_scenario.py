"""A ``conversationScenario`` case run from the web UI in a real headless Chromium: the server started with a simulated
user (``serve --user-simulator``) plays it, the run finishes and the case shows its status."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from _browser import chromium_driver, running_server
from _scenario import METRICS, SIMULATION, scenario_app

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

WAIT = 30  # seconds any one UI change may take


@pytest.fixture(scope="module")
def scenario_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    from agentgauge.launch import SimulationOptions
    from agentgauge.server import ServerConfig, create_app

    root = tmp_path_factory.mktemp("scenario")
    app = scenario_app(root / "evals")
    (app / "trips.metrics.json").write_text(json.dumps(METRICS), encoding="utf-8")
    config = ServerConfig(
        data_dir=root / "data",
        evals_dir=root / "evals",
        agents={"trip": str(app / "agent.py")},
        simulation=SimulationOptions(user_simulator=str(SIMULATION / "simulator.py")),
    )
    with running_server(create_app(config)) as url:
        yield url


def test_a_scenario_case_runs_from_the_web_ui(scenario_server: str) -> None:
    from selenium.common.exceptions import NoSuchElementException, StaleElementReferenceException
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    with chromium_driver() as driver:
        wait = WebDriverWait(driver, WAIT, ignored_exceptions=(NoSuchElementException, StaleElementReferenceException))

        def click(selector: str) -> None:
            def attempt(d: Any) -> bool:
                # Looked up on every attempt: the page re-renders its lists (the sets of the app just chosen).
                node = d.find_element(By.CSS_SELECTOR, selector)
                if not (node.is_displayed() and node.is_enabled()):
                    return False
                node.click()
                return True

            wait.until(attempt)

        def text(selector: str) -> Any:
            return driver.find_element(By.CSS_SELECTOR, selector).text

        driver.get(scenario_server + "/")
        wait.until(lambda d: d.find_element(By.TAG_NAME, "body").get_attribute("data-ready") == "true")
        click('.app-item[data-app="trip"]')
        click('.set-item[data-set="trips"]')
        click("#tab-cases")
        wait.until(lambda d: d.find_element(By.CSS_SELECTOR, '.case-row[data-case="paris"]'))
        click("#run-selected")
        wait.until(lambda d: "Run finished: passed." in text("#run-done"))
        wait.until(lambda d: text('.case-row[data-case="paris"] .case-status') == "passed")
