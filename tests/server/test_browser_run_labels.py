"""Run labels in the web UI (headless Chromium) and the result list API: labels shown per run, the list filtered
by label, the opened run's metadata shown; ``?label=`` filters the API's list, a bad one is a 400 naming it."""

from __future__ import annotations

import json
import os
import shutil
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from _browser import chromium_driver, csp_violations, running_server

from agentgauge.formats import load_result, save_result
from agentgauge.model import RunMetadata
from agentgauge.server import ServerConfig, create_app

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

WAIT = 15
EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
META = {
    "base": RunMetadata(labels={"env": "prod"}, git_commit="a" * 40, git_branch="main", git_dirty=False,
                        agent="calculator/agent.py", agent_source_hash="0123456789abcdef" * 4, models=["gpt-4o-mini"],
                        agentgauge_version="0.1.0"),
    "new": RunMetadata(labels={"env": "staging", "team": "core"}, git_commit="b" * 40, git_dirty=True),
}  # fmt: skip


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, dict[str, str]]]:
    """A server whose app ``calculator`` has the example set and the compare example's two results, labelled."""
    root = tmp_path_factory.mktemp("run-labels")
    (root / "evals" / "calculator").mkdir(parents=True)
    shutil.copy(EXAMPLES / "calculator" / "calculator.evalset.json", root / "evals" / "calculator")
    results = root / "data" / "results" / "calculator"
    results.mkdir(parents=True)
    ids = {}
    for name, metadata in META.items():
        result = load_result(EXAMPLES / "compare" / f"{name}.evalset_result.json")
        result.run_metadata = metadata
        save_result(result, results / f"{result.eval_set_result_id}.evalset_result.json")
        ids[name] = result.eval_set_result_id
    config = ServerConfig(data_dir=root / "data", evals_dir=root / "evals")
    with running_server(create_app(config)) as url:
        yield url, ids


def _get(url: str) -> tuple[int, Any]:
    try:
        with urllib.request.urlopen(url, timeout=WAIT) as answer:
            return answer.status, json.loads(answer.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read())


def test_the_result_list_api_filters_by_label(served: tuple[str, dict[str, str]]) -> None:
    url, ids = served
    status, rows = _get(f"{url}/api/apps/calculator/results")
    assert status == 200
    assert {r["evalSetResultId"]: r["labels"] for r in rows} == {
        ids["base"]: {"env": "prod"},
        ids["new"]: {"env": "staging", "team": "core"},
    }
    assert next(r for r in rows if r["evalSetResultId"] == ids["base"])["runMetadata"]["models"] == ["gpt-4o-mini"]
    status, rows = _get(f"{url}/api/apps/calculator/results?label=team=core&label=env=staging")
    assert status == 200 and [r["evalSetResultId"] for r in rows] == [ids["new"]]
    status, rows = _get(f"{url}/api/apps/calculator/results?label=team=core&label=env=prod")
    assert status == 200 and rows == []
    status, body = _get(f"{url}/api/apps/calculator/results?label=oops")
    assert status == 400 and "query parameter 'label': label 'oops' is not KEY=VALUE" in json.dumps(body)


def test_labels_shown_filtered_and_opened(served: tuple[str, dict[str, str]]) -> None:
    from selenium.webdriver.support.ui import WebDriverWait

    url, ids = served
    with chromium_driver() as driver:
        wait = WebDriverWait(driver, WAIT)
        csp_violations(driver)
        driver.get(url + "/")
        wait.until(lambda d: d.find_element("tag name", "body").get_attribute("data-ready") == "true")
        driver.find_element("css selector", '.app-item[data-app="calculator"]').click()
        driver.find_element("css selector", "#tab-runs").click()
        wait.until(lambda d: len(d.find_elements("css selector", ".result-row")) == 2)

        def row(name: str) -> Any:
            return driver.find_element("css selector", f'.result-row[data-result="{ids[name]}"]')

        chips = [c.text for c in row("new").find_elements("css selector", ".result-labels .run-label")]
        assert chips == ["env=staging", "team=core"]
        box = driver.find_element("css selector", "#result-label-filter")
        box.send_keys("env=prod")
        wait.until(lambda d: not row("new").is_displayed())
        assert row("base").is_displayed()
        box.send_keys(" team=core")  # every label must match: none does
        wait.until(lambda d: not row("base").is_displayed())
        box.clear()
        box.send_keys("nonsense")
        wait.until(lambda d: d.find_element("css selector", "#result-label-error").is_displayed())
        assert "label filter 'nonsense': expected KEY=VALUE" in driver.find_element("id", "result-label-error").text
        box.clear()
        box.send_keys("team=core")
        wait.until(lambda d: not d.find_element("css selector", "#result-label-error").is_displayed())
        assert row("new").is_displayed() and not row("base").is_displayed()

        box.clear()
        box.send_keys("env=prod")
        wait.until(lambda d: row("base").is_displayed())
        row("base").find_element("css selector", ".open-result").click()
        wait.until(lambda d: d.find_element("css selector", "#run-meta").is_displayed())
        terms = driver.find_elements("css selector", "#run-meta dt")
        values = driver.find_elements("css selector", "#run-meta dd")
        shown = dict(zip([t.text for t in terms], [v.text for v in values], strict=True))
        assert shown == {
            "Labels": "env=prod",
            "Git": "aaaaaaaaaaaa on main (clean)",
            "Agent": "calculator/agent.py (source 0123456789ab)",
            "Models": "gpt-4o-mini",
            "agentgauge": "0.1.0",
        }
        folder = os.environ.get("AGENTGAUGE_SCREENSHOT_DIR")  # docs/images/run-labels.png is made this way
        if folder:
            driver.save_screenshot(str(Path(folder) / "run-labels.png"))
        assert csp_violations(driver) == []
