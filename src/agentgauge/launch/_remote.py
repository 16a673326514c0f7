"""How a request reaches its remote agents (``--agent-header``, ``--agent-config``, ``--agent-timeout``,
``--agent-max-response-mb``, ``--agent-follow-redirects``; see docs/agents.md)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pragma: no cover
    from ..agents.remote import RemoteAgentSettings
    from ._options import RemoteOptions

__all__ = ["REMOTE_OPTIONS", "remote_settings"]

REMOTE_OPTIONS = ("agent_header", "agent_config", "agent_timeout", "agent_max_response_mb", "agent_follow_redirects")
"""The remote-agent options as messages name them (spelled by the caller's surface)."""


def remote_settings(options: RemoteOptions | None, prefix: str = "--agent-") -> RemoteAgentSettings | None:
    """The settings of every remote agent of a run (``None`` without options); :class:`InputError` naming the option
    (``prefix`` + ``timeout``, ...) for a malformed header, a limit out of range or an unreadable config file.
    ``${ENV}`` in header values is expanded when an agent is loaded, so a local agent never needs the variables."""
    if options is None or not options.given:
        return None
    from ..agents.remote import RemoteAgentSettings

    return RemoteAgentSettings.from_options(
        headers=options.headers,
        config=options.config,
        turn_timeout=options.turn_timeout,
        max_response_mb=options.max_response_mb,
        follow_redirects=options.follow_redirects,
        prefix=prefix,
    )
