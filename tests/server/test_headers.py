"""Security headers: every response sends nosniff, no-referrer, a frame policy and a Content-Security-Policy; the UI,
the API reference and the HTML report send policies that allow no inline script without a per-response nonce."""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser

import httpx

from agentgauge.server import ServerConfig, create_app


def _client(config: ServerConfig) -> httpx.AsyncClient:
    transport = httpx.ASGITransport(app=create_app(config), client=("127.0.0.1", 40000))
    return httpx.AsyncClient(transport=transport, base_url="http://localhost:8000")


def _directives(policy: str) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for part in policy.split(";"):
        words = part.split()
        if words:
            out[words[0]] = words[1:]
    return out


class _Inline(HTMLParser):
    """Collects inline scripts and styles (with their nonce), event-handler and style attributes."""

    def __init__(self) -> None:
        super().__init__()
        self.blocks: list[tuple[str, str | None]] = []
        self.attributes: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        named = dict(attrs)
        if tag in ("script", "style") and not named.get("src"):
            self.blocks.append((tag, named.get("nonce")))
        self.attributes += [n for n, _ in attrs if n.startswith("on") or n == "style"]


def _inline(html: str) -> _Inline:
    parser = _Inline()
    parser.feed(html)
    return parser


async def test_every_response_sends_the_security_headers(config: ServerConfig) -> None:
    async with _client(config) as client:
        for path, host in (("/list-apps", "localhost"), ("/static/app.js", "localhost"), ("/nope", "localhost"),
                           ("/openapi.json", "localhost"), ("/list-apps", "evil.example")):  # fmt: skip
            response = await client.get(path, headers={"Host": host})
            assert response.headers["x-content-type-options"] == "nosniff", path
            assert response.headers["referrer-policy"] == "no-referrer", path
            assert response.headers["x-frame-options"] == "DENY", path
            policy = _directives(response.headers["content-security-policy"])
            assert policy["default-src"] == ["'none'"] and policy["frame-ancestors"] == ["'none'"], path
    config.token = "t"
    async with _client(config) as client:
        assert (await client.get("/list-apps")).headers["x-frame-options"] == "DENY"  # a 401 too


async def test_ui_page_policy_and_no_inline_code(config: ServerConfig) -> None:
    async with _client(config) as client:
        page = await client.get("/")
    policy = _directives(page.headers["content-security-policy"])
    assert policy["script-src"] == ["'self'"] and policy["style-src"] == ["'self'"]
    assert policy["frame-ancestors"] == ["'none'"] and policy["object-src"] == ["'none'"]
    assert "'unsafe-inline'" not in page.headers["content-security-policy"]
    assert page.headers["x-frame-options"] == "DENY" and page.headers["cache-control"] == "no-store"
    found = _inline(page.text)
    assert found.blocks == [] and found.attributes == []  # scripts and styles come from /static files only


async def test_api_docs_style_carries_a_fresh_nonce(config: ServerConfig) -> None:
    async with _client(config) as client:
        first, second = await client.get("/docs"), await client.get("/docs")
    nonces = []
    for page in (first, second):
        policy = _directives(page.headers["content-security-policy"])
        (source,) = policy["style-src"]
        nonce = source.removeprefix("'nonce-").removesuffix("'")
        assert "script-src" not in policy and policy["default-src"] == ["'none'"]
        assert _inline(page.text).blocks == [("style", nonce)]
        nonces.append(nonce)
    assert nonces[0] != nonces[1] and len(nonces[0]) >= 16


async def finished_run(client: httpx.AsyncClient, app: str, set_id: str, body: dict[str, object]) -> str:
    """Start a run through the API, follow its events to the end; its result id."""
    started = await client.post(f"/api/apps/{app}/eval-sets/{set_id}/runs", json=body)
    assert started.status_code == 202, started.text
    events = await client.get(f"/api/runs/{started.json()['runId']}/events")
    last = json.loads([line for line in events.text.splitlines() if line.startswith("data: ")][-1][6:])
    assert last["event"] == "run_finished", last
    return str(last["resultId"])


async def test_report_allows_exactly_its_own_inline_script(config: ServerConfig) -> None:
    async with _client(config) as client:
        result_id = await finished_run(client, "calculator", "calculator", {"caseIds": ["calc_add"]})
        page = await client.get(f"/api/apps/calculator/results/{result_id}/report.html")
    assert page.status_code == 200, page.text
    header = page.headers["content-security-policy"]
    policy = _directives(header)
    (script,) = policy["script-src"]
    assert script == policy["style-src"][0] and re.fullmatch(r"'nonce-[A-Za-z0-9_-]{16,}'", script)
    assert "'unsafe-inline'" not in header and "'unsafe-eval'" not in header
    assert policy["frame-ancestors"] == ["'self'"] and page.headers["x-frame-options"] == "SAMEORIGIN"
    assert policy["sandbox"] == ["allow-scripts"]  # an opaque origin: its script cannot call the API as the user
    nonce = script[len("'nonce-") : -1]
    assert _inline(page.text).blocks == [("style", nonce), ("script", nonce)]
    assert _inline(page.text).attributes == []


async def test_adk_web_gets_a_framing_policy(config: ServerConfig) -> None:
    config.adk_web = True
    async with _client(config) as client:
        page = await client.get("/dev-ui/")
    assert page.status_code == 200
    policy = _directives(page.headers["content-security-policy"])
    assert policy["frame-ancestors"] == ["'none'"] and policy["object-src"] == ["'none'"]
    assert page.headers["x-frame-options"] == "DENY" and page.headers["x-content-type-options"] == "nosniff"


def test_nonce_marks_only_the_pages_own_blocks() -> None:
    from agentgauge.server._headers import nonce_inline

    page = "<head><style>a{}</style></head><body><p><script>injected()</script></p><script>own()</script></body>"
    marked = nonce_inline(page, "N")
    assert marked.count('nonce="N"') == 2
    assert '<style nonce="N">a{}' in marked and '<script nonce="N">own()' in marked
    assert "<script>injected()" in marked
