"""Chat-completion requests as the ``openai`` SDK sends them, without importing the SDK.

``import openai`` loads every type of the whole API (~0.5 s, more than the rest of ``agentgauge eval``'s start-up),
and the SDK spends a few milliseconds of CPU per request building and validating it; a judge needs one POST. So
:class:`ChatTransport` posts with the SDK's own HTTP library (``httpx2`` for openai >= 3, ``httpx`` before it) and
keeps what the SDK does for such a call with ``max_retries=0``:

- the URL: the base URL (``None``: ``$OPENAI_BASE_URL``, else ``https://api.openai.com/v1``) with a trailing slash,
  then ``chat/completions``;
- the headers: ``Authorization: Bearer <key>``, JSON ``Accept``/``Content-Type``, ``OpenAI-Organization`` and
  ``OpenAI-Project`` from ``$OPENAI_ORG_ID``/``$OPENAI_PROJECT_ID``, and the ``Name: value`` lines of
  ``$OPENAI_CUSTOM_HEADERS`` over all of these (see :func:`request_headers`);
- the body: the request parameters with ``extra_body`` merged over them, as compact UTF-8 JSON;
- one connection pool per transport (the SDK's limits: 1000 connections, 100 kept alive), redirects followed,
  proxies and certificates from the environment as the HTTP library reads them; a per-request timeout for
  connect, read, write and pool alike;
- the errors: :class:`StatusError` for any non-2xx answer, worded as the SDK words it (``Error code: 429 - <the
  body's error message>``); :class:`RequestTimeout` for a timeout; :class:`ConnectionFailed` (``Connection error.``)
  for any other transport failure.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import ssl
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import anyio

try:
    import httpx2 as httpx
except ImportError:  # pragma: no cover - openai < 3 brings plain httpx
    import httpx  # type: ignore[no-redef]

from .._util.version import VERSION

__all__ = ["DEFAULT_BASE_URL", "ChatTransport", "ConnectionFailed", "RawResponse", "RequestTimeout", "StatusError"]

DEFAULT_BASE_URL = "https://api.openai.com/v1"
_USER_AGENT = f"agentgauge/{VERSION}"
_LIMITS = httpx.Limits(max_connections=1000, max_keepalive_connections=100)
# What the SDK counts as a connection error (besides httpx's own): TLS failures anyio does not map.
_TRANSPORT_ERRORS: tuple[type[BaseException], ...] = (httpx.RequestError, ssl.SSLError, anyio.EndOfStream)


class StatusError(Exception):
    """The endpoint answered with a non-2xx status. ``message`` is the SDK's wording; ``headers`` the answer's."""

    def __init__(self, message: str, status: int, headers: Mapping[str, str]) -> None:
        super().__init__(message)
        self.message = message
        self.status = status
        self.headers = headers


class RequestTimeout(Exception):
    """The request did not complete within its timeout (connecting, sending, waiting or reading)."""


class ConnectionFailed(Exception):
    """The request failed below HTTP (refused, reset, DNS, TLS); the message is the SDK's ``Connection error.``."""


@dataclass(frozen=True, slots=True)
class RawResponse:
    """A 2xx answer: status, ``content-type`` header and the (decoded) body."""

    status: int
    content_type: str
    body: bytes


def _status_message(status: int, text: str) -> str:
    """``Error code: <status>``, with `` - <message>`` when the body is JSON with an error message (as the SDK)."""
    message = f"Error code: {status}"
    try:
        data = json.loads(text.strip())
    except ValueError:
        return message
    error = data.get("error", data) if isinstance(data, Mapping) else None
    detail = error.get("message") if isinstance(error, Mapping) else None
    if isinstance(detail, str) and detail:
        message += f" - {detail}"
    return message


def _json_default(value: object) -> object:
    if isinstance(value, dt.datetime | dt.date):
        return value.isoformat()
    raise TypeError(f"Object of type {type(value).__name__} is not JSON serializable")


def encode_body(params: Mapping[str, Any]) -> bytes:
    """The JSON body of ``params``: ``extra_body`` merged over the other parameters (its keys win)."""
    body = {k: v for k, v in params.items() if k != "extra_body"}
    extra = params.get("extra_body")
    if isinstance(extra, Mapping):
        body.update(extra)
    return json.dumps(body, default=_json_default, ensure_ascii=False, separators=(",", ":"), allow_nan=False).encode()


def request_headers(api_key: str, environ: Mapping[str, str]) -> dict[str, str]:
    """The headers of every request, merged as the SDK merges them: JSON ``Accept``/``Content-Type``, the user
    agent, ``OpenAI-Organization``/``OpenAI-Project`` from ``$OPENAI_ORG_ID``/``$OPENAI_PROJECT_ID``, the bearer key,
    then the ``Name: value`` lines of ``$OPENAI_CUSTOM_HEADERS`` over all of them (names compared case-blind)."""
    headers = {"Accept": "application/json", "Content-Type": "application/json", "User-Agent": _USER_AGENT}
    organization, project = environ.get("OPENAI_ORG_ID"), environ.get("OPENAI_PROJECT_ID")
    if organization is not None:
        headers["OpenAI-Organization"] = organization
    if project is not None:
        headers["OpenAI-Project"] = project
    headers["Authorization"] = f"Bearer {api_key}"
    for line in environ.get("OPENAI_CUSTOM_HEADERS", "").split("\n"):
        name, colon, value = line.partition(":")
        if colon:
            for known in [k for k in headers if k.lower() == name.strip().lower()]:
                del headers[known]
            headers[name.strip()] = value.strip()
    return headers


def chat_url(base_url: str | None, environ: Mapping[str, str]) -> str:
    """``<base URL>/chat/completions`` (``None``: ``$OPENAI_BASE_URL``, else the OpenAI API)."""
    base = base_url if base_url is not None else environ.get("OPENAI_BASE_URL") or DEFAULT_BASE_URL
    path, sep, query = base.partition("?")
    if not path.endswith("/"):
        path += "/"
    return f"{path}chat/completions{sep}{query}"


class ChatTransport:
    """POSTs chat-completion requests to one endpoint over one connection pool (bound to the current event loop).

    Build it on the loop that uses it: the pool's connections belong to that loop.
    """

    def __init__(self, base_url: str | None, api_key: str, *, environ: Mapping[str, str] | None = None) -> None:
        env = os.environ if environ is None else environ
        self.url = chat_url(base_url, env)
        self.headers = request_headers(api_key, env)
        self._client = httpx.AsyncClient(limits=_LIMITS, follow_redirects=True)

    async def post(self, params: Mapping[str, Any], timeout: float) -> RawResponse:
        """Send ``params`` (see :func:`encode_body`); the 2xx answer, else :class:`StatusError`,
        :class:`RequestTimeout` or :class:`ConnectionFailed`."""
        content = encode_body(params)
        try:
            response = await self._client.post(
                self.url, content=content, headers=self.headers, timeout=httpx.Timeout(timeout)
            )
        except httpx.TimeoutException as exc:
            raise RequestTimeout("Request timed out.") from exc
        except _TRANSPORT_ERRORS as exc:
            raise ConnectionFailed("Connection error.") from exc
        status = response.status_code
        if not response.is_success:
            raise StatusError(_status_message(status, response.text), status, response.headers)
        return RawResponse(status, response.headers.get("content-type", ""), response.content)

    async def aclose(self) -> None:
        """Close the connection pool."""
        await self._client.aclose()
