"""Where a remote agent's requests may go, and with which headers: the redirect and origin policy every scheme
shares (the ``aiohttp`` requests of :mod:`._http` and a2a-sdk's ``httpx`` requests of :mod:`._httpx_bridge`).

An origin is a URL's scheme, host and port. Requests to the agent's own origin carry the configured headers;
redirects within it are followed. A request to another origin (a redirect there, or an A2A agent card naming
another URL) is refused with one line, unless ``follow_redirects`` is set: then it is sent without the configured
headers, ``Authorization``, ``Cookie`` and ``Proxy-Authorization``, so credentials never leave the agent's origin.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from urllib.parse import urljoin, urlsplit, urlunsplit

__all__ = ["MAX_REDIRECTS", "OriginPolicy", "OriginRefused", "public_url", "redirect_target", "too_many_redirects"]

MAX_REDIRECTS = 10
"""Redirects followed for one request before it fails (as browsers and HTTP clients bound them)."""

_REDIRECTS = frozenset({301, 302, 303, 307, 308})
_CREDENTIALS = frozenset({"authorization", "cookie", "proxy-authorization"})
_DEFAULT_PORTS = {"http": 80, "https": 443}
_HOW_TO_FOLLOW = "--agent-follow-redirects (followRedirects) sends it there without the configured headers"


class OriginRefused(Exception):
    """A request would leave the agent's origin (or redirects did not end); the message is one line."""


def public_url(url: str) -> str:
    """``url`` as shown in messages: without user name, password, query or fragment (they may hold tokens)."""
    parts = urlsplit(url)
    host = parts.hostname or ""
    if ":" in host:
        host = f"[{host}]"
    netloc = f"{host}:{parts.port}" if parts.port else host
    return urlunsplit((parts.scheme, netloc, parts.path, "", ""))


def _origin(url: str) -> tuple[str, str, int | None]:
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    try:
        port = parts.port or _DEFAULT_PORTS.get(scheme)
    except ValueError:  # a port that is not a number: no origin matches it
        port = -1
    return scheme, (parts.hostname or "").lower(), port


def redirect_target(status: int, location: str | None, url: str, method: str) -> tuple[str, str] | None:
    """``(absolute URL, method)`` of the request a redirect answer asks for; ``None`` when the answer is not a
    redirect. 303, and 301/302 after a ``POST``, continue with a ``GET`` without body (as every HTTP client does);
    307 and 308 repeat the request as it was."""
    if status not in _REDIRECTS or not location:
        return None
    target = urljoin(url, location.strip())
    if status == 303 or (status in (301, 302) and method.upper() == "POST"):
        return target, "GET"
    return target, method


class OriginPolicy:
    """The policy of one endpoint: ``home`` is the agent's URL, ``follow`` whether other origins may be reached,
    ``configured`` the names of the headers that stay home (besides the credential headers)."""

    __slots__ = ("_home", "_private", "follow")

    def __init__(self, home: str, *, follow: bool, configured: Iterable[str] = ()) -> None:
        self._home = _origin(home)
        self.follow = follow
        self._private = _CREDENTIALS | {name.lower() for name in configured}

    @property
    def home(self) -> str:
        """The agent's origin as ``scheme://host:port``."""
        scheme, host, port = self._home
        host = f"[{host}]" if ":" in host else host
        return f"{scheme}://{host}:{port}" if port is not None else f"{scheme}://{host}"

    def is_home(self, url: str) -> bool:
        """Whether ``url`` is on the agent's origin."""
        return _origin(url) == self._home

    def check(self, url: str, *, why: str = "redirected to") -> bool:
        """``True`` for the agent's origin, ``False`` for another one that may be reached (without the private
        headers); :class:`OriginRefused` naming both origins otherwise. ``why`` says how ``url`` came up."""
        if self.is_home(url):
            return True
        if not self.follow:
            raise OriginRefused(
                f"{why} {public_url(url)}, another origin than the agent's {self.home}: refused ({_HOW_TO_FOLLOW})"
            )
        return False

    def strip(self, headers: Mapping[str, str]) -> dict[str, str]:
        """``headers`` without the configured and credential headers (for a request to another origin)."""
        return {name: value for name, value in headers.items() if name.lower() not in self._private}

    def headers_for(self, url: str, headers: Mapping[str, str], *, why: str = "redirected to") -> Mapping[str, str]:
        """The headers a request to ``url`` may carry (:meth:`check` decides, or refuses)."""
        return headers if self.check(url, why=why) else self.strip(headers)


def too_many_redirects(url: str) -> OriginRefused:
    """The error of a request still redirected after :data:`MAX_REDIRECTS` hops."""
    return OriginRefused(f"still redirected after {MAX_REDIRECTS} redirects (last to {public_url(url)})")
