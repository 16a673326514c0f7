"""Store URLs: where they come from (``--store``, ``AGENTGAUGE_STORE``) and how they are shown (never with a
password). Nothing here imports SQLAlchemy, so the command line can resolve and print a URL for free."""

from __future__ import annotations

import os
import re
from pathlib import Path
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from .._util.redact import MASK, register_secret

__all__ = ["STORE_ENV", "normalize_url", "redact_url", "resolve_store_url"]

STORE_ENV = "AGENTGAUGE_STORE"
"""Environment variable naming the store when ``--store`` is not given."""

_SECRET_PARAMS = frozenset({"password", "passwd", "pwd", "sslpassword", "api_key", "apikey", "token"})
_USERINFO = re.compile(r"^(?P<scheme>[A-Za-z][A-Za-z0-9+.\-]*://)(?P<user>[^:@/]*):(?P<password>[^@/]*)@")


def resolve_store_url(option: str | None) -> str | None:
    """The store URL of a command: ``option`` when given, else ``$AGENTGAUGE_STORE``, else ``None`` (no store)."""
    value = option if option else os.environ.get(STORE_ENV, "")
    value = value.strip()
    return normalize_url(value) if value else None


def normalize_url(url: str) -> str:
    """``url`` as SQLAlchemy takes it: a plain file path (no ``scheme://``) means a SQLite database file, and
    ``postgresql://`` / ``postgres://`` select the psycopg 3 driver.

    Passwords in the URL are registered as secrets, so no output of the process ever shows them.
    """
    if "://" not in url:
        return f"sqlite:///{Path(url).expanduser().absolute()}"
    for plain in ("postgresql://", "postgres://"):
        if url.startswith(plain):
            url = "postgresql+psycopg://" + url[len(plain) :]
    _register_password(url)
    return url


def _register_password(url: str) -> None:
    found = _USERINFO.match(url)
    if found:
        register_secret(found["password"])
    for key, value in parse_qsl(urlsplit(url).query, keep_blank_values=True):
        if key.lower() in _SECRET_PARAMS:
            register_secret(value)


def redact_url(url: str) -> str:
    """``url`` with any password (in the user part or a ``password=`` query parameter) replaced by ``***``."""
    url = _USERINFO.sub(lambda m: f"{m['scheme']}{m['user']}:{MASK}@", url, count=1)
    parts = urlsplit(url)
    if not parts.query:
        return url
    pairs = parse_qsl(parts.query, keep_blank_values=True)
    if not any(k.lower() in _SECRET_PARAMS for k, _ in pairs):
        return url
    query = urlencode([(k, MASK if k.lower() in _SECRET_PARAMS else v) for k, v in pairs], safe="*/")
    return urlunsplit(parts._replace(query=query))
