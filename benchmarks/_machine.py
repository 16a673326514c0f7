"""A description of the machine and software a benchmark run used, so results can be compared honestly."""

from __future__ import annotations

import importlib.metadata
import os
import platform
import sys
from typing import Any

OUR_DISTRIBUTIONS = ("agentgauge", "pydantic", "pydantic-core", "orjson", "rouge-score", "nltk", "typer", "rich")


def _cpu_model() -> str:
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as fh:
            for line in fh:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def _ram_gb() -> float | None:
    try:
        with open("/proc/meminfo", encoding="utf-8") as fh:
            for line in fh:
                if line.startswith("MemTotal:"):
                    return round(int(line.split()[1]) / 2**20, 1)
    except OSError:
        pass
    return None


def _versions(names: tuple[str, ...]) -> dict[str, str]:
    out: dict[str, str] = {}
    for name in names:
        try:
            out[name] = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            continue
    return out


def describe(peer_versions: dict[str, str]) -> dict[str, Any]:
    """CPU, cores, RAM, load, OS, Python and the package versions on both sides."""
    load = os.getloadavg() if hasattr(os, "getloadavg") else (0.0, 0.0, 0.0)
    return {
        "cpu_model": _cpu_model(),
        "cpu_count": os.cpu_count(),
        "ram_gb": _ram_gb(),
        "load_average_1m_at_start": round(load[0], 2),
        "os": platform.platform(),
        "python": sys.version.split()[0],
        "python_implementation": platform.python_implementation(),
        "agentgauge_packages": _versions(OUR_DISTRIBUTIONS),
        "peer_packages": peer_versions,
    }
