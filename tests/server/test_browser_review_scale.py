"""Large lists in a real headless Chromium: the *Cases* tab and the *Replay* tab's case list of a 5,000-case eval
set, and the history of 1,000 runs.

The data is generated. The tests assert structure (only a window of rows is in the DOM, the chart has one hit area
per run, the matrix a bounded number of cells), never wall-clock time; the page's own timings (fetch and render,
``data-*-ms`` on ``<body>``, and the time from loading the page to the set's cases shown in the *Cases* tab, which
includes the first listing of the app's 1,001 results, timed by the page's clock) are printed with ``-s`` and quoted
in docs/web.md. The first page load comes as soon as the server listens (its warm-up has had no head start); the last
test loads the page from a second server on the same data, as after a restart.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any, NamedTuple

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


class Served(NamedTuple):
    """The browser, the server's URL, its settings and its app."""

    driver: Any
    url: str
    config: ServerConfig
    app: Any


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
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
    app = create_app(config)
    # The page is loaded as soon as the server listens: its warm-up (server/_warmup.py) has had no head start.
    with chromium_driver() as driver, running_server(app) as url:
        driver.set_window_size(1280, 800)
        yield Served(driver, url, config, app)


# In the page: wait for the UI to be ready, choose the eval set as soon as it is, wait for its cases' table to show
# statuses and for the next frame to be painted; answer the page's clock (ms since the page started loading) at each
# step. Timed in the page, so the driver's polling adds nothing.
_TIME_OPENING = """
const [setId, done] = arguments;
const until = (test) => new Promise((resolve) => {
  const tick = () => (test() ? resolve() : setTimeout(tick, 2));
  tick();
});
const painted = () => new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve)));
(async () => {
  await until(() => document.body.dataset.ready === "true" && document.querySelector(`.set-item[data-set="${setId}"]`));
  const ready = performance.now();
  document.querySelector(`.set-item[data-set="${setId}"]`).click();
  await until(() => document.querySelector(".case-row .case-status .status")
    && document.querySelector(`.set-item.active[data-set="${setId}"]`));
  await painted();
  done({ ready, shown: performance.now() });
})().catch((error) => done({ error: String(error) }));
"""


def _open_set(driver: Any, url: str, set_id: str) -> Any:
    from selenium.common.exceptions import StaleElementReferenceException
    from selenium.webdriver.support.ui import WebDriverWait

    wait = WebDriverWait(driver, WAIT, ignored_exceptions=(StaleElementReferenceException,))
    driver.set_script_timeout(WAIT)
    driver.get(url + "/")
    stamps = driver.execute_async_script(_TIME_OPENING, set_id)
    assert "error" not in stamps, stamps
    print(
        f"\npage loaded to {set_id!r} shown in the Cases tab (the app's results listed, the set's cases drawn):"
        f" {stamps['shown']:.0f} ms (page ready at {stamps['ready']:.0f} ms);",
        _timings(driver, "cases-fetch-ms", "cases-render-ms"),
    )
    return wait


def _timings(driver: Any, *names: str) -> dict[str, str]:
    body = driver.find_element("tag name", "body")
    return {name: str(body.get_attribute(f"data-{name}")) for name in names}


def _drawn(driver: Any) -> list[str]:
    """The ids of the Cases tab's rows in the DOM, top to bottom."""
    return [str(n.get_attribute("data-case")) for n in driver.find_elements("css selector", ".case-row")]


def _row(driver: Any, case_id: str, part: str = "") -> Any:
    return driver.find_element("css selector", f'.case-row[data-case="{case_id}"] {part}'.strip())


