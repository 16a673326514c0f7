"""The case editor in a real headless Chromium shows unknown keys: as a warning where the case's own tool accepts the
key (the case is saved), as an error where it refuses it (ADK's Invocation, in a case pasted in ADK's shape:
nothing saved)."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from _browser import chromium_driver, csp_violations, running_server

from agentgauge.server import ServerConfig, create_app

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

ROOT = Path(__file__).resolve().parents[2]
WAIT = 15


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Any, str, Path]]:
    """Chromium and a server over app ``keys`` holding the ADK set ``home`` and the native set ``calc``."""
    folder = tmp_path_factory.mktemp("keys-data") / "keys"
    folder.mkdir()
    shutil.copy(
        ROOT / "examples/home_automation/home_automation_agent_light_on_off_set.evalset.json",
        folder / "home.evalset.json",
    )
    shutil.copy(ROOT / "examples/calculator/calculator.evalset.json", folder / "calc.evalset.json")
    with chromium_driver() as driver, running_server(create_app(ServerConfig(data_dir=folder.parent))) as url:
        yield driver, url, folder


def _open_case(driver: Any, url: str, set_id: str, case_id: str) -> Any:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    wait = WebDriverWait(driver, WAIT)
    driver.get(url + "/")
    wait.until(lambda d: d.find_element(By.TAG_NAME, "body").get_attribute("data-ready") == "true")
    wait.until(lambda d: d.find_element(By.CSS_SELECTOR, f'.set-item[data-set="{set_id}"]')).click()
    wait.until(lambda d: d.find_element(By.CSS_SELECTOR, f'.case-row[data-case="{case_id}"] .case-edit')).click()
    editor = driver.find_element(By.ID, "case-editor")
    wait.until(lambda d: f'"evalId": "{case_id}"' in (editor.get_attribute("value") or ""))
    return wait, editor


def _shown(driver: Any, element_id: str) -> str:
    node = driver.find_element("id", element_id)
    return str(node.text) if node.is_displayed() else ""


def test_an_adk_case_with_a_key_adk_refuses_is_not_saved(served: tuple[Any, str, Path]) -> None:
    driver, url, folder = served
    before = (folder / "home.evalset.json").read_bytes()
    csp_violations(driver)
    wait, editor = _open_case(driver, url, "home", "eval_case_id")
    case = json.loads((folder / "home.evalset.json").read_text())["eval_cases"][0]  # pasted in ADK's own shape
    turn = case["conversation"][0]
    turn["final_respnse"] = turn.pop("final_response")
    driver.execute_script("arguments[0].value = arguments[1]", editor, json.dumps(case, indent=2))
    driver.find_element("id", "case-save").click()
    wait.until(lambda d: "Not saved" in _shown(d, "case-error"))
    keys = _shown(driver, "case-keys")
    assert (
        "conversation[0].final_respnse: unknown key 'final_respnse' (did you mean 'final_response'?); "
        "ADK's Invocation refuses it"
    ) in keys
    assert (folder / "home.evalset.json").read_bytes() == before
    assert csp_violations(driver) == []


def test_a_native_file_saves_and_warns(served: tuple[Any, str, Path]) -> None:
    driver, url, folder = served
    wait, editor = _open_case(driver, url, "calc", "calc_add")
    assert _shown(driver, "case-keys") == ""
    case = json.loads(editor.get_attribute("value"))
    case["sesionInput"] = {"appName": "calculator"}
    driver.execute_script("arguments[0].value = arguments[1]", editor, json.dumps(case, indent=2))
    driver.find_element("id", "case-save").click()
    wait.until(lambda d: "Saved case calc_add." in _shown(d, "run-status"))
    assert "sesionInput: unknown key 'sesionInput' (did you mean 'sessionInput'?)" in _shown(driver, "case-keys")
    assert _shown(driver, "case-error") == ""
    stored = json.loads((folder / "calc.evalset.json").read_bytes())
    assert stored["evalCases"][0]["sesionInput"] == {"appName": "calculator"}
    # Opening the case again shows the key it still has.
    wait, editor = _open_case(driver, url, "calc", "calc_add")
    wait.until(lambda d: "sesionInput" in _shown(d, "case-keys"))
