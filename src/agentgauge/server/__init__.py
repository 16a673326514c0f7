"""``agentgauge serve``: an HTTP server for evaluation (FastAPI, the ``server`` extra).

- ADK-compatible routes: ``/list-apps``, sessions, ``/run`` / ``/run_sse`` and every ADK eval route under
  ``/dev/apps/{app}/...`` and ``/apps/{app}/...``, current and legacy spellings;
- agentgauge's ``/api``: metrics files, background runs with server-sent progress, results, comparison and the
  agentevals-compatible ``POST /api/validate/eval-set``;
- a web UI at ``/`` (static files shipped in the package) and, with ``adk_web``, ADK Web at ``/dev-ui/``.

Eval sets are the user's files (under ``evals_dir``); the server's own files live under ``data_dir``. Import
:func:`create_app` only when FastAPI is installed.
"""

from typing import TYPE_CHECKING

from ._config import (
    DEFAULT_MAX_UPLOAD_BYTES,
    DEFAULT_SERVE_TIMEOUT,
    ServerConfig,
    default_data_dir,
    default_evals_dir,
    discover_apps,
)
from ._safety import SafetyMiddleware

if TYPE_CHECKING:  # pragma: no cover
    from ._app import create_app

__all__ = [
    "DEFAULT_MAX_UPLOAD_BYTES",
    "DEFAULT_SERVE_TIMEOUT",
    "SafetyMiddleware",
    "ServerConfig",
    "create_app",
    "default_data_dir",
    "default_evals_dir",
    "discover_apps",
]


def __getattr__(name: str) -> object:
    # FastAPI is imported only when an application is built: ``agentgauge --help`` must stay fast.
    if name == "create_app":
        from ._app import create_app

        return create_app
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
