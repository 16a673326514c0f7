"""ADK Web's Trace tab in headless Chromium against ``serve --adk-web``: after a chat with a google-adk agent, the
tab lists the turn's spans (it stayed empty before the server answered ADK Web's trace routes)."""

from __future__ import annotations

from pathlib import Path

import pytest
from _browser import chromium_driver, running_server
from test_browser import UI, _click_text, _shot

pytest.importorskip("google.adk")

from agentgauge.server import ServerConfig, create_app, discover_apps
from agentgauge.server._app import adk_web_assets

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

ADK_CALCULATOR = Path(__file__).resolve().parents[1] / "agents" / "remote" / "calculator_adk"


def test_the_trace_tab_shows_the_spans_of_a_chat(tmp_path: Path) -> None:
    from selenium.webdriver.common.keys import Keys

    assert adk_web_assets() is not None
    apps = discover_apps([str(ADK_CALCULATOR)])
    app = create_app(ServerConfig(data_dir=tmp_path, agents=apps, adk_web=True))
    with running_server(app) as url, chromium_driver() as driver:
        ui = UI(driver)
        driver.get(url + "/dev-ui/")
        ui.wait.until(lambda d: "calculator_adk" in d.find_element("tag name", "body").text)
        box = ui.css("textarea")
        box.send_keys("calc mul 6 7")
        box.send_keys(Keys.ENTER)
        ui.wait.until(lambda d: "calc result: 42" in d.find_element("tag name", "body").text)
        _click_text(ui, "Traces")  # the Events / Traces toggle of the chat panel
        ui.wait.until(lambda d: "generate_content" in d.find_element("tag name", "body").text)
        body = driver.find_element("tag name", "body").text
        assert "invoke_workflow" in body and body.count("generate_content") == 2  # the tool call, then the answer
        assert "invocation id" in body.lower()  # the spans are grouped by the turn they belong to
        _shot(driver, "adk-web-trace")
