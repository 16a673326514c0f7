"""Output paths given to the CLI: symlinks are written through, FIFOs and devices refused with exit 2 up front."""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from agentgauge.cli import app

ROOT = Path(__file__).resolve().parents[2]
CALC_DIR = ROOT / "examples" / "calculator"
CALC = [str(CALC_DIR / "agent.py"), str(CALC_DIR / "calculator.evalset.json")]
LEGACY = ROOT / "examples" / "legacy" / "home_automation.test.json"
runner = CliRunner()

posix_only = pytest.mark.skipif(os.name != "posix", reason="POSIX file types")


def _cli(*args: str | Path) -> Any:
    return runner.invoke(app, [str(a) for a in args])


def _error_line(result: Any) -> str:
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert len(lines) == 1, result.output
    assert lines[0].startswith("error: ")
    assert "Traceback" not in result.output
    return lines[0]


def test_eval_writes_reports_through_symlinks(tmp_path: Path) -> None:
    reports = tmp_path / "reports"
    reports.mkdir()
    links = {}
    for name in ("r.xml", "r.html", "r.md"):
        (reports / name).write_text("old")
        links[name] = tmp_path / f"link-{name}"
        links[name].symlink_to(reports / name)
    out = tmp_path / "out"
    result = _cli(
        "eval", *CALC, "--output-dir", out, "--junit", links["r.xml"], "--html", links["r.html"],
        "--markdown", links["r.md"],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    assert all(link.is_symlink() for link in links.values())
    assert (reports / "r.xml").read_text().startswith("<?xml")
    assert "<html" in (reports / "r.html").read_text()
    assert "calculator" in (reports / "r.md").read_text()
    assert sorted(p.name for p in reports.iterdir()) == ["r.html", "r.md", "r.xml"]


@posix_only
@pytest.mark.parametrize("option", ["--junit", "--html", "--markdown"])
def test_eval_refuses_a_fifo_before_running_anything(tmp_path: Path, option: str) -> None:
    fifo = tmp_path / "report"
    os.mkfifo(fifo)
    out = tmp_path / "out"
    result = _cli("eval", *CALC, "--output-dir", out, option, fifo)
    assert result.exit_code == 2
    assert _error_line(result) == (
        f"error: {fifo}: is a FIFO (named pipe), not a regular file; refusing to write to it (give a file path)"
    )
    assert not out.exists(), "the run started although an output path was refused"
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)


@posix_only
def test_eval_refuses_a_device_and_a_link_to_one(tmp_path: Path, char_device: Path) -> None:
    out = tmp_path / "out"
    result = _cli("eval", *CALC, "--output-dir", out, "--markdown", char_device)
    assert result.exit_code == 2
    assert "is a character device, not a regular file" in _error_line(result)
    link = tmp_path / "summary.md"
    link.symlink_to(char_device)
    result = _cli("eval", *CALC, "--output-dir", out, "--html", link)
    assert result.exit_code == 2
    assert f"links to {char_device}, which is a character device" in _error_line(result)
    assert link.is_symlink() and not out.exists()
    assert stat.S_ISCHR(os.lstat(char_device).st_mode)


def test_eval_refuses_a_directory_up_front(tmp_path: Path) -> None:
    (tmp_path / "report.html").mkdir()
    result = _cli("eval", *CALC, "--output-dir", tmp_path / "out", "--html", tmp_path / "report.html")
    assert result.exit_code == 2
    assert "Is a directory" in _error_line(result)
    assert not (tmp_path / "out").exists()


@posix_only
def test_convert_and_migrate_refuse_a_fifo_and_a_device(tmp_path: Path, char_device: Path) -> None:
    (tmp_path / "outputs").mkdir()
    fifo = tmp_path / "outputs" / "out.json"
    os.mkfifo(fifo)
    for args in (
        ("convert", CALC[1], fifo),
        ("convert", CALC[1], char_device, "--to", "adk"),
        ("migrate", LEGACY, fifo),
        ("migrate", LEGACY, char_device),
    ):
        result = _cli(*args)
        assert result.exit_code == 2, (args, result.output)
        assert "not a regular file; refusing to write to it" in _error_line(result)
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)
    assert stat.S_ISCHR(os.lstat(char_device).st_mode)
    assert [p.name for p in fifo.parent.iterdir()] == ["out.json"]  # no temporary file left beside it


def test_convert_and_migrate_write_through_symlinks(tmp_path: Path) -> None:
    real = tmp_path / "real.evalset.json"
    real.write_text("{}")
    link = tmp_path / "link.evalset.json"
    link.symlink_to(real.name)
    assert _cli("convert", CALC[1], link).exit_code == 0
    assert link.is_symlink() and '"evalSetId": "calculator"' in real.read_text()
    result = _cli("migrate", LEGACY, link)
    assert result.exit_code == 0, result.output
    assert link.is_symlink() and '"evalSetId": "home_automation"' in real.read_text()


@posix_only
def test_show_refuses_a_fifo_and_writes_through_a_symlink(tmp_path: Path) -> None:
    out = tmp_path / "out"
    assert _cli("eval", *CALC, "--output-dir", out).exit_code == 0
    (saved,) = out.rglob("*.evalset_result.json")
    fifo = tmp_path / "report.html"
    os.mkfifo(fifo)
    result = _cli("show", saved, "--html", fifo)
    assert result.exit_code == 2
    assert "is a FIFO" in _error_line(result)
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)
    real = tmp_path / "real.xml"
    link = tmp_path / "link.xml"
    link.symlink_to(real)  # dangling until written
    result = _cli("show", saved, "--junit", link)
    assert result.exit_code == 0, result.output
    assert link.is_symlink() and real.read_text().startswith("<?xml")
