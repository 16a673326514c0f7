"""Where managers keep their files: the :class:`Locator` protocol and the default layouts."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Protocol, runtime_checkable

__all__ = [
    "EVALSET_SUFFIX",
    "METRICS_SUFFIX",
    "RESULT_SUFFIX",
    "Locator",
    "SuffixLocator",
    "default_evalset_locator",
    "default_metrics_locator",
    "default_result_locator",
]

EVALSET_SUFFIX = ".evalset.json"
METRICS_SUFFIX = ".metrics.json"
RESULT_SUFFIX = ".evalset_result.json"


@runtime_checkable
class Locator(Protocol):
    """Maps ``(base_dir, app, id)`` to a file path and lists the ids stored for an application.

    Implement this to change the file layout, e.g. ``<base>/<app>/custom-<id>.evalset.json``.
    """

    def build(self, base_dir: Path, app: str, id: str) -> Path:
        """The file that holds ``id`` of application ``app``."""
        ...

    def list(self, base_dir: Path, app: str) -> list[str]:
        """Every id stored for ``app`` (``[]`` when there is none)."""
        ...


class SuffixLocator:
    """The default layout: ``<base_dir>/<app>/<id><suffix>``; :meth:`list` scans only that directory."""

    def __init__(self, suffix: str) -> None:
        self.suffix = suffix

    def build(self, base_dir: Path, app: str, id: str) -> Path:
        """``<base_dir>/<app>/<id><suffix>``."""
        return Path(base_dir) / app / f"{id}{self.suffix}"

    def list(self, base_dir: Path, app: str) -> list[str]:
        """Ids of the files ending in the suffix directly under ``<base_dir>/<app>``, sorted."""
        directory = Path(base_dir) / app
        try:
            names = os.listdir(directory)
        except (FileNotFoundError, NotADirectoryError):
            return []
        found = [n[: -len(self.suffix)] for n in names if n.endswith(self.suffix) and len(n) > len(self.suffix)]
        return sorted(n for n in found if not n.startswith("."))

    def __repr__(self) -> str:
        return f"SuffixLocator({self.suffix!r})"


def default_evalset_locator() -> SuffixLocator:
    """``<base>/<app>/<evalSetId>.evalset.json``."""
    return SuffixLocator(EVALSET_SUFFIX)


def default_metrics_locator() -> SuffixLocator:
    """``<base>/<app>/<evalSetId>.metrics.json``."""
    return SuffixLocator(METRICS_SUFFIX)


def default_result_locator() -> SuffixLocator:
    """``<base>/<app>/<evalSetResultId>.evalset_result.json``."""
    return SuffixLocator(RESULT_SUFFIX)
