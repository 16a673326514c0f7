"""Store fixtures: a SQLite file per test and a real PostgreSQL server for the whole session.

The server is a throw-away cluster: ``initdb`` into a temporary directory, ``pg_ctl start`` on a free port of
127.0.0.1 (socket in the same directory), stopped and deleted when the session ends. PostgreSQL refuses to run as
root, so as root the cluster is created and run by the unprivileged ``nobody`` user (``runuser``). Without the
server binaries the PostgreSQL tests are skipped with the reason shown -- except under ``CI=true``, where they fail.
"""

from __future__ import annotations

import glob
import os
import shutil
import socket
import subprocess
import tempfile
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

_BIN_GLOB = "/usr/lib/postgresql/*/bin"


def _in_ci() -> bool:
    return os.environ.get("CI", "").lower() in ("1", "true", "yes")


def _pg_bin() -> Path | None:
    found = [Path(p) for p in glob.glob(_BIN_GLOB) if (Path(p) / "initdb").is_file()]
    on_path = shutil.which("initdb")
    if on_path:
        found.append(Path(on_path).parent)
    if not found:
        return None
    return max(found, key=lambda p: [int(x) for x in p.parent.name.split(".") if x.isdigit()] or [0])


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class PostgresServer:
    """A running throw-away PostgreSQL cluster; :meth:`new_database` gives each test its own database."""

    def __init__(self, bin_dir: Path) -> None:
        self.bin_dir = bin_dir
        self.root = Path(tempfile.mkdtemp(prefix="agentgauge-pg-"))
        self.data = self.root / "data"
        self.port = _free_port()
        self.as_root = os.geteuid() == 0
        if self.as_root:
            os.chmod(self.root, 0o777)  # the server's user must create its data directory and socket here

    def _run(self, *args: str) -> subprocess.CompletedProcess[str]:
        prefix = ["runuser", "-u", "nobody", "--"] if self.as_root else []
        return subprocess.run([*prefix, *args], capture_output=True, text=True, timeout=120, cwd=self.root)

    def start(self) -> PostgresServer:
        init = self._run(
            str(self.bin_dir / "initdb"), "-D", str(self.data), "-U", "postgres", "--auth=trust", "-E", "UTF8",
            "--no-locale", "--no-sync",
        )  # fmt: skip
        if init.returncode != 0:
            raise RuntimeError(f"initdb failed: {init.stderr.strip()}")
        options = f"-p {self.port} -k {self.root} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=50"
        started = self._run(
            str(self.bin_dir / "pg_ctl"), "-D", str(self.data), "-o", options, "-l", str(self.root / "log"), "-w",
            "-t", "60", "start",
        )  # fmt: skip
        if started.returncode != 0:
            log = (self.root / "log").read_text(errors="replace") if (self.root / "log").exists() else ""
            raise RuntimeError(f"pg_ctl start failed: {started.stderr.strip()} {log[-2000:]}")
        return self

    def stop(self) -> None:
        self._run(str(self.bin_dir / "pg_ctl"), "-D", str(self.data), "-m", "immediate", "-w", "stop")
        shutil.rmtree(self.root, ignore_errors=True)

    def url(self, database: str = "postgres") -> str:
        return f"postgresql+psycopg://postgres@127.0.0.1:{self.port}/{database}"

    def new_database(self) -> str:
        import psycopg

        name = f"t_{uuid.uuid4().hex[:16]}"
        with psycopg.connect(f"host=127.0.0.1 port={self.port} user=postgres dbname=postgres", autocommit=True) as c:
            c.execute(f"CREATE DATABASE {name}")
        return self.url(name)


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[PostgresServer]:
    """The session's PostgreSQL server (skipped without the server binaries, failed under ``CI=true``)."""
    bin_dir = _pg_bin()
    if bin_dir is None:
        reason = f"PostgreSQL server binaries not found ({_BIN_GLOB}/initdb); install the Debian 'postgresql' package"
        if _in_ci():
            pytest.fail(reason)
        pytest.skip(reason)
    server = PostgresServer(bin_dir).start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def postgres_url(postgres_server: PostgresServer) -> str:
    """A fresh, empty PostgreSQL database for one test."""
    return postgres_server.new_database()


@pytest.fixture
def sqlite_url(tmp_path: Path) -> str:
    """A SQLite database file for one test (created on first use)."""
    return f"sqlite:///{tmp_path / 'store.db'}"


@pytest.fixture(params=["sqlite", "postgresql"])
def store_url(request: pytest.FixtureRequest) -> str:
    """Each test using it runs against SQLite and against PostgreSQL."""
    name = "sqlite_url" if request.param == "sqlite" else "postgres_url"
    return str(request.getfixturevalue(name))
