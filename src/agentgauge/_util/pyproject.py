"""The ``[tool.agentgauge]`` table of the nearest ``pyproject.toml`` (plug-ins and prices are read from it)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..errors import InputError

__all__ = ["agentgauge_table"]

_parsed: dict[tuple[Path, int, int], dict[str, Any]] = {}  # one parse per file version, however many readers


def agentgauge_table(start: Path | None = None) -> tuple[Path, dict[str, Any]] | None:
    """The nearest ``pyproject.toml`` at or above ``start`` (default: the current folder) and its
    ``[tool.agentgauge]`` table (empty when it has none); ``None`` when there is no such file.

    An unreadable or invalid file is an :class:`InputError` naming it.
    """
    import tomllib

    folder = (start or Path.cwd()).resolve()
    for candidate in (folder, *folder.parents):
        path = candidate / "pyproject.toml"
        try:
            stat = path.stat()
        except OSError:
            continue
        if not path.is_file():
            continue
        key = (path, stat.st_mtime_ns, stat.st_size)
        data = _parsed.get(key)
        if data is None:
            try:
                data = tomllib.loads(path.read_text(encoding="utf-8"))
            except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
                text = " ".join(str(exc).split())
                raise InputError(f"cannot read: {type(exc).__name__}: {text}", file=str(path)) from None
            _parsed[key] = data
        tool = data.get("tool", {})
        section = tool.get("agentgauge", {}) if isinstance(tool, dict) else {}
        return path, section if isinstance(section, dict) else {}
    return None
