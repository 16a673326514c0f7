"""How agentgauge talks to a remote agent: headers, timeouts, retries, TLS and the plain-HTTP config file."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from ...errors import InputError

__all__ = ["RemoteAgentSettings", "parse_header"]

# RFC 9110 token characters: what a header name may be made of.
_HEADER_NAME = re.compile(r"^[!#$%&'*+.^_`|~0-9A-Za-z-]+$")


def parse_header(text: str) -> tuple[str, str]:
    """``'Name: value'`` (as given to ``--agent-header``) as ``(name, value)``; :class:`InputError` when malformed."""
    name, colon, value = text.partition(":")
    name = name.strip()
    if not colon or not _HEADER_NAME.match(name):
        raise InputError(f"--agent-header expects 'Name: value', got {text.split(':')[0]!r}")
    return name, value.strip()


class RemoteAgentSettings(BaseModel):
    """Connection settings shared by every remote agent scheme (``a2a+http``, ``adk+http``, ``agui+http``, ``http``).

    - ``headers``: sent with every request; values may hold ``${ENV}`` references, expanded when the agent is
      loaded (a missing variable is an input error) and masked in every output.
    - ``connect_timeout`` / ``read_timeout``: seconds to open a connection / to wait for the next bytes of an
      answer (a streamed answer may take longer in all, as long as it keeps sending).
    - ``retries``: extra attempts after a connection error, HTTP 429 or 5xx (never after another 4xx, nor after
      a read timeout: the agent may already have acted); ``backoff``: the first wait, doubled at each attempt
      (a server's ``Retry-After`` is honoured, at most 30 s).
    - ``verify_tls``: check the server's certificate for ``https`` (on by default).
    - ``config``: the JSON file describing a plain ``http(s)://`` agent service (see docs/agents.md).
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    headers: dict[str, str] = Field(default_factory=dict)
    connect_timeout: float = Field(default=10.0, gt=0, le=3600)
    read_timeout: float = Field(default=300.0, gt=0, le=86400)
    retries: int = Field(default=2, ge=0, le=10)
    backoff: float = Field(default=0.5, ge=0, le=60)
    verify_tls: bool = True
    config: Path | None = None

    @field_validator("headers")
    @classmethod
    def _header_names(cls, headers: dict[str, str]) -> dict[str, str]:
        for name, value in headers.items():
            if not _HEADER_NAME.match(name):
                raise ValueError(f"{name!r} is not a valid header name")
            if "\n" in value or "\r" in value:
                raise ValueError(f"the value of header {name!r} holds a line break")
        return headers

    @classmethod
    def build(cls, *, source: str | None = None, **values: Any) -> RemoteAgentSettings:
        """Validated settings from ``values``; :class:`InputError` with one message per bad field otherwise.

        ``source`` names where the values come from (a file, ``command line``) in the message.
        """
        try:
            return cls(**values)
        except ValidationError as exc:
            problems = "; ".join(
                f"{'.'.join(str(p) for p in error['loc']) or 'settings'}: {error['msg']}" for error in exc.errors()
            )
            raise InputError(f"invalid remote agent settings: {problems}", file=source) from None
