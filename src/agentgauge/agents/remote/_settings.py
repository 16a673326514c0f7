"""How agentgauge talks to a remote agent: headers, timeouts, retries, TLS and the plain-HTTP config file."""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from ...errors import InputError

if TYPE_CHECKING:
    from ..._util.retry import RetryPolicy

__all__ = ["RemoteAgentSettings", "parse_header"]

# RFC 9110 token characters: what a header name may be made of.
_HEADER_NAME = re.compile(r"^[!#$%&'*+.^_`|~0-9A-Za-z-]+$")
_MAX_WAIT = 30.0  # seconds: a server asking for a longer wait gets 30 s, so one agent cannot stall the run


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
      answer.
    - ``turn_timeout``: seconds one turn may take in all (default 300): connecting, headers, body, event stream,
      retries and their waits; a server that keeps sending, or sends one byte at a time, fails the turn then.
    - ``max_response_mb``: the largest answer read, in MB of 10^6 bytes (default 32): a body, or everything one
      turn's event stream sends; beyond it the turn fails naming the limit, having held at most that much.
    - ``follow_redirects``: follow redirects and agent cards to another origin (scheme, host, port), then
      without the configured headers; off by default, when they fail the turn with one line. Redirects within
      the agent's origin are always followed.
    - ``retries``: extra attempts after a connection error, HTTP 429 or a transient 5xx (never after another
      4xx, nor once the agent started answering: it may already have acted); ``backoff``: the first wait, doubled
      at each attempt with ±25 % jitter (a server's ``Retry-After`` is honoured, at most 30 s). The policy is the
      one of judge calls (:class:`agentgauge._util.retry.RetryPolicy`).
    - ``verify_tls``: check the server's certificate for ``https`` (on by default).
    - ``config``: the JSON file describing a plain ``http(s)://`` agent service (see docs/agents.md).
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    headers: dict[str, str] = Field(default_factory=dict)
    connect_timeout: float = Field(default=10.0, gt=0, le=3600)
    read_timeout: float = Field(default=300.0, gt=0, le=86400)
    turn_timeout: float = Field(default=300.0, gt=0, le=86400)
    max_response_mb: float = Field(default=32.0, gt=0, le=65536)
    follow_redirects: bool = False
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

    @property
    def max_response_bytes(self) -> int:
        """``max_response_mb`` in bytes."""
        return int(self.max_response_mb * 1_000_000)

    def retry_policy(self) -> RetryPolicy:
        """The shared retry policy with these settings' attempts and first wait, bounded by the turn's time."""
        from ..._util.retry import RetryPolicy

        return RetryPolicy(
            max_attempts=self.retries + 1,
            initial_delay=self.backoff,
            max_delay=_MAX_WAIT,
            max_retry_after=_MAX_WAIT,
            total_budget=self.turn_timeout,
            request_timeout=self.turn_timeout,
        )

    @classmethod
    def from_options(
        cls,
        *,
        headers: Sequence[str] = (),
        config: Path | None = None,
        turn_timeout: float | None = None,
        max_response_mb: float | None = None,
        follow_redirects: bool = False,
        prefix: str = "--agent-",
    ) -> RemoteAgentSettings | None:
        """The settings of command-line options (``eval --agent-header``, ..., or the pytest plugin's
        ``--agentgauge-agent-*``, named by ``prefix``); ``None`` when none was given. Options given win over the
        config file. :class:`InputError` naming the option for a malformed header, a limit out of range or a
        missing config file."""
        values: dict[str, Any] = {}
        for name, value, highest in (("timeout", turn_timeout, 86400.0), ("max-response-mb", max_response_mb, 65536.0)):
            if value is None:
                continue
            if not 0 < value <= highest:  # written so that nan is refused too
                raise InputError(f"{prefix}{name} must be a positive number of at most {highest:g}, got {value:g}")
            values["turn_timeout" if name == "timeout" else "max_response_mb"] = value
        if follow_redirects:
            values["follow_redirects"] = True
        if not headers and config is None and not values:
            return None
        if config is not None and not config.is_file():
            raise InputError("agent config file not found", file=str(config))
        parsed = dict(parse_header(text) for text in headers)
        return cls.build(source="command line", headers=parsed, config=config, **values)

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
