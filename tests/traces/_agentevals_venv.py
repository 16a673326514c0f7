"""The agentevals installation the differential test runs: a venv of its own under ``.venv-agentevals``.

agentevals-cli 0.11 pins protobuf < 7 and (through litellm) openai < 3, so installing it beside agentgauge would
downgrade packages of the dev environment (``pip check`` conflicts). The test session creates the venv from
``agentevals.requirements.txt`` once and reuses it while that file is unchanged (its hash is kept in the venv).
Missing agentevals (no network, install failure) skips the tests, except under ``CI=true``, where it fails them.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
from pathlib import Path

import pytest
from filelock import FileLock

ROOT = Path(__file__).resolve().parents[2]
VENV = ROOT / ".venv-agentevals"
REQUIREMENTS = Path(__file__).with_name("agentevals.requirements.txt")
_MARKER = "agentgauge-requirements.sha256"


def _python() -> Path:
    return VENV / ("Scripts/python.exe" if os.name == "nt" else "bin/python")


def _digest() -> str:
    return hashlib.sha256(REQUIREMENTS.read_bytes()).hexdigest()


def _unavailable(reason: str) -> None:
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(f"CI=true but agentevals is unavailable: {reason}", pytrace=False)
    pytest.skip(f"agentevals is unavailable: {reason}")


def ensure_agentevals() -> Path:
    """The Python of a venv with agentevals installed (created or refreshed when needed); skips or fails the test
    when it cannot be installed. The test workers (pytest -n) take turns: one creates the venv, the others wait for it
    and then reuse it."""
    with FileLock(str(VENV) + ".lock", timeout=2400):
        return _ensure_agentevals()


def _ensure_agentevals() -> Path:
    marker = VENV / _MARKER
    if _python().is_file() and marker.is_file() and marker.read_text().strip() == _digest():
        return _python()
    try:
        subprocess.run([sys.executable, "-m", "venv", "--clear", str(VENV)], check=True, capture_output=True)
        subprocess.run(
            [str(_python()), "-m", "pip", "install", "-q", "--disable-pip-version-check", "-r", str(REQUIREMENTS)],
            check=True,
            capture_output=True,
            text=True,
            timeout=1800,
        )
        probe = subprocess.run(
            [str(_python()), "-c", "import agentevals.runner, agentevals.config"], capture_output=True, text=True
        )
        if probe.returncode != 0:
            _unavailable(f"import failed: {probe.stderr.strip().splitlines()[-1:]}")
    except subprocess.CalledProcessError as exc:
        tail = (exc.stderr or "").strip().splitlines()[-3:] if isinstance(exc.stderr, str) else []
        _unavailable(f"installing {REQUIREMENTS.name} failed: {' / '.join(tail) or exc}")
    except (OSError, subprocess.TimeoutExpired) as exc:
        _unavailable(str(exc))
    marker.write_text(_digest() + "\n")
    return _python()
