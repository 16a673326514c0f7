"""The security headers in a real headless Chromium: the UI, the API reference and the HTML report work under their
Content-Security-Policy with no violation reported, a blocked inline script is reported (so the check can fail),
and another origin cannot frame the UI."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from _browser import chromium_driver, csp_violations, running_server

from agentgauge.server import ServerConfig, create_app

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")
WAIT = 15


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """One headless Chromium for the module."""
    with chromium_driver() as driver:
        yield driver


@pytest.fixture
def server(config: ServerConfig) -> Iterator[str]:
    """The calculator app served on 127.0.0.1 and a free port; its base URL."""
    with running_server(create_app(config)) as url:
        yield url


def _page(markup: str, policy: str | None = None) -> Any:
    """A one-page ASGI app answering ``markup`` (with ``policy`` as its CSP)."""

    async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return
        headers = [(b"content-type", b"text/html")]
        if policy:
            headers.append((b"content-security-policy", policy.encode()))
        await send({"type": "http.response.start", "status": 200, "headers": headers})
        await send({"type": "http.response.body", "body": markup.encode()})

    return app


def _wait(browser: Any, condition: Any) -> Any:
    from selenium.webdriver.support.ui import WebDriverWait

    return WebDriverWait(browser, WAIT).until(condition)


def test_a_blocked_inline_script_is_reported(browser: Any) -> None:
    """The control: a page whose inline script its policy forbids shows up in :func:`csp_violations`."""
    markup = "<!DOCTYPE html><title>t</title><body><script>document.title = 'ran'</script></body>"
    with running_server(_page(markup, "script-src 'self'")) as url:
        csp_violations(browser)
        browser.get(url + "/")
        _wait(browser, lambda d: d.execute_script("return document.readyState") == "complete")
        assert browser.title == "t"
        assert any("inline script" in m for m in csp_violations(browser))


def test_ui_and_docs_work_under_their_policy(browser: Any, server: str) -> None:
    csp_violations(browser)
    browser.get(server + "/")
    _wait(browser, lambda d: d.find_element("tag name", "body").get_attribute("data-ready") == "true")
    _wait(browser, lambda d: d.find_elements("css selector", '.set-item[data-set="calculator"]'))
    browser.get(server + "/docs")
    _wait(browser, lambda d: "HTTP API" in d.find_element("tag name", "h1").text)
    # The nonce'd stylesheet applied: operation boxes have their border.
    style = browser.execute_script("return getComputedStyle(document.querySelector('.op')).borderTopStyle")
    assert style == "solid"
    assert csp_violations(browser) == []


def test_report_script_runs_under_its_policy(browser: Any, server: str) -> None:
    """The report's own inline script (nonce) sorts its cases, in a sandboxed page, with no violation."""
    with httpx.Client(base_url=server, timeout=60) as client:
        started = client.post("/api/apps/calculator/eval-sets/calculator/runs", json={}).json()
        events = client.get(f"/api/runs/{started['runId']}/events").text
    result_id = events.rsplit('"resultId": "', 1)[1].split('"', 1)[0]
    csp_violations(browser)
    browser.get(f"{server}/api/apps/calculator/results/{result_id}/report.html")
    from selenium.webdriver.support.ui import Select

    def blocks() -> list[str]:
        found = browser.find_elements("css selector", "#case-list > details.case")
        return [e.get_attribute("data-case-id") for e in found]

    order = _wait(browser, lambda d: blocks())
    assert len(order) == 6 and order != sorted(order)
    Select(browser.find_element("id", "case-sort")).select_by_value("id")
    _wait(browser, lambda d: blocks() == sorted(order))
    assert browser.execute_script("return window.origin") == "null"  # sandboxed: no access to the API as the user
    assert csp_violations(browser) == []


def test_another_origin_cannot_frame_the_ui(browser: Any, server: str) -> None:
    markup = f'<!DOCTYPE html><iframe id="f" src="{server}/"></iframe>'
    with running_server(_page(markup)) as framing:
        csp_violations(browser)
        browser.get(framing + "/")
        messages = _wait(browser, lambda d: csp_violations(d))
    assert any("frame-ancestors" in m for m in messages), messages