def test_the_cases_tab_of_5000_cases_draws_only_the_rows_in_view(served: Served) -> None:
    driver, url, *_ = served
    wait = _open_set(driver, url, "big")
    drawn = _drawn(driver)
    assert 0 < len(drawn) < 100  # a window, not 5,000 rows
    assert drawn == [f"case_{i:05d}" for i in range(len(drawn))]
    # The statuses of the latest result, from the data (every 7th case from the 4th failed).
    assert _row(driver, "case_00003", ".case-status").text == "failed"
    assert _row(driver, "case_00004", ".case-status").text == "passed"
    # The spacer rows keep the scroll height of all 5,000 rows.
    scroller = driver.find_element("css selector", "#case-scroll")
    height = driver.execute_script("return arguments[0].getBoundingClientRect().height", _row(driver, "case_00000"))
    assert driver.execute_script("return arguments[0].scrollHeight", scroller) >= CASES * height

    # Scrolled to the end: the last case is drawn at the bottom of the box, the first is gone.
    driver.execute_script("arguments[0].scrollTop = arguments[0].scrollHeight", scroller)
    wait.until(lambda d: _drawn(d)[-1:] == ["case_04999"])
    drawn = _drawn(driver)
    assert "case_00000" not in drawn and len(drawn) < 100
    box, last = (
        driver.execute_script("return arguments[0].getBoundingClientRect().toJSON()", node)
        for node in (scroller, _row(driver, "case_04999"))
    )
    assert box["top"] < last["top"] and abs(last["bottom"] - box["bottom"]) <= 2

    # A case far down opens in the editor.
    button = _row(driver, "case_04990", ".case-edit")
    driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", button)  # not under the sticky header
    button.click()
    wait.until(lambda d: d.find_element("css selector", "#editor-case").text == "case_04990")
    editor = driver.find_element("css selector", "#case-editor")
    wait.until(lambda _: '"evalId": "case_04990"' in (editor.get_attribute("value") or ""))

    # Select all checks every case, drawn or not; unchecking one leaves select-all undecided.
    check_all = driver.find_element("css selector", "#check-all")
    check_all.click()
    _row(driver, "case_04999", ".case-check").click()
    assert driver.execute_script("return arguments[0].indeterminate", check_all) is True
    driver.execute_script("arguments[0].scrollTop = 0", scroller)
    wait.until(lambda d: _drawn(d)[:1] == ["case_00000"])
    assert _row(driver, "case_00000", ".case-check").is_selected()
    check_all.click()  # every case checked again, then (the box was undecided) none
    if check_all.is_selected():
        check_all.click()
    assert not _row(driver, "case_00000", ".case-check").is_selected()


def test_the_cases_tab_follows_the_keyboard_past_its_window(served: Served) -> None:
    """Tab from a row's checkbox to its button and on: the rows that stay in the window are kept (focus is not lost)
    and the window slides to the focused row."""
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.keys import Keys

    driver, url, *_ = served
    wait = _open_set(driver, url, "big")
    window = len(_drawn(driver))
    driver.execute_script("arguments[0].focus()", _row(driver, "case_00000", ".case-check"))
    steps = 2 * (window + 10)  # a checkbox and a button per row: ten rows past the first window
    for _ in range(steps):
        ActionChains(driver).send_keys(Keys.TAB).perform()
    focused = driver.switch_to.active_element
    wait.until(lambda _: focused.get_attribute("class") == "case-check")
    row = driver.execute_script("return arguments[0].closest('tr').dataset.case", focused)
    assert row == f"case_{window + 10:05d}"
    assert len(_drawn(driver)) < 100


def test_a_5000_case_list_keeps_a_window_of_rows(served: Served) -> None:
    driver, url, *_ = served
    for attempt in ("first (the server's first answer)", "again (digest kept)"):
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


def test_a_1000_run_history_draws_every_run_and_a_bounded_matrix(served: Served) -> None:
    driver, url, *_ = served
    for attempt in ("first (the server's first answer)", "again (digests kept)"):
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


def test_a_restarted_server_opens_the_page_from_the_digests_it_saved(served: Served) -> None:
    """A second server on the same data, as after a restart: the digests the first one saved after its warm-up
    (``<data-dir>/cache/result-digests.json``) are read instead of the 1,001 unchanged result files."""
    driver, _, config, first = served
    assert first.state.agentgauge_warm_up.saved.wait(WAIT)
    assert (config.data_dir / "cache" / "result-digests.json").is_file()
    restarted = create_app(config)
    with running_server(restarted) as url:
        print("\nafter a restart:", end="")
        _open_set(driver, url, "big")
        assert restarted.state.agentgauge_warm_up.done.wait(WAIT)
        assert restarted.state.agentgauge_warm_up.digests == RUNS + 1
        assert restarted.state.agentgauge.results.files_read == 0
    assert _row(driver, "case_00003", ".case-status").text == "failed"
