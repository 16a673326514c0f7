"""Which names a request may give for this server (``Host``, ``Origin``): the guard against DNS rebinding.

A page of another site whose name is made to resolve to 127.0.0.1 (DNS rebinding) reaches a loopback server with
its own name in ``Host`` and ``Origin``; comparing one with the other proves nothing. Both are therefore checked
against a fixed list of names: loopback names and addresses, the address the server binds and the names given
with ``--allowed-host``.
"""

from __future__ import annotations

import ipaddress
from urllib.parse import urlsplit

__all__ = ["HostAllowList", "bare_host", "is_loopback_name"]

_LOOPBACK_NAMES = frozenset({"localhost"})
_ANY = "*"


def bare_host(authority: str) -> str | None:
    """The host of a ``Host`` header value (``name``, ``name:port``, ``[v6]``, ``[v6]:port``), lower-case and
    without a trailing root dot; ``None`` when the value is malformed, so ``127.0.0.1:8000.evil.example`` never
    reads as loopback."""
    text = authority.strip()
    if text.startswith("["):
        inside, bracket, rest = text[1:].partition("]")
        if not bracket or (rest and not (rest.startswith(":") and rest[1:].isdigit())):
            return None
        host = inside
    elif text.count(":") == 1:
        host, _, port = text.partition(":")
        if not port.isdigit():
            return None
    elif ":" in text:
        host = text  # a bare IPv6 address, as a --host or --allowed-host value may be written
    else:
        host = text
    host = host.lower().rstrip(".")
    if not host or any(c in host for c in " ,/\\@\t\r\n"):
        return None
    return host


def is_loopback_name(host: str) -> bool:
    """Whether a bare host (see :func:`bare_host`) is ``localhost`` or a loopback address (127.0.0.0/8, ::1)."""
    if host in _LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(host.split("%")[0]).is_loopback
    except ValueError:
        return False


class HostAllowList:
    """The names this server answers to: loopback names and addresses, ``bind_host`` and ``extra`` (each a name or
    address, a port is ignored; ``"*"`` allows every name)."""

    def __init__(self, bind_host: str | None, extra: list[str] | None = None) -> None:
        names: set[str] = set()
        self.any = False
        for value in [bind_host or "", *(extra or [])]:
            if value.strip() == _ANY:
                self.any = True
                continue
            host = bare_host(value)
            if host:
                names.add(host)
        self.names = frozenset(names)

    def allows(self, host: str | None) -> bool:
        """Whether a bare host may be served."""
        if self.any:
            return True
        return host is not None and (is_loopback_name(host) or host in self.names)

    def refusal(self, headers: list[tuple[bytes, bytes]]) -> str | None:
        """Why a request with these headers is refused (one line), ``None`` when its ``Host`` is allowed.

        A request without ``Host`` (HTTP/1.0, not a browser) passes: rebinding needs a browser, which always sends
        it. Several ``Host`` headers, a list in one, or an empty or malformed one are refused (even with ``"*"``):
        ``Host`` is a single name."""
        values = [v for n, v in headers if n.lower() == b"host"]
        if not values:
            return None
        if len(values) > 1:
            return "several Host headers: refused"
        text = values[0].decode("latin-1")
        host = bare_host(text)
        if host is None:  # empty or malformed: no name to serve, even when every name is allowed
            shown = text.strip()[:100].encode("unicode_escape").decode("ascii")
            return f"Host header {shown!r} names no host: refused"
        if self.allows(host):
            return None
        shown = (host or text.strip())[:100].encode("unicode_escape").decode("ascii")
        return (
            f"host {shown!r} is not allowed: this server answers to localhost, loopback addresses and the names "
            "given with --allowed-host"
        )

    def origin_allowed(self, origin: str, request_host: str | None) -> bool:
        """Whether an ``Origin`` (``scheme://host[:port]``) names an allowed host over http or https (any port).
        ``null`` (a sandboxed frame, a file) and anything unparsable are not allowed. With ``"*"`` (the names are
        checked by a proxy in front) an origin must still be a listed name or the request's own host."""
        try:
            parts = urlsplit(origin)
        except ValueError:
            return False
        if parts.scheme not in ("http", "https") or parts.path or parts.query or parts.username is not None:
            return False
        host = bare_host(parts.netloc)
        if host is None:
            return False
        if is_loopback_name(host) or host in self.names:
            return True
        return self.any and request_host is not None and host == bare_host(request_host)
