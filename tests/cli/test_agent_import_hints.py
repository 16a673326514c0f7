"""An agent that cannot be imported for want of a known optional package: one line saying what to install."""

from __future__ import annotations

import json
from importlib import metadata
from pathlib import Path

import pytest
from typer.testing import CliRunner

from agentgauge.cli import app

runner = CliRunner()

CASE = {"evalId": "c", "conversation": [{"userContent": {"content": "q"}, "finalResponse": {"content": "a"}}]}

# What the agent module imports, standing for google.adk.models.lite_llm without litellm installed: older google-adk
# versions fail with a bare ModuleNotFoundError, 2.13 raises its own ImportError.
MISSING_LITELLM = "raise ModuleNotFoundError(\"No module named 'litellm'\", name='litellm')\n"
ADK_LITELLM_ERROR = "raise ImportError('LiteLLM support requires: pip install google-adk[extensions]')\n"
MISSING_ADK = "raise ModuleNotFoundError(\"No module named 'google.adk'\", name='google.adk')\n"


def _refused(tmp_path: Path, models_module: str) -> str:
    (tmp_path / "fake_models.py").write_text(models_module)
    (tmp_path / "lite_agent.py").write_text("from fake_models import LiteLlm\n\nroot_agent = LiteLlm()\n")
    (tmp_path / "s.evalset.json").write_text(json.dumps({"evalSetId": "s", "evalCases": [CASE]}))
    result = runner.invoke(
        app, ["eval", str(tmp_path / "lite_agent.py"), str(tmp_path / "s.evalset.json"), "--output-dir", "out"]
    )
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr
    return lines[0]


def _litellm_range() -> str:
    try:
        declared = metadata.requires("google-adk") or []
    except metadata.PackageNotFoundError:
        return ""
    found = [r.split(";")[0].replace(" ", "") for r in declared if r.startswith("litellm")]
    return found[0].removeprefix("litellm") if found else ""


@pytest.mark.parametrize("module", [MISSING_LITELLM, ADK_LITELLM_ERROR], ids=["module-not-found", "adk-import-error"])
def test_a_litellm_agent_without_litellm_names_the_package_to_install(tmp_path: Path, module: str) -> None:
    line = _refused(tmp_path, module)
    assert line == (
        f"error: {tmp_path / 'lite_agent.py'}: cannot import the agent: the agent uses LiteLlm, which needs the "
        f"litellm package: pip install 'litellm{_litellm_range()}' (in this environment)"
    )


def test_an_adk_agent_without_google_adk_names_the_extra(tmp_path: Path) -> None:
    line = _refused(tmp_path, MISSING_ADK)
    assert line.endswith("the agent uses Google ADK, which is not installed: pip install 'agentgauge[adk]' (in this "
                         "environment)")  # fmt: skip


def test_other_import_errors_are_described_as_they_are(tmp_path: Path) -> None:
    line = _refused(tmp_path, "raise ModuleNotFoundError(\"No module named 'nope'\", name='nope')\n")
    assert line.endswith("cannot import the agent: ModuleNotFoundError: No module named 'nope'")
