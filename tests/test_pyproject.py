"""The ``[tool.agentgauge]`` table of the nearest pyproject.toml, shared by plug-ins and prices."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentgauge._util.pyproject import agentgauge_table
from agentgauge.errors import InputError
from agentgauge.evaluators._plugins import plugins_from_pyproject
from agentgauge.model._prices import DEFAULT_PRICES, prices_for_run


def test_the_nearest_file_is_found_and_read_once_per_version(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "pyproject.toml").write_text('[tool.agentgauge]\nplugins = ["x"]\n', encoding="utf-8")
    inner = tmp_path / "a" / "b"
    inner.mkdir(parents=True)
    reads: list[Path] = []
    original = Path.read_text

    def counting(self: Path, *args: object, **kwargs: object) -> str:
        reads.append(self)
        return original(self, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(Path, "read_text", counting)
    assert agentgauge_table(inner) == (tmp_path / "pyproject.toml", {"plugins": ["x"]})
    assert plugins_from_pyproject(inner) == (tmp_path / "pyproject.toml", ["x"])
    assert prices_for_run(start=inner) is DEFAULT_PRICES  # the file names no prices
    assert reads == [tmp_path / "pyproject.toml"]


def test_a_file_without_the_table_gives_an_empty_one(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "x"\n', encoding="utf-8")
    assert agentgauge_table(tmp_path) == (tmp_path / "pyproject.toml", {})


def test_an_invalid_file_names_itself(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text("[tool.agentgauge\n", encoding="utf-8")
    with pytest.raises(InputError, match="cannot read: TOMLDecodeError") as info:
        agentgauge_table(tmp_path)
    assert info.value.file == str(tmp_path / "pyproject.toml")
