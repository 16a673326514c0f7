"""The Optimize view: ``/api/optimizations`` lists the audit reports of ``agentgauge optimize`` under the server's
data folder (an accepted and a rejected run of the FAQ example, a torn report, one over the size limit), newest
first; ``/api/optimizations/{id}`` serves one; bad and unknown ids are a 400 and a 404; the web UI's Optimize tab
shows the list and, in headless Chromium, a report's scores, gate verdicts and patch."""

from __future__ import annotations

import asyncio
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

from agentgauge.compare import GateRules
from agentgauge.optimize import OptimizeRequest, optimize, parse_split
from agentgauge.server import ServerConfig, create_app
from agentgauge.server._optimize_views import MAX_REPORT_BYTES

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

WAIT = 15
FAQ = Path(__file__).resolve().parents[2] / "examples" / "optimize"


def _optimise(out: Path, results: Path, min_gain: float) -> None:
    request = OptimizeRequest(
        agent=str(FAQ / "agent.py"),
        train=parse_split(str(FAQ / "faq_train.evalset.json")),
        validation=parse_split(str(FAQ / "faq_validation.evalset.json")),
        optimizer=f"{FAQ / 'faq_optimizer.py'}:FaqOptimizer",
        rules=GateRules(min_gain=min_gain),
        output_dir=results,
        out=out,
    )
    asyncio.run(optimize(request))


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    root = tmp_path_factory.mktemp("optimize-view")
    data = root / "data"
    _optimise(data / "optimize" / "faq-rejected", root / "results", 0.95)
    _optimise(data / "optimize" / "faq-accepted", root / "results", 0.25)
    (data / "optimize" / "torn").mkdir()
    (data / "optimize" / "torn" / "audit.json").write_text('{"format": "agentgauge.optimize/1", "optim')
    (data / "optimize" / "huge").mkdir()
    with (data / "optimize" / "huge" / "audit.json").open("wb") as big:
        big.truncate(MAX_REPORT_BYTES + 1)
    (data / "optimize" / "not-a-report").mkdir()  # a folder without audit.json is not listed
    previous = Path.cwd()
    os.chdir(root)  # .agentgauge/optimize of the working folder is searched too: none here
    try:
        with running_server(create_app(ServerConfig(data_dir=data))) as url:
            yield url
    finally:
        os.chdir(previous)
        shutil.rmtree(root, ignore_errors=True)


def _get(url: str) -> tuple[int, Any]:
    try:
        with urllib.request.urlopen(url, timeout=WAIT) as answer:
            return answer.status, json.loads(answer.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read())


def test_the_list_and_one_report(served: str) -> None:
    status, body = _get(f"{served}/api/optimizations")
    assert status == 200
    rows = {r["optimizationId"]: r for r in body["optimizations"]}
    assert set(rows) == {"faq-rejected", "faq-accepted", "torn", "huge"}
    accepted, rejected = rows["faq-accepted"], rows["faq-rejected"]
    assert accepted["verdict"] == "accepted" and rejected["verdict"] == "rejected"
    assert accepted["baseline"] == 0.0 and accepted["candidate"] == 0.875
    assert accepted["gain"] == 0.875 and accepted["low"] > 0.25 and accepted["optimizer"] == "faq-rules"
    assert "invalid JSON" in rows["torn"]["error"]
    assert (
        rows["huge"]["error"] == f"the report is {MAX_REPORT_BYTES + 1} bytes, over the {MAX_REPORT_BYTES}-byte limit"
    )
    status, body = _get(f"{served}/api/optimizations?limit=1")
    assert status == 200 and len(body["optimizations"]) == 1 and body["truncated"] == 3
    status, report = _get(f"{served}/api/optimizations/faq-accepted")
    assert status == 200 and report["accepted"] is True and "+When the question mentions refund" in report["diff"]
    assert report["gate"]["verdicts"][0]["name"] == "min_gain"


@pytest.mark.parametrize(
    ("path", "code", "message"),
    [
        ("/api/optimizations/nope", 404, "optimization 'nope' not found"),
        ("/api/optimizations/torn", 404, "optimization 'torn':"),
        ("/api/optimizations/a%5Cb", 400, "optimization id"),
        ("/api/optimizations/..%2Fdata", 404, "Not Found"),
        ("/api/optimizations?limit=0", 422, "limit"),
    ],
)
def test_bad_requests(served: str, path: str, code: int, message: str) -> None:
    status, body = _get(served + path)
    assert status == code and message in body["detail"], body


def test_the_optimize_tab(served: str) -> None:
    from selenium.webdriver.support.ui import WebDriverWait

    with chromium_driver() as driver:
        wait = WebDriverWait(driver, WAIT)
        csp_violations(driver)
        driver.get(served + "/")
        wait.until(lambda d: d.find_element("tag name", "body").get_attribute("data-ready") == "true")
        driver.find_element("css selector", "#tab-optimize").click()
        wait.until(lambda d: len(d.find_elements("css selector", "#optimize-list tr")) == 4)
        cells = {
            r.find_elements("css selector", "td")[1].text: r.find_elements("css selector", "td")[4].text
            for r in driver.find_elements("css selector", "#optimize-list tr")
        }
        assert cells == {
            "faq-accepted": "accepted",
            "faq-rejected": "rejected",
            "torn": "unreadable",
            "huge": "unreadable",
        }
        row = next(r for r in driver.find_elements("css selector", "#optimize-list tr") if "faq-accepted" in r.text)
        assert "0.000 → 0.875" in row.text
        row.click()
        wait.until(lambda d: d.find_element("id", "optimize-detail").is_displayed())
        assert "ACCEPTED" in driver.find_element("id", "optimize-gate").text
        assert "PASS  min_gain" in driver.find_element("id", "optimize-gate").text
        added = driver.find_elements("css selector", "#optimize-diff .add")
        assert any("When the question mentions refund, answer: Refunds are paid back" in a.text for a in added)
        scores = driver.find_element("css selector", "#optimize-scores tbody").text
        assert "validation 0.000 [0.000, 0.000] (0/8 cases) 0.875 [0.625, 1.000] (7/8 cases)" in scores
        assert csp_violations(driver) == []
