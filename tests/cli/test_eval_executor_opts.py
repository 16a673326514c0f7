"""``eval --executor / --ray-address / --rate-limit``: bad values are refused before anything runs."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from agentgauge.cli import app

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (["--executor", "dask"], "--executor must be one of local, ray, got 'dask'"),
        (["--ray-address", "auto"], "--ray-address and --rate-limit need --executor ray"),
        (["--rate-limit", "judge=60"], "--ray-address and --rate-limit need --executor ray"),
        (["--executor", "ray", "--ray-address", "nowhere"], "--ray-address must be 'auto', ray://HOST:PORT"),
        (["--executor", "ray", "--rate-limit", "judge"], "--rate-limit 'judge': expected ENDPOINT=RPM"),
        (["--executor", "ray", "--traces", "x.jsonl"], "--executor ray is not available with --traces"),
    ],
)
def test_bad_executor_options_exit_2(options: list[str], message: str, tmp_path: Path) -> None:
    trace_set = next(EXAMPLES.rglob("*.evalset.json"))
    result = CliRunner().invoke(app, ["eval", str(trace_set), "--output-dir", str(tmp_path), *options])
    assert result.exit_code == 2, result.output
    assert f"error: {message}" in result.output
    assert not any(tmp_path.iterdir())  # nothing written
