"""``--agent-header`` and ``--agent-config``: how the command line reaches a remote agent (see docs/agents.md)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pragma: no cover
    from ..agents.remote import RemoteAgentSettings

__all__ = ["RemoteOptions", "remote_settings"]


@dataclass(frozen=True)
class RemoteOptions:
    """What the command line said about remote agents: headers as given (``'Name: value'``) and the config file."""

    headers: tuple[str, ...] = ()
    config: Path | None = None

    @property
    def given(self) -> bool:
        """Whether any remote-agent option was given."""
        return bool(self.headers) or self.config is not None


def remote_settings(options: RemoteOptions | None) -> RemoteAgentSettings | None:
    """The settings of every remote agent of the command (``None`` without options); :class:`InputError` for a
    malformed header or an unreadable config file. ``${ENV}`` in header values is expanded when an agent is
    loaded, so a local agent never needs the variables."""
    if options is None or not options.given:
        return None
    from ..agents.remote import RemoteAgentSettings, parse_header
    from ..errors import InputError

    headers = dict(parse_header(text) for text in options.headers)
    if options.config is not None and not options.config.is_file():
        raise InputError("agent config file not found", file=str(options.config))
    return RemoteAgentSettings.build(source="--agent-header", headers=headers, config=options.config)
