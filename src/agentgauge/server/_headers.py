"""Security headers: the Content-Security-Policy of each kind of page, and per-response nonces for inline blocks.

Every response gets ``X-Content-Type-Options: nosniff``, ``Referrer-Policy: no-referrer``, ``X-Frame-Options`` and a
Content-Security-Policy (see :class:`~agentgauge.server.SafetyMiddleware`); a route that serves a page sets its own
policy with :func:`page_headers`, the others get :data:`DEFAULT_POLICY`.
"""

from __future__ import annotations

import secrets

__all__ = [
    "ADK_WEB_POLICY",
    "DEFAULT_POLICY",
    "UI_POLICY",
    "docs_policy",
    "new_nonce",
    "nonce_inline",
    "page_headers",
    "report_policy",
]

DEFAULT_POLICY = "default-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'"
"""Responses that are not pages (JSON, events, files): nothing may run, load or frame them."""

UI_POLICY = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
    "frame-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
)
"""The web UI: its own script and style files only, no inline script; never framed."""

ADK_WEB_POLICY = "object-src 'none'; base-uri 'self'; frame-ancestors 'none'"
"""google-adk's bundled ADK Web (``--adk-web``), served unchanged: its page inlines styles and event handlers and
loads Google fonts, so only framing, plugins and ``<base>`` are restricted (ADK's own server sends no policy)."""


def new_nonce() -> str:
    """A fresh nonce for one response (128 random bits, URL-safe base64)."""
    return secrets.token_urlsafe(16)


def report_policy(nonce: str) -> str:
    """The HTML report: its own inline script and style (carrying ``nonce``) and nothing else. It is framed only by
    this server's UI, and sandboxed: its script runs in an opaque origin, so it cannot call the API as the user."""
    return (
        f"default-src 'none'; script-src 'nonce-{nonce}'; style-src 'nonce-{nonce}'; img-src data:; "
        "base-uri 'none'; form-action 'none'; frame-ancestors 'self'; sandbox allow-scripts"
    )


def docs_policy(nonce: str) -> str:
    """The API reference at ``/docs``: its inline style (carrying ``nonce``), no script at all."""
    return f"default-src 'none'; style-src 'nonce-{nonce}'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"


def nonce_inline(html: str, nonce: str) -> str:
    """``html`` with ``nonce`` on the page's own inline blocks: the first ``<style>`` (in the head) and the last
    ``<script>`` (at the end). User text in a page is HTML-escaped, so these tags are the template's; any other
    inline block, were one ever injected, stays without the nonce and is blocked."""
    style = html.find("<style>")
    if style >= 0:
        html = f'{html[:style]}<style nonce="{nonce}">{html[style + len("<style>") :]}'
    script = html.rfind("<script>")
    if script >= 0:
        html = f'{html[:script]}<script nonce="{nonce}">{html[script + len("<script>") :]}'
    return html


def page_headers(policy: str, *, framed_by_self: bool = False) -> dict[str, str]:
    """The headers a page's response sets: its policy and ``X-Frame-Options`` (``SAMEORIGIN`` for a page the UI
    shows in a frame, ``DENY`` otherwise); ``no-store`` so a page and its nonce are never reused."""
    return {
        "Content-Security-Policy": policy,
        "X-Frame-Options": "SAMEORIGIN" if framed_by_self else "DENY",
        "Cache-Control": "no-store",
    }
