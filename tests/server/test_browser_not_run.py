"""A trace run's cases without a trace, in a real headless Chromium: the Replay list shows each with
``not run: no trace`` and counts them (``· 1 not run``), and the Results list adds them to its counts, as every
report does (``summary.casesNotRun``)."""

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

TRACES = Path(__file__).resolve().parents[2] / "examples" / "traces"


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Any, str]]:
    """Chromium and a server with the weather eval set and a trace run that had a trace for one of its two cases."""
    root = tmp_path_factory.mktemp("not-run")
    evals = root / "evals" / "weather_agent"
    evals.mkdir(parents=True)
    shutil.copy(TRACES / "weather.evalset.json", evals)
    out = root / "out"
    args = [
        "eval",
        "--traces",
        str(TRACES / "adk_weather.otlp.jsonl"),
        "--eval-set",
        str(evals / "weather.evalset.json"),
    ]
    done = CliRunner().invoke(cli, [*args, "--output-dir", str(out)])
    assert done.exit_code == 0, done.output
    results = root / "data" / "results" / "weather_agent"
    results.mkdir(parents=True)
    for file in out.rglob("*.evalset_result.json"):
        shutil.copy(file, results)
    config = ServerConfig(data_dir=root / "data", evals_dir=root / "evals")
    with chromium_driver() as driver, running_server(create_app(config)) as url:
        yield driver, url


def test_cases_without_a_trace_are_listed_and_counted(served: tuple[Any, str]) -> None:
    driver, url = served
    page = Page(driver)
    page.open_set(url, "weather_agent", "weather")
    page.css("#tab-review").click()
    page.wait.until(lambda d: page.ids() == ["weather_two_cities", "weather_oslo_lisbon"])
    row = page.css('.case-item[data-case="weather_oslo_lisbon"]')
    page.wait.until(lambda d: "not run: no trace" in row.find_element("css selector", ".case-reason").text)
    page.wait.until(lambda d: page.css("#case-count").text == "2 of 2 cases · 0 failing · 1 not run")
    page.css("#tab-runs").click()
    cell = page.css(".result-row .cases-not-evaluated")
    page.wait.until(lambda d: cell.text == "0 (+1 not run)")
