"""The browser tests skip with a reason when Chromium is missing, except under CI=true, where they fail."""

from __future__ import annotations

import _browser
import pytest


@pytest.fixture
def no_browser(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_browser, "CHROMIUM_CANDIDATES", ("/nonexistent/chromium",))
    monkeypatch.setattr(_browser, "DRIVER_CANDIDATES", ("/nonexistent/chromedriver",))
    monkeypatch.setattr(_browser.shutil, "which", lambda name: None)


@pytest.mark.usefixtures("no_browser")
def test_missing_browser_skips_outside_ci(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CI", raising=False)
    with pytest.raises(pytest.skip.Exception, match="browser tests need chromium and chromedriver"):
        _browser.browser_binaries()


@pytest.mark.usefixtures("no_browser")
def test_missing_browser_fails_under_ci(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CI", "true")
    with pytest.raises(pytest.fail.Exception, match="CI=true but browser tests need chromium"):
        _browser.browser_binaries()
