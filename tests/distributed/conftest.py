"""One real local Ray instance for the distributed tests (Ray no longer has an in-process mode).

Ray writes an auth token and its session files under the home and temp directories: both point into a pytest
temporary directory, so nothing lands in the real home. Without Ray the tests skip with the reason, except under
CI (``CI=true``), where they fail: the CI machine must run them.
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import agentgauge

SRC = str(Path(agentgauge.__file__).resolve().parents[1])
BENCH = Path(__file__).resolve().parents[2] / "benchmarks"


def _ray() -> Any:
    try:
        import ray
    except ImportError as exc:
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(f"ray is required under CI (pip install 'agentgauge[ray]'): {exc}")
        pytest.skip(f"ray is not installed (pip install 'agentgauge[ray]'): {exc}")
    return ray


@pytest.fixture(scope="session")
def ray_cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """A local Ray instance with 2 CPUs, no dashboard, home and temp files under a pytest temporary directory."""
    ray = _ray()
    base = tmp_path_factory.mktemp("ray")
    home = base / "home"
    home.mkdir()
    # Ray's unix sockets live under its temp dir, and their paths may not exceed ~107 bytes.
    # A session adds ~70 bytes ("session_<date>_<time>_<pid>/sockets/plasma_store") below the temp dir, so a deep
    # pytest directory (xdist workers add "popen-gwN") falls back to a short one under the system temp dir.
    temp = base / "t" if len(str(base)) <= 32 else Path(tempfile.mkdtemp(prefix="agr-"))
    temp.mkdir(exist_ok=True)
    env = {
        "HOME": str(home),
        "RAY_TMPDIR": str(temp),
        "TMPDIR": str(temp),
        "RAY_USAGE_STATS_ENABLED": "0",
        # The workers import this checkout's agentgauge and the benchmark's agents, as the test process does.
        "PYTHONPATH": os.pathsep.join(p for p in (SRC, str(BENCH), os.environ.get("PYTHONPATH", "")) if p),
    }
    saved = {key: os.environ.get(key) for key in env}
    os.environ.update(env)
    sys.path.insert(0, str(BENCH))
    try:
        ray.init(
            num_cpus=2, include_dashboard=False, _temp_dir=str(temp), namespace="agentgauge-tests", log_to_driver=False
        )
        yield ray
    finally:
        if ray.is_initialized():
            ray.shutdown()
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
        sys.path.remove(str(BENCH))
        if not temp.is_relative_to(base):
            shutil.rmtree(temp, ignore_errors=True)


@pytest.fixture(scope="module")
def bench(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The benchmark's generated data (40 cases) with the two ADK metrics, and its replay script."""
    import _cli
    import gen

    out = tmp_path_factory.mktemp("bench")
    manifest = gen.write(out, 40)
    expected = Path(manifest["files"]["expected.native"]["path"])
    replay = _cli._replay_script(Path(manifest["files"]["actual.native"]["path"]), out / "replay.json")
    return {"set": expected, "metrics": out / "metrics.json", "replay": replay, "dir": out}
