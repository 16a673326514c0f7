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
        (["--executor", "ray", "--cache-agent"], "--cache-agent is not available with --executor ray"),
        (["--executor", "ray", "--cache-agent-dir", "c"], "--cache-agent is not available with --executor ray"),
    ],
)
def test_bad_executor_options_exit_2(options: list[str], message: str, tmp_path: Path) -> None:
    trace_set = next(EXAMPLES.rglob("*.evalset.json"))
    result = CliRunner().invoke(app, ["eval", str(trace_set), "--output-dir", str(tmp_path), *options])
    assert result.exit_code == 2, result.output
    assert f"error: {message}" in result.output
    assert not any(tmp_path.iterdir())  # nothing written


def test_eval_help_lists_the_executor_options() -> None:
    # Option help is rendered as rich markup: a "[/...]" in it once broke `eval --help` altogether.
    result = CliRunner().invoke(app, ["eval", "--help"], terminal_width=200)
    assert result.exit_code == 0, result.output
    for option in ("--executor", "--ray-address", "--rate-limit", "ENDPOINT=RPM/CONCURRENT"):
        assert option in result.output
