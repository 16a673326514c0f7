"""What ``agentgauge serve`` serves: the apps (agents), the data directory and the safety settings."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import InputError

__all__ = ["DEFAULT_MAX_UPLOAD_BYTES", "ServerConfig", "default_data_dir", "discover_apps"]

DEFAULT_MAX_UPLOAD_BYTES = 10 * 1024 * 1024
"""Largest request body accepted (bytes); larger uploads get 413."""

_APP_NAME = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.-]*$")


@dataclass
class ServerConfig:
    """Settings of one server.

    - ``data_dir``: eval sets, metrics, results and sessions live in ``<data_dir>/<app>/`` (the local file managers'
      layout, so the files are the ones ``agentgauge eval`` reads and writes).
    - ``agents``: app name → agent spec (``path/to/agent.py``, an agent directory or ``package.module:attr``); the
      agents are imported on first use.
    - ``token``: when set, every request needs ``Authorization: Bearer <token>`` (or the cookie the UI sets).
    - ``allow_remote_writes``: let non-loopback clients call the routes that change files or run agents (as ADK's
      ``ADK_ALLOW_REMOTE_AGENT_BUILDER``); refused with 403 otherwise.
    - ``cors_origins``: origins allowed by CORS (none: CORS headers are never sent).
    - ``adk_web``: serve google-adk's bundled ADK Web front end under ``/dev-ui/``.
    """

    data_dir: Path
    agents: dict[str, str] = field(default_factory=dict)
    token: str | None = None
    allow_remote_writes: bool = False
    cors_origins: list[str] = field(default_factory=list)
    max_upload_bytes: int = DEFAULT_MAX_UPLOAD_BYTES
    adk_web: bool = False
    default_parallelism: int = 4


def _agent_in_dir(path: Path) -> str | None:
    if (path / "__init__.py").is_file():
        return str(path)
    if (path / "agent.py").is_file():
        return str(path / "agent.py")
    return None


def _app_name(name: str, spec: str) -> str:
    if not _APP_NAME.match(name):
        raise InputError(f"cannot serve {spec!r}: app name {name!r} must use letters, digits, '_', '-' or '.'")
    return name


def _module_app_name(spec: str) -> str:
    # ``pkg.calculator.agent:root_agent`` is the calculator app; ``pkg.tools:weather_agent`` the weather_agent app.
    module, _, attribute = spec.partition(":")
    attribute = attribute.rpartition(".")[2]
    if attribute not in ("root_agent", "agent"):
        return attribute
    parts = module.split(".")
    return parts[-2] if parts[-1] == "agent" and len(parts) > 1 else parts[-1]


def discover_apps(specs: list[str]) -> dict[str, str]:
    """App name → agent spec for the ``AGENT_OR_DIR`` arguments.

    - a directory holding ``agent.py`` or ``__init__.py`` is one app named after the directory;
    - another directory is a folder of apps (as ``adk web AGENTS_DIR``): every subdirectory with an agent;
    - ``path/agent.py`` is named after its directory, ``path/other.py`` after the file;
    - ``package.module:attr`` is named after the attribute, or after the module when the attribute is
      ``root_agent`` / ``agent`` (``pkg.calculator.agent:root_agent`` → ``calculator``).
    """
    apps: dict[str, str] = {}

    def add(name: str, spec: str) -> None:
        name = _app_name(name, spec)
        if name in apps and apps[name] != spec:
            raise InputError(f"two agents would be served as app {name!r}: {apps[name]} and {spec}")
        apps[name] = spec

    for spec in specs:
        path = Path(spec)
        if path.is_dir():
            found = _agent_in_dir(path)
            if found is not None:
                add(path.resolve().name, found)
                continue
            children = sorted(p for p in path.iterdir() if p.is_dir() and not p.name.startswith((".", "_")))
            for child in children:
                inner = _agent_in_dir(child)
                if inner is not None:
                    add(child.name, inner)
            continue
        if spec.endswith(".py"):
            if not path.is_file():
                raise InputError("agent file not found", file=spec)
            resolved = path.resolve()
            add(resolved.parent.name if resolved.stem == "agent" else resolved.stem, spec)
            continue
        if ":" in spec:
            add(_module_app_name(spec), spec)
            continue
        raise InputError(
            "not an agent or a directory: expected path/to/agent.py, a directory or module:attr", file=spec
        )
    return apps


def default_data_dir(specs: list[str]) -> Path:
    """Where data lives when ``--data-dir`` is not given: beside the agents, as ADK keeps eval sets.

    For an app directory its parent, for a folder of apps the folder itself, for an agent file the parent of its
    directory; otherwise (no argument, a module) the current directory.
    """
    for spec in specs:
        path = Path(spec)
        if path.is_dir():
            return path.resolve().parent if _agent_in_dir(path) is not None else path.resolve()
        if spec.endswith(".py") and path.is_file():
            resolved = path.resolve()
            return resolved.parent.parent if resolved.stem == "agent" else resolved.parent
    return Path.cwd()
