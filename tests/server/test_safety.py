"""Request guards: bearer token, loopback-only writes, path segments, upload size, CORS."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest

from agentgauge.server import ServerConfig, create_app


def _client(config: ServerConfig, peer: str = "127.0.0.1") -> httpx.AsyncClient:
    transport = httpx.ASGITransport(app=create_app(config), client=(peer, 40000))
    return httpx.AsyncClient(transport=transport, base_url="http://localhost")


async def test_token_required_on_every_route(config: ServerConfig) -> None:
    config.token = "s3cret"
    async with _client(config) as client:
        for path in ("/list-apps", "/api/apps", "/", "/static/app.js", "/docs"):
            response = await client.get(path)
            assert response.status_code == 401, path
            assert response.headers["www-authenticate"] == "Bearer"
        wrong = await client.get("/list-apps", headers={"Authorization": "Bearer nope"})
        assert wrong.status_code == 401
        ok = await client.get("/list-apps", headers={"Authorization": "Bearer s3cret"})
        assert ok.status_code == 200 and ok.json() == ["calculator"]
        # A link with ?token= sets the cookie the UI then sends.
        link = await client.get("/?token=s3cret")
        assert link.status_code == 303 and link.headers["location"] == "/"
        assert "agentgauge_token=s3cret" in link.headers["set-cookie"] and "HttpOnly" in link.headers["set-cookie"]
        client.cookies.set("agentgauge_token", "s3cret")
        with_cookie = await client.get("/api/apps")
        assert with_cookie.status_code == 200


async def test_writes_refused_for_remote_peers(config: ServerConfig, data_dir: Path) -> None:
    async with _client(config, peer="192.0.2.7") as client:
        assert (await client.get("/dev/apps/calculator/eval-sets")).status_code == 200  # reads stay open
        for method, path in (
            ("POST", "/dev/apps/calculator/eval_sets/remote"),
            ("POST", "/apps/calculator/users/u/sessions"),
            ("DELETE", "/dev/apps/calculator/eval-sets/calculator"),
            ("POST", "/run"),
            ("PUT", "/api/apps/calculator/eval-sets/calculator/metrics"),
        ):
            response = await client.request(method, path, json={})
            assert response.status_code == 403, path
            assert "only served to local clients" in response.json()["detail"]
    assert not (data_dir / "calculator" / "remote.evalset.json").exists()
    assert (data_dir / "calculator" / "calculator.evalset.json").exists()
    config.allow_remote_writes = True
    async with _client(config, peer="192.0.2.7") as client:
        assert (await client.post("/dev/apps/calculator/eval_sets/remote")).status_code == 200


async def test_token_holders_may_write_remotely(config: ServerConfig) -> None:
    config.token = "t"
    async with _client(config, peer="192.0.2.7") as client:
        created = await client.post("/dev/apps/calculator/eval_sets/remote", headers={"Authorization": "Bearer t"})
        assert created.status_code == 200


@pytest.mark.parametrize(
    "path",
    [
        "/dev/apps/calculator/eval_sets/..%2F..%2Fetc/evals",
        "/dev/apps/..%5Cx/eval-sets",
        "/api/apps/calculator/eval-sets/a%00b",
        "/apps/calculator/users/..%2Fx/sessions/s",
        "/api/apps/.sessions/eval-sets",
    ],
)
async def test_path_segments_are_validated(client: httpx.AsyncClient, path: str) -> None:
    response = await client.get(path)
    assert response.status_code in (400, 404)
    if response.status_code == 400:
        assert "invalid" in response.json()["detail"]


async def test_traversal_cannot_write_outside_the_data_dir(client: httpx.AsyncClient, data_dir: Path) -> None:
    response = await client.post("/dev/apps/calculator/eval-sets", json={"evalSet": {"evalSetId": "../escape"}})
    assert response.status_code == 400 and "one path segment" in response.json()["detail"]
    response = await client.post("/apps/calculator/users/u/sessions", json={"sessionId": "../../x"})
    assert response.status_code == 400
    assert not list(data_dir.parent.glob("**/escape*")) and not (data_dir / "calculator" / "x.json").exists()


async def test_upload_size_limit(config: ServerConfig) -> None:
    config.max_upload_bytes = 1000
    async with _client(config) as client:
        big = await client.post("/api/validate/eval-set", files={"eval_set_file": ("a.json", b"x" * 5000)})
        assert big.status_code == 413 and "limit is 1000 bytes" in big.json()["detail"]

        async def chunks():  # type: ignore[no-untyped-def]
            for _ in range(10):
                yield b"{" * 200

        streamed = await client.post("/dev/apps/calculator/eval-sets", content=chunks())
        assert streamed.status_code == 413


async def test_cors_off_unless_configured(config: ServerConfig) -> None:
    headers = {"Origin": "http://elsewhere.example", "Access-Control-Request-Method": "GET"}
    async with _client(config) as client:
        response = await client.get("/list-apps", headers={"Origin": "http://elsewhere.example"})
        assert "access-control-allow-origin" not in response.headers
    config.cors_origins = ["http://elsewhere.example"]
    async with _client(config) as client:
        response = await client.options("/list-apps", headers=headers)
        assert response.headers["access-control-allow-origin"] == "http://elsewhere.example"


async def test_cross_site_writes_are_refused(config: ServerConfig, data_dir: Path) -> None:
    async with _client(config) as client:
        evil = {"Origin": "http://evil.example"}
        refused = await client.post("/dev/apps/calculator/eval_sets/csrf", headers=evil)
        assert refused.status_code == 403 and "cross-origin" in refused.json()["detail"]
        assert not (data_dir / "calculator" / "csrf.evalset.json").exists()
        assert (await client.get("/list-apps", headers=evil)).status_code == 200  # reads are not refused
        same = await client.post("/dev/apps/calculator/eval_sets/ok", headers={"Origin": "http://localhost"})
        assert same.status_code == 200
    config.cors_origins = ["http://evil.example"]
    async with _client(config) as client:
        allowed = await client.post("/dev/apps/calculator/eval_sets/csrf", headers={"Origin": "http://evil.example"})
        assert allowed.status_code == 200


@pytest.mark.parametrize("scheme", ["Bearer", "bearer", "BEARER", "bEaReR"])
async def test_bearer_scheme_is_case_insensitive(config: ServerConfig, scheme: str) -> None:
    config.token = "s3cret"
    async with _client(config) as client:
        response = await client.post("/dev/apps/calculator/eval_sets/x", headers={"Authorization": f"{scheme} s3cret"})
        assert response.status_code == 200
        basic = await client.get("/list-apps", headers={"Authorization": "Basic s3cret"})
        assert basic.status_code == 401


async def test_query_token_only_sets_the_cookie_on_a_ui_page(config: ServerConfig, data_dir: Path) -> None:
    config.token = "s3cret"
    config.adk_web = True
    async with _client(config) as client:
        # Not on a write, not on an API read: ?token= is no credential.
        write = await client.post("/dev/apps/calculator/eval_sets/viaquery?token=s3cret")
        assert write.status_code == 401
        assert not (data_dir / "calculator" / "viaquery.evalset.json").exists()
        assert (await client.get("/list-apps?token=s3cret")).status_code == 401
        assert (await client.get("/static/app.js?token=s3cret")).status_code == 401
        assert (await client.get("/?token=wrong")).status_code == 401
        # On the UI page: the cookie is set and the browser is sent to the same URL without the token.
        link = await client.get("/?tab=runs&token=s3cret")
        assert link.status_code == 303 and link.headers["location"] == "/?tab=runs"
        cookie = link.headers["set-cookie"]
        assert cookie.startswith("agentgauge_token=s3cret;") and "HttpOnly" in cookie and "SameSite=Strict" in cookie
        adk = await client.get("/dev-ui/?token=s3cret")
        assert adk.status_code == 303 and adk.headers["location"] == "/dev-ui/"
        client.cookies.set("agentgauge_token", "s3cret")
        assert (await client.get("/")).status_code == 200
        assert (await client.post("/dev/apps/calculator/eval_sets/viacookie")).status_code == 200


@pytest.mark.parametrize(
    "content_type", ["text/plain", "application/x-www-form-urlencoded", "multipart/form-data; b=x"]
)
async def test_a_body_less_write_refuses_a_form_content_type_without_the_pages_origin(
    client: httpx.AsyncClient, data_dir: Path, content_type: str
) -> None:
    """What an HTML form of a browser that leaves out ``Origin`` could send; every route with a JSON body refuses
    it too (415)."""
    url = "/apps/calculator/eval_sets/formed"
    refused = await client.post(url, content=b"x=1", headers={"Content-Type": content_type})
    assert refused.status_code == 415 and content_type.split(";")[0] in refused.json()["detail"]
    assert not (data_dir / "calculator" / "formed.evalset.json").exists()
    page = {"Content-Type": content_type, "Origin": "http://localhost:8000"}
    assert (await client.post(url, content=b"x=1", headers=page)).status_code == 200  # the UI's own page
    assert (await client.post("/apps/calculator/eval_sets/bare")).status_code == 200  # no body: a script, curl
    assert (data_dir / "calculator" / "formed.evalset.json").is_file()
