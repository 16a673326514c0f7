"""The ``httpx`` client that a2a-sdk's client needs, sending through the endpoint's ``aiohttp`` session.

httpx's own transport (httpcore) matches every waiting request against every pooled connection whenever a request
starts or ends: at ``--parallelism 200`` that is seconds of CPU for a few hundred requests. Through aiohttp (the
``httpx-aiohttp`` transport, which also maps aiohttp's errors to httpx's) the same 418 A2A turns cost a2a-sdk's
client 0.67 s of CPU instead of 5.2 s, and A2A shares the connection pool of the other requests.
"""

from __future__ import annotations

from collections.abc import Mapping

import aiohttp
import httpx

from ._settings import RemoteAgentSettings

__all__ = ["bridged_client"]


def bridged_client(
    session: aiohttp.ClientSession, settings: RemoteAgentSettings, headers: Mapping[str, str]
) -> httpx.AsyncClient:
    """An ``httpx`` client with ``settings``' timeouts and ``headers`` on every request, sent by ``session``."""
    try:
        from httpx_aiohttp import AiohttpTransport
    except ImportError:
        from ...errors import InputError

        raise InputError("an a2a+http agent needs httpx-aiohttp: pip install 'agentgauge[remote]'") from None

    timeout = httpx.Timeout(
        connect=settings.connect_timeout, read=settings.read_timeout, write=settings.read_timeout, pool=None
    )
    # TLS is the session's (its connector was built with settings.verify_tls); the transport's own TLS context is
    # used only without a session, and verify=False spares loading the CA bundle for it (~40 ms).
    transport = AiohttpTransport(client=session, verify=False)
    return httpx.AsyncClient(headers=dict(headers), timeout=timeout, transport=transport, follow_redirects=True)
