"""Agents reached over the network, named by a URL wherever an agent path is accepted.

| spec | protocol |
|---|---|
| ``a2a+http(s)://HOST:PORT[/PATH]`` | A2A through the ``a2a-sdk`` client |
| ``adk+http(s)://HOST:PORT[/PREFIX]/apps/APP`` | ADK's HTTP API (``adk api_server``: ``/run_sse``, ``/run``) |
| ``agui+http(s)://HOST:PORT/PATH`` | AG-UI over Server-Sent Events |
| ``trpcagent+http(s)://HOST:PORT[/BASE_PATH]/APP`` | trpc-agent-go's tRPC-Agent API (``POST .../APP/runs``) |
| ``http(s)://...`` with a config file | a plain JSON service described by the config |

Every scheme shares :class:`RemoteAgentSettings` (headers with ``${ENV}`` expansion, timeouts, the turn limit, the
answer size limit, redirects, retries, TLS) and the HTTP layer of ``_http`` (pooled client, same-origin redirects and
headers, bounded answers, the shared retry policy, masked error messages). :func:`check_remote_agents` is the
pre-flight a command runs before the first case. Nothing heavy (``aiohttp``, ``a2a``) is imported until a remote
agent is loaded.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from ..._util.lazy import lazy_exports
from ...errors import InputError

if TYPE_CHECKING:
    from .._types import Agent
    from ._http import RemoteEndpoint, expand_headers
    from ._preflight import PreflightAgent, check_remote_agents, preflight_remote_agents
    from ._settings import RemoteAgentSettings, parse_header

__all__ = [
    "PreflightAgent",
    "RemoteAgentSettings",
    "RemoteEndpoint",
    "check_remote_agents",
    "expand_headers",
    "is_remote_agent_spec",
    "load_remote_agent",
    "parse_header",
    "preflight_remote_agents",
    "remote_scheme",
]

_REMOTE_SPEC = re.compile(r"^(?:(a2a|adk|agui|trpcagent)\+)?(https?)://[^\s/?#]+", re.IGNORECASE)


def remote_scheme(spec: str) -> str | None:
    """The scheme of a remote agent URL (``a2a+http``, ``adk+https``, ``http``, ...), else ``None``."""
    match = _REMOTE_SPEC.match(spec.strip())
    if match is None:
        return None
    protocol, transport = match[1], match[2].lower()
    return f"{protocol.lower()}+{transport}" if protocol else transport


def is_remote_agent_spec(spec: str) -> bool:
    """True when ``spec`` names a remote agent by URL (any of the schemes above)."""
    return remote_scheme(spec) is not None


def load_remote_agent(spec: str, settings: RemoteAgentSettings | None = None) -> Agent:
    """The agent behind the URL ``spec``, by scheme; :class:`InputError` when the URL or settings are unusable.

    A plain ``http(s)://`` URL needs ``settings.config`` (the JSON description of the service).
    """
    from ._config import apply_config
    from ._settings import RemoteAgentSettings

    scheme = remote_scheme(spec)
    if scheme is None:
        raise InputError(
            "not a remote agent URL (a2a+http://, adk+http://, agui+http://, trpcagent+http:// "
            "or http:// with a config)",
            file=spec,
        )
    # The config file's connection keys (headers, timeouts, ...) apply to every scheme.
    settings, config = apply_config(settings or RemoteAgentSettings())
    protocol = scheme.partition("+")[0] if "+" in scheme else ""
    if protocol == "adk":
        from ._adk_http import AdkHttpAgent

        return AdkHttpAgent(spec, settings)
    if protocol == "a2a":
        from ._a2a import A2aAgent

        return A2aAgent(spec, settings)
    if protocol == "agui":
        from ._agui import AguiAgent

        return AguiAgent(spec, settings)
    if protocol == "trpcagent":
        from ._trpcagent import TrpcAgent

        return TrpcAgent(spec, settings)
    from ._plain import PlainHttpAgent

    return PlainHttpAgent(spec, settings, config)


__getattr__, __dir__ = lazy_exports(
    __name__,
    {
        "RemoteAgentSettings": "._settings",
        "parse_header": "._settings",
        "RemoteEndpoint": "._http",
        "expand_headers": "._http",
        "PreflightAgent": "._preflight",
        "check_remote_agents": "._preflight",
        "preflight_remote_agents": "._preflight",
    },
    __all__,
)
