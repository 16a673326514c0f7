"""Large lists in a real headless Chromium: the case list of a 5,000-case eval set and the history of 1,000 runs.

The data is generated. The tests assert structure (only a window of rows is in the DOM, the chart has one hit area
per run, the matrix a bounded number of cells), never wall-clock time; the page's own timings (fetch and render,
``data-*-ms`` on ``<body>``) are printed with ``-s`` and quoted in docs/web.md.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from _browser import chromium_driver, running_server

from agentgauge.server import ServerConfig, create_app

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

WAIT = 60
CASES = 5000
RUNS = 1000
RUN_CASES = 20


def _invocation(text: str, answer: str) -> dict[str, Any]:
    return {"userContent": {"role": "user", "content": text}, "finalResponse": {"role": "assistant", "content": answer}}


def _case_result(set_id: str, eval_id: str, passed: bool) -> dict[str, Any]:
    score = 1.0 if passed else 0.0
    metric = {
        "metricName": "response_match_score",
        "score": score,
        "evalStatus": "passed" if passed else "failed",
        "threshold": 0.8,
        "details": {"reason": "" if passed else f"actual 'no' != expected 'yes' in {eval_id}"},
    }
    return {
        "evalSetId": set_id,
        "evalId": eval_id,
        "runId": 1,
        "finalEvalStatus": "passed" if passed else "failed",
        "overallEvalMetricResults": [metric],
        "evalMetricResultPerInvocation": [
            {
                "actualInvocation": _invocation(f"question {eval_id}", "yes" if passed else "no"),
                "expectedInvocation": _invocation(f"question {eval_id}", "yes"),
                "evalMetricResults": [metric],
            }
        ],
    }


def _result(set_id: str, result_id: str, ids: list[str], failing: set[str], when: float) -> dict[str, Any]:
    return {
        "evalSetResultId": result_id,
        "evalSetId": set_id,
        "creationTimestamp": when,
        "evalCaseResults": [_case_result(set_id, i, i not in failing) for i in ids],
    }


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Any, str]]:
    """App ``bulk``: eval set ``big`` (5,000 cases, one result, every 7th case failing) and eval set ``hist``
    (20 cases, 1,000 results, the failing cases changing from run to run)."""
    root = tmp_path_factory.mktemp("review-scale")
    app_dir = root / "evals" / "bulk"
    app_dir.mkdir(parents=True)
    results = root / "data" / "results" / "bulk"
    results.mkdir(parents=True)
    big = [f"case_{i:05d}" for i in range(CASES)]
    cases = [{"evalId": i, "conversation": [_invocation(f"question {i}", "yes")]} for i in big]
    (app_dir / "big.evalset.json").write_text(json.dumps({"evalSetId": "big", "evalCases": cases}))
    failing = {i for n, i in enumerate(big) if n % 7 == 3}
    (results / "big_run.evalset_result.json").write_text(json.dumps(_result("big", "big_run", big, failing, 1.7e9)))
    small = [f"c{i:02d}" for i in range(RUN_CASES)]
    (app_dir / "hist.evalset.json").write_text(
        json.dumps({"evalSetId": "hist", "evalCases": [{"evalId": i, "conversation": []} for i in small]})
    )
    for run in range(RUNS):
        fails = {small[run % RUN_CASES], small[(run * 3) % RUN_CASES]} if run % 4 else set()
        document = _result("hist", f"hist_{run:04d}", small, fails, 1.7e9 + run * 60)
        (results / f"hist_{run:04d}.evalset_result.json").write_text(json.dumps(document))
    config = ServerConfig(data_dir=root / "data", evals_dir=root / "evals")
    with chromium_driver() as driver, running_server(create_app(config)) as url:
        driver.set_window_size(1280, 800)
        yield driver, url


def _open_set(driver: Any, url: str, set_id: str) -> Any:
    from selenium.common.exceptions import NoSuchElementException, StaleElementReferenceException
    from selenium.webdriver.support.ui import WebDriverWait

    wait = WebDriverWait(driver, WAIT, ignored_exceptions=(StaleElementReferenceException,))
    driver.get(url + "/")
    wait.until(lambda d: d.find_element("tag name", "body").get_attribute("data-ready") == "true")

    def choose(_: Any) -> bool:
        try:
            driver.find_element("css selector", f'.set-item[data-set="{set_id}"]').click()
        except (StaleElementReferenceException, NoSuchElementException):
            return False
        return True

    wait.until(choose)
    wait.until(lambda d: d.find_elements("css selector", f'.set-item.active[data-set="{set_id}"]'))
    # The Cases tab's own requests (the latest result, for its statuses) end first: the timings are the view's own.
    wait.until(lambda d: d.find_elements("css selector", ".case-row .case-status .status"))
    return wait


def _timings(driver: Any, *names: str) -> dict[str, str]:
    body = driver.find_element("tag name", "body")
    return {name: str(body.get_attribute(f"data-{name}")) for name in names}


def test_a_5000_case_list_keeps_a_window_of_rows(served: tuple[Any, str]) -> None:
    driver, url = served
    for attempt in ("first (server parses the 5,000-case result)", "again (parsed result kept)"):
        wait = _open_set(driver, url, "big")
        driver.find_element("css selector", "#tab-review").click()
        wait.until(lambda d: d.find_element("tag name", "body").get_attribute("data-review-loaded") == str(CASES))
        print(f"\n5,000-case list, {attempt}:", _timings(driver, "review-fetch-ms", "review-render-ms"))
    assert driver.find_element("css selector", "#case-count").text == f"{CASES} of {CASES} cases · 714 failing"
    rows = driver.find_elements("css selector", ".case-item")
    assert 0 < len(rows) < 60  # a window, not 5,000 rows
    assert rows[0].get_attribute("data-case") == "case_00000"
    # Scrolled to the end, the window moves: the last case is drawn, the first is gone.
    viewport = driver.find_element("css selector", "#case-viewport")
    driver.execute_script("arguments[0].scrollTop = arguments[0].scrollHeight", viewport)
    wait.until(lambda d: d.find_elements("css selector", '.case-item[data-case="case_04999"]'))
    assert not driver.find_elements("css selector", '.case-item[data-case="case_00000"]')
    assert len(driver.find_elements("css selector", ".case-item")) < 60
    # Filter and search over all 5,000.
    search = driver.find_element("css selector", "#case-search")
    search.send_keys("case_04987")
    wait.until(
        lambda d: (
            [n.get_attribute("data-case") for n in d.find_elements("css selector", ".case-item")] == ["case_04987"]
        )
    )
    assert "actual 'no' != expected 'yes' in case_04987" in driver.find_element("css selector", ".case-reason").text


def test_a_1000_run_history_draws_every_run_and_a_bounded_matrix(served: tuple[Any, str]) -> None:
    driver, url = served
    for attempt in ("first (server reads 1,000 files)", "again (digests kept)"):
        wait = _open_set(driver, url, "hist")
        driver.find_element("css selector", "#tab-history").click()
        wait.until(lambda d: d.find_element("tag name", "body").get_attribute("data-history-loaded") == str(RUNS))
        print(f"\n1,000-run history, {attempt}:", _timings(driver, "history-fetch-ms", "history-render-ms"))
    assert len(driver.find_elements("css selector", ".trend-hit")) == RUNS
    assert len(driver.find_elements("css selector", "#matrix-box rect.cell")) == 60 * RUN_CASES
    assert "Not shown: 940 older runs." in driver.find_element("css selector", "#matrix-note").text
    assert driver.find_element("css selector", "#history-scope").text == "1000 runs of bulk / hist"
    # The Results tab lists the same 1,000 runs (the page's own table, drawn whole).
    driver.find_element("css selector", "#tab-runs").click()
    wait.until(lambda d: len(d.find_elements("css selector", ".result-row")) == RUNS)
    elapsed = driver.execute_async_script(  # app.js's own listing: fetch and draw the 1,000 rows again
        "const done = arguments[0]; const t = performance.now(); loadResults().then(() => done(performance.now() - t));"
    )
    assert len(driver.find_elements("css selector", ".result-row")) == RUNS
    print(f"\n1,000-run result list, fetched and drawn: {elapsed:.0f} ms")
