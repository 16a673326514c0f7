"""``agentgauge serve`` security options: any loopback ``--host`` needs no token, ``--allowed-host`` and ``--debug``
reach the application, ``--help`` documents them."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import pytest
from typer.testing import CliRunner

from agentgauge.cli import app

ROOT = Path(__file__).resolve().parents[2]
CALCULATOR = ROOT / "examples" / "calculator"


@pytest.fixture
def started(monkeypatch: pytest.MonkeyPatch) -> list[dict[str, Any]]:
    """What ``uvicorn.run`` was called with (it is replaced: nothing listens)."""
    calls: list[dict[str, Any]] = []
    import uvicorn

    monkeypatch.setattr(uvicorn, "run", lambda application, **kw: calls.append({"app": application, **kw}))
    return calls


def _serve(tmp_path: Path, *args: str) -> Any:
    return CliRunner().invoke(app, ["serve", str(CALCULATOR), "--data-dir", str(tmp_path), *args])


@pytest.mark.parametrize("host", ["127.0.0.2", "127.1.2.3", "localhost", "::1", "[::1]"])
def test_any_loopback_host_needs_no_token(tmp_path: Path, started: list[dict[str, Any]], host: str) -> None:
    result = _serve(tmp_path, "--host", host)
    assert result.exit_code == 0, result.stderr
    assert started and started[0]["host"] == host.strip("[]")


@pytest.mark.parametrize("host", ["0.0.0.0", "192.0.2.1", "127.0.0.1.example", "::"])
def test_other_hosts_still_need_a_token(tmp_path: Path, started: list[dict[str, Any]], host: str) -> None:
    result = _serve(tmp_path, "--host", host)
    assert result.exit_code == 2 and "give --token or --insecure-no-auth" in result.stderr
    assert started == []


async def test_allowed_host_and_bind_host_reach_the_app(tmp_path: Path, started: list[dict[str, Any]]) -> None:
    result = _serve(tmp_path, "--host", "127.0.0.2", "--allowed-host", "dev.example", "--allowed-host", "box.lan")
    assert result.exit_code == 0, result.stderr
    transport = httpx.ASGITransport(app=started[0]["app"], client=("127.0.0.2", 1))
    async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.2:8000") as client:
        for host, status in (("127.0.0.2:8000", 200), ("dev.example:8000", 200), ("box.lan", 200),
                             ("evil.example:8000", 403)):  # fmt: skip
            assert (await client.get("/list-apps", headers={"Host": host})).status_code == status, host


def test_wildcard_bind_says_how_to_name_the_server(tmp_path: Path, started: list[dict[str, Any]]) -> None:
    result = _serve(tmp_path, "--host", "0.0.0.0", "--token", "t")
    assert result.exit_code == 0, result.stderr
    assert "--allowed-host" in result.stderr
    quiet = _serve(tmp_path, "--host", "0.0.0.0", "--token", "t", "--allowed-host", "box.lan")
    assert "--allowed-host" not in quiet.stderr


def test_debug_reaches_the_config(tmp_path: Path, started: list[dict[str, Any]]) -> None:
    assert _serve(tmp_path, "--debug").exit_code == 0
    assert _serve(tmp_path).exit_code == 0
    assert [c["app"].state.agentgauge.config.debug for c in started] == [True, False]


def test_help_documents_the_security_options() -> None:
    result = CliRunner().invoke(app, ["serve", "--help"], env={"COLUMNS": "200"})
    assert result.exit_code == 0
    for text in ("--allowed-host", "--debug", "DNS rebinding", "tracebacks"):
        assert text in result.stdout, text
