"""The agentevals venv of the differential test: a failed install skips the tests, except under ``CI=true``."""

from __future__ import annotations

from pathlib import Path

import _agentevals_venv as guard
import pytest


@pytest.fixture
def broken(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # A requirement pip refuses at once (no download): the install fails like a missing package would.
    requirements = tmp_path / "requirements.txt"
    requirements.write_text("this is not a requirement ===\n")
    monkeypatch.setattr(guard, "VENV", tmp_path / "venv")
    monkeypatch.setattr(guard, "REQUIREMENTS", requirements)


@pytest.mark.usefixtures("broken")
def test_failed_install_skips_outside_ci(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CI", raising=False)
    with pytest.raises(pytest.skip.Exception, match=r"agentevals is unavailable: installing requirements\.txt failed"):
        guard.ensure_agentevals()


@pytest.mark.usefixtures("broken")
def test_failed_install_fails_under_ci(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CI", "true")
    with pytest.raises(pytest.fail.Exception, match="CI=true but agentevals is unavailable"):
        guard.ensure_agentevals()


def test_installed_venv_is_reused_while_the_requirements_are_unchanged(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    venv = tmp_path / "venv"
    (venv / "bin").mkdir(parents=True)
    (venv / "bin" / "python").write_text("")
    requirements = tmp_path / "requirements.txt"
    requirements.write_text("agentevals-cli==0.11.0\n")
    monkeypatch.setattr(guard, "VENV", venv)
    monkeypatch.setattr(guard, "REQUIREMENTS", requirements)
    (venv / "agentgauge-requirements.sha256").write_text(guard._digest() + "\n")
    assert guard.ensure_agentevals() == venv / "bin" / "python"  # no install attempted: the marker matches
