"""``/docs``: the HTTP API reference rendered on the server from the OpenAPI schema.

FastAPI's own Swagger and ReDoc pages load their scripts from a CDN, so they stay blank on a machine without
network access; this page is plain HTML with no script at all. The machine-readable schema is ``/openapi.json``.
"""

from __future__ import annotations

from collections import defaultdict
from html import escape
from typing import Any

__all__ = ["api_reference_html"]

_METHODS = ("get", "post", "put", "patch", "delete")

_CSS = """
body{font:14px/1.45 system-ui,sans-serif;margin:0 auto;max-width:1100px;padding:16px 24px;color:#1d1d1f}
h1{font-size:22px;margin:8px 0}h2{font-size:17px;margin:28px 0 8px;border-bottom:1px solid #ddd;padding-bottom:4px}
.op{border:1px solid #e3e3e3;border-radius:6px;margin:8px 0;padding:8px 12px}
.m{display:inline-block;min-width:58px;font:600 12px monospace;text-transform:uppercase;color:#fff;
border-radius:3px;padding:2px 6px;margin-right:8px;text-align:center}
.get{background:#2f7d32}.post{background:#1f5fbf}.put{background:#a86500}.patch{background:#7040a0}
.delete{background:#b3261e}code.p{font:13px monospace}p.d{margin:6px 0 0;white-space:pre-wrap;color:#333}
table{border-collapse:collapse;margin-top:6px}td,th{font-size:13px;text-align:left;padding:2px 10px 2px 0}
th{color:#555;font-weight:600}nav a{margin-right:12px}
"""


def _parameters(operation: dict[str, Any]) -> str:
    rows = [
        "<tr><td><code>{}</code></td><td>{}</td><td>{}</td></tr>".format(
            escape(str(p.get("name", ""))),
            escape(str(p.get("in", ""))),
            "required" if p.get("required") else "optional",
        )
        for p in operation.get("parameters", [])
    ]
    body = operation.get("requestBody")
    if isinstance(body, dict):
        kinds = ", ".join(escape(k) for k in body.get("content", {}))
        need = "required" if body.get("required") else "optional"
        rows.append(f"<tr><td><code>body</code></td><td>{kinds}</td><td>{need}</td></tr>")
    if not rows:
        return ""
    return "<table><tr><th>parameter</th><th>in</th><th></th></tr>" + "".join(rows) + "</table>"


def api_reference_html(schema: dict[str, Any]) -> str:
    """One self-contained page listing every operation of ``schema`` by tag: method, path, summary, description
    (the route's docstring) and parameters."""
    by_tag: dict[str, list[str]] = defaultdict(list)
    for path, item in schema.get("paths", {}).items():
        for method in _METHODS:
            operation = item.get(method)
            if not isinstance(operation, dict):
                continue
            tag = (operation.get("tags") or ["other"])[0]
            description = operation.get("description") or ""
            by_tag[str(tag)].append(
                f'<div class="op"><span class="m {method}">{method}</span><code class="p">{escape(path)}</code>'
                f" {escape(str(operation.get('summary', '')))}"
                + (f'<p class="d">{escape(description)}</p>' if description else "")
                + _parameters(operation)
                + "</div>"
            )
    info = schema.get("info", {})
    title = escape(f"{info.get('title', 'API')} {info.get('version', '')}".strip())
    nav = " ".join(f'<a href="#{escape(tag)}">{escape(tag)}</a>' for tag in sorted(by_tag))
    sections = "".join(
        f'<h2 id="{escape(tag)}">{escape(tag)} ({len(ops)})</h2>' + "".join(ops) for tag, ops in sorted(by_tag.items())
    )
    return (
        f'<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>{title} API</title>'
        f"<style>{_CSS}</style></head><body><h1>{title} HTTP API</h1>"
        f"<p>{escape(str(info.get('description', '')))} Machine-readable schema: "
        f'<a href="/openapi.json">/openapi.json</a>.</p><nav>{nav}</nav>{sections}</body></html>'
    )
