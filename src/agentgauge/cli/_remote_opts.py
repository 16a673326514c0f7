"""``--agent-header``, ``--agent-config``, ``--agent-timeout``, ``--agent-max-response-mb`` and
``--agent-follow-redirects``: how the command line reaches a remote agent (see docs/agents.md)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pragma: no cover
    from ..agents.remote import RemoteAgentSettings

__all__ = ["REMOTE_OPTION_NAMES", "RemoteOptions", "remote_settings"]

REMOTE_OPTION_NAMES = (
    "--agent-header, --agent-config, --agent-timeout, --agent-max-response-mb and --agent-follow-redirects"
)
"""The remote-agent options, as messages name them."""


@dataclass(frozen=True)
class RemoteOptions:
    """What the command line said about remote agents: headers as given (``'Name: value'``), the config file,
    the turn limit, the answer size limit and whether redirects to other origins are followed (``None``/``False``:
    not given, so the config file or the default decides)."""

    headers: tuple[str, ...] = ()
    config: Path | None = None
    turn_timeout: float | None = None
    max_response_mb: float | None = None
    follow_redirects: bool = False

    @property
    def given(self) -> bool:
        """Whether any remote-agent option was given."""
        return bool(self.headers) or self.config is not None or self.follow_redirects or self.limits_given

    @property
    def limits_given(self) -> bool:
        """Whether ``--agent-timeout`` or ``--agent-max-response-mb`` was given."""
        return self.turn_timeout is not None or self.max_response_mb is not None


def remote_settings(options: RemoteOptions | None) -> RemoteAgentSettings | None:
    """The settings of every remote agent of the command (``None`` without options); :class:`InputError` for a
    malformed header, a limit out of range or an unreadable config file. ``${ENV}`` in header values is expanded
    when an agent is loaded, so a local agent never needs the variables."""
    if options is None or not options.given:
        return None
    from ..agents.remote import RemoteAgentSettings

    return RemoteAgentSettings.from_options(
        headers=options.headers,
        config=options.config,
        turn_timeout=options.turn_timeout,
        max_response_mb=options.max_response_mb,
        follow_redirects=options.follow_redirects,
    )
