"""What ``agentgauge serve`` serves: the apps (agents), the data directory and the safety settings."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import InputError
from ..launch import JudgeOptions, SimulationOptions
from ..traces import DEFAULT_LIVE_MEMORY_BYTES

__all__ = [
    "DEFAULT_DATA_DIR",
    "DEFAULT_MAX_UPLOAD_BYTES",
    "DEFAULT_SERVE_TIMEOUT",
    "ServerConfig",
    "default_data_dir",
    "default_evals_dir",
    "discover_apps",
]

DEFAULT_DATA_DIR = Path(".agentgauge")
"""The server's own files when ``--data-dir`` is not given (relative to the current directory): the folder whose
``results/`` ``agentgauge eval`` writes by default, so runs from either side land in one history."""

DEFAULT_SERVE_TIMEOUT = 300.0
"""Seconds one agent call made by the server may take when ``--timeout`` is not given: a hung agent fails its turn or
case instead of holding a request or a run forever."""

DEFAULT_MAX_UPLOAD_BYTES = 10 * 1024 * 1024
"""Largest request body accepted (bytes); larger uploads get 413."""

_APP_NAME = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.-]*$")


@dataclass
class ServerConfig:
    """Settings of one server.

    - ``data_dir``: the server's own files: ``sessions/<app>/<userId>/<sessionId>.json``, ``results/<app>/`` (the
      results of its runs, unless ``output_dir`` or ``store`` is set), ``locks/`` (the lock files of the eval set
      and metrics files it edits) and ``cache/result-digests.json`` (what the result lists need of each result file,
      kept for the next start). Nothing else is written outside it except the user's eval set and metrics files.
    - ``evals_dir``: where eval sets and their metrics files are read and edited,
      ``<evals_dir>/<app>/<id>.evalset.json`` (as ADK keeps them beside the agents); ``None``: ``data_dir``.
    - ``output_dir``: write results to ``<output_dir>/<app>/`` (as ``agentgauge eval --output-dir``); ``store``: to
      this SQL store instead (a URL, as ``--store``). Results are listed from every place they may be: see
      :class:`~agentgauge.server._history.ResultHistory`.
    - ``result_dirs``: more folders whose ``<app>/*.evalset_result.json`` results are listed (``serve`` adds
      ``agentgauge eval``'s default, ``.agentgauge/results``, when ``data_dir`` is elsewhere).
    - ``timeout``: seconds one agent call may take (a chat turn, a case's inference in a run); default
      :data:`DEFAULT_SERVE_TIMEOUT` (300 s), ``None``: no limit (the Python API only).
    - ``agents``: app name → agent spec (``path/to/agent.py``, an agent directory, ``package.module:attr`` or a
      remote agent URL); the agents are imported on first use. ``remote``: the
      :class:`~agentgauge.agents.remote.RemoteAgentSettings` of remote agents (headers, timeouts, ...).
    - ``token``: when set, every request needs ``Authorization: Bearer <token>`` (or the cookie the UI sets).
    - ``allow_remote_writes``: let non-loopback clients call the routes that change files or run agents (as ADK's
      ``ADK_ALLOW_REMOTE_AGENT_BUILDER``); refused with 403 otherwise.
    - ``cors_origins``: origins allowed by CORS (none: CORS headers are never sent).
    - ``adk_web``: serve google-adk's bundled ADK Web front end under ``/dev-ui/``.
    - ``host``: the address the server binds; requests may name it in their ``Host`` header.
    - ``allowed_hosts``: more names requests may give in ``Host`` (and ``Origin``) besides loopback names and
      addresses and ``host``; anything else is refused with 403 (DNS rebinding). ``"*"`` turns the check off.
    - ``debug``: keep agents' tracebacks in results and reports served over HTTP (dropped otherwise).
    - ``otlp``: receive OTLP/HTTP at ``/v1/traces`` and ``/v1/logs`` into ``<data_dir>/otlp/`` (live sessions);
      ``otlp_grpc_port``: also OTLP/gRPC on that port (the ``otlp`` extra); ``live_memory_bytes``: the memory the
      received spans held may take; ``online_rules``: the rules file of online evaluation (``serve --online``):
      received sessions scored as they end (see :mod:`agentgauge.online`).
    - ``strict_inputs``: every input warning (an unknown key the file's own tool ignores) is an error: saving such
      a case or metrics file, or running such an eval set, answers 422 (``serve --strict``).
    - ``trpc_api``: serve trpc-agent-go's evaluation service under ``trpc_base_path`` (``/evaluation``) for the app
      ``trpc_app`` (``None``: the one app served; see ``docs/trpc.md``).
    - ``mcp``: serve the Model Context Protocol at ``/mcp`` (streamable HTTP); ``mcp_allow_run``: its ``run`` tool
      may start evaluations (see ``docs/mcp.md``).
    """

    data_dir: Path
    agents: dict[str, str] = field(default_factory=dict)
    token: str | None = None
    allow_remote_writes: bool = False
    cors_origins: list[str] = field(default_factory=list)
    max_upload_bytes: int = DEFAULT_MAX_UPLOAD_BYTES
    adk_web: bool = False
    default_parallelism: int = 4
    host: str = "127.0.0.1"
    allowed_hosts: list[str] = field(default_factory=list)
    debug: bool = False
    evals_dir: Path | None = None
    output_dir: Path | None = None
    store: str | None = None
    timeout: float | None = DEFAULT_SERVE_TIMEOUT
    result_dirs: list[Path] = field(default_factory=list)
    otlp: bool = False
    otlp_grpc_port: int | None = None
    live_memory_bytes: int = DEFAULT_LIVE_MEMORY_BYTES
    online_rules: Path | None = None
    remote: Any = None  # RemoteAgentSettings of the remote agents (serve --agent-header / --agent-config)
    strict_inputs: bool = False
    judge: JudgeOptions = field(default_factory=lambda: JudgeOptions(no_cache=True))
    simulation: SimulationOptions = field(default_factory=SimulationOptions)
    trpc_api: bool = False
    trpc_app: str | None = None
    trpc_base_path: str = "/evaluation"
    mcp: bool = False
    mcp_allow_run: bool = False

    @property
    def eval_root(self) -> Path:
        """Where eval sets live: ``evals_dir``, else ``data_dir``."""
        return self.evals_dir if self.evals_dir is not None else self.data_dir


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


def _remote_app(spec: str) -> tuple[str, str] | None:
    """``(app name, URL)`` of a remote agent given as ``URL`` or ``NAME=URL``, else ``None``. Without a name, an
    ``adk+http`` URL's app is the app, else the URL's last path segment, else its host."""
    from urllib.parse import urlsplit

    from ..agents.remote import is_remote_agent_spec

    name, equals, url = spec.partition("=")
    if not (equals and is_remote_agent_spec(url)):
        if not is_remote_agent_spec(spec):
            return None
        name, url = "", spec
    if not name:
        parts = urlsplit(url.partition("+")[2] if "+" in url.split("://")[0] else url)
        segments = [s for s in parts.path.split("/") if s]
        name = segments[-1] if segments else (parts.hostname or "remote")
    return name, url


def discover_apps(specs: list[str]) -> dict[str, str]:
    """App name → agent spec for the ``AGENT_OR_DIR`` arguments.

    - a directory holding ``agent.py`` or ``__init__.py`` is one app named after the directory;
    - another directory is a folder of apps (as ``adk web AGENTS_DIR``): every subdirectory with an agent;
    - ``path/agent.py`` is named after its directory, ``path/other.py`` after the file;
    - ``package.module:attr`` is named after the attribute, or after the module when the attribute is
      ``root_agent`` / ``agent`` (``pkg.calculator.agent:root_agent`` → ``calculator``);
    - a remote agent URL (``a2a+http://...``, ``adk+http://.../apps/APP``, ...) is named ``NAME`` when given as
      ``NAME=URL``, else after an ``adk+http`` URL's app, the URL's last path segment or its host.
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
        remote = _remote_app(spec)
        if remote is not None:
            add(*remote)
            continue
        if ":" in spec:
            add(_module_app_name(spec), spec)
            continue
        raise InputError(
            "not an agent or a directory: expected path/to/agent.py, a directory or module:attr", file=spec
        )
    return apps


def default_data_dir() -> Path:
    """Where the server keeps its own files when ``--data-dir`` is not given: :data:`DEFAULT_DATA_DIR` under the
    current directory."""
    return DEFAULT_DATA_DIR.absolute()


def default_evals_dir(specs: list[str]) -> Path:
    """Where eval sets live when ``--evals-dir`` is not given: beside the agents, as ADK keeps them.

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
