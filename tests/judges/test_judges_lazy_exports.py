"""``agentgauge.judges`` loads its parts on first use: a run without judge metrics pays only for the settings."""

from __future__ import annotations

import subprocess
import sys

import agentgauge.judges as judges


def test_every_exported_name_resolves_and_is_listed() -> None:
    for name in judges.__all__:
        assert getattr(judges, name) is not None, name
    assert set(judges.__all__) <= set(dir(judges))


def test_an_unknown_name_is_an_attribute_error() -> None:
    try:
        judges.NoSuchThing  # type: ignore[attr-defined]  # noqa: B018
    except AttributeError as exc:
        assert "no attribute 'NoSuchThing'" in str(exc)
    else:  # pragma: no cover - the assertion above must hold
        raise AssertionError("expected AttributeError")


def test_the_settings_alone_do_not_load_the_client() -> None:
    code = (
        "import sys\n"
        "from agentgauge.judges import JudgeSettings, RetryPolicy\n"
        "print(sorted(m for m in sys.modules if m.startswith('agentgauge.judges')))\n"
    )
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert loaded.strip() == "['agentgauge.judges', 'agentgauge.judges._retry', 'agentgauge.judges._settings']"
