"""Helpers for the browser tests: a uvicorn server in a thread and a headless Chromium driven by selenium.

The browser is the system's Chromium with its ChromeDriver (Debian ``chromium`` and ``chromium-driver``); nothing is
ever downloaded. Outside CI a missing browser skips the tests with the reason; with ``CI=true`` it fails them.
"""

from __future__ import annotations

import os
import shutil
import socket
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

CHROMIUM_CANDIDATES = ("/usr/bin/chromium", "/usr/bin/chromium-browser")
DRIVER_CANDIDATES = ("/usr/bin/chromedriver",)
CHROME_FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-dev-shm-usage",
    "--window-size=1280,900",
)


def _first(paths: tuple[str, ...], name: str) -> str | None:
    for path in paths:
        if os.access(path, os.X_OK):
            return path
    return shutil.which(name)


def browser_binaries() -> tuple[str, str]:
    """(chromium, chromedriver) paths; skips the test (fails it when ``CI=true``) when either is missing."""
    chromium = _first(CHROMIUM_CANDIDATES, "chromium")
    driver = _first(DRIVER_CANDIDATES, "chromedriver")
    try:
        import selenium  # noqa: F401
    except ImportError:
        missing = "the selenium package"
    else:
        missing = " and ".join(n for n, p in (("chromium", chromium), ("chromedriver", driver)) if p is None)
    if missing:
        reason = f"browser tests need {missing} (Debian packages chromium and chromium-driver)"
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(f"CI=true but {reason}", pytrace=False)
        pytest.skip(reason)
    assert chromium is not None and driver is not None
    return chromium, driver


@contextmanager
def chromium_driver() -> Iterator[Any]:
    """A headless Chromium session with a throw-away profile directory."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    chromium, driver_path = browser_binaries()
    profile = tempfile.mkdtemp(prefix="agentgauge-chromium-")
    options = webdriver.ChromeOptions()
    options.binary_location = chromium
    for flag in CHROME_FLAGS:
        options.add_argument(flag)
    options.add_argument(f"--user-data-dir={profile}")
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})  # console messages: CSP violations
    driver = webdriver.Chrome(service=Service(executable_path=driver_path), options=options)
    try:
        yield driver
    finally:
        driver.quit()
        shutil.rmtree(profile, ignore_errors=True)


def csp_violations(driver: Any) -> list[str]:
    """The console messages about Content Security Policy violations since the last call (of any frame)."""
    return [str(e.get("message", "")) for e in driver.get_log("browser") if "Content Security Policy" in str(e)]


def free_port() -> int:
    """A TCP port nobody listens on right now (on 127.0.0.1)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextmanager
def running_server(app: Any) -> Iterator[str]:
    """Serve ``app`` with uvicorn on 127.0.0.1 and a free port in a thread; yields the base URL."""
    import uvicorn

    port = free_port()
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            raise RuntimeError("the test server did not start")
        time.sleep(0.02)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=10)


def shot(driver: Any, name: str, element: str | None = None) -> None:
    """Save a screenshot as ``<name>.png`` in ``$AGENTGAUGE_SCREENSHOT_DIR`` (docs/images is made this way), after
    scrolling ``element`` into view; nothing without the variable."""
    folder = os.environ.get("AGENTGAUGE_SCREENSHOT_DIR")
    if folder:
        Path(folder).mkdir(parents=True, exist_ok=True)
        if element:
            driver.execute_script(f"document.querySelector('{element}').scrollIntoView()")
        driver.save_screenshot(str(Path(folder) / f"{name}.png"))


class Page:
    """Small helpers over the page."""

    def __init__(self, driver: Any, wait: float = 15) -> None:
        from selenium.common.exceptions import StaleElementReferenceException
        from selenium.webdriver.support.ui import WebDriverWait

        self.driver = driver
        # Lists are re-rendered as they change: an element read while it is replaced is looked up again.
        self.wait = WebDriverWait(driver, wait, ignored_exceptions=(StaleElementReferenceException,))

    def css(self, selector: str) -> Any:
        return self.wait.until(lambda d: d.find_element("css selector", selector))

    def all(self, selector: str) -> list[Any]:
        return list(self.driver.find_elements("css selector", selector))

    def open_set(self, url: str, app: str, set_id: str) -> None:
        self.driver.get(url + "/")
        self.wait.until(lambda d: d.find_element("tag name", "body").get_attribute("data-ready") == "true")
        # The lists are re-drawn as the page's first answers arrive: each click looks its item up again.
        self.click(f'.app-item[data-app="{app}"]')
        self.click(f'.set-item[data-set="{set_id}"]')
        self.css(f'.set-item.active[data-set="{set_id}"]')

    def click(self, selector: str, index: int = 0) -> None:
        """Click the ``index``-th match, looked up again when the page re-renders the list meanwhile."""
        from selenium.common.exceptions import StaleElementReferenceException

        def attempt(_: Any) -> bool:
            try:
                found = self.all(selector)
                if len(found) <= index:
                    return False
                found[index].click()
            except StaleElementReferenceException:
                return False
            return True

        self.wait.until(attempt)

    def ids(self) -> list[str]:
        return [node.get_attribute("data-case") for node in self.all(".case-item")]


def side_by_side(driver: Any, wait: Any, case: str, at_1280: Any) -> list[str]:
    """On the Compare tab: ``case``'s two answers are shown side by side (base, then new), the address names the
    pair, and at 1280×800 nothing scrolls sideways (``at_1280`` runs then: a screenshot); the two sides' texts."""
    detail = wait.until(lambda d: d.find_element("css selector", f'.compare-detail[data-case="{case}"] .sbs-turn'))
    sides = detail.find_elements("css selector", ".sbs-side")
    assert [s.get_attribute("class") for s in sides] == ["sbs-side base", "sbs-side new"]
    assert "tab=compare" in driver.current_url and "&base=" in driver.current_url
    size = driver.get_window_size()
    driver.set_window_size(1280, 800)
    try:
        width = driver.execute_script("return [document.documentElement.scrollWidth, window.innerWidth]")
        assert width[0] <= width[1], width  # no sideways scroll at 1280 px
        at_1280()
    finally:
        driver.set_window_size(size["width"], size["height"])
    return [str(s.text) for s in sides]
