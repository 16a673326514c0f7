"""Output paths: writes go through symbolic links to their target; FIFOs, devices and sockets are refused."""

from __future__ import annotations

import errno
import os
import socket
import stat
import threading
from pathlib import Path

import pytest

from agentgauge import storage
from agentgauge._util.fileio import (
    NotARegularFileError,
    atomic_write,
    check_output_target,
    check_output_targets,
    resolve_symlinks,
)

posix_only = pytest.mark.skipif(os.name != "posix", reason="POSIX file types")


def _names(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir())


def test_storage_still_exports_atomic_write() -> None:
    assert storage.atomic_write is atomic_write


def test_a_symlink_is_kept_and_its_target_rewritten_with_its_permissions(tmp_path: Path) -> None:
    real_dir, link_dir = tmp_path / "real", tmp_path / "links"
    real_dir.mkdir()
    link_dir.mkdir()
    target = real_dir / "report.html"
    target.write_bytes(b"old")
    target.chmod(0o600)
    link = link_dir / "report.html"
    link.symlink_to(os.path.relpath(target, link_dir))
    atomic_write(link, b"new")
    assert link.is_symlink()
    assert os.readlink(link) == os.path.relpath(target, link_dir)
    assert target.read_bytes() == b"new"
    assert stat.S_IMODE(target.stat().st_mode) == 0o600
    # The temporary file went beside the target (same file system), and none is left anywhere.
    assert _names(real_dir) == ["report.html"]
    assert _names(link_dir) == ["report.html"]


def test_a_chain_of_links_through_linked_folders_reaches_the_final_file(tmp_path: Path) -> None:
    (tmp_path / "data").mkdir()
    (tmp_path / "alias").symlink_to(tmp_path / "data", target_is_directory=True)
    final = tmp_path / "data" / "final.json"
    final.write_bytes(b"{}")
    (tmp_path / "data" / "hop.json").symlink_to("final.json")  # relative to the folder that holds the link
    first = tmp_path / "first.json"
    first.symlink_to(tmp_path / "alias" / "hop.json")
    assert resolve_symlinks(first) == final.resolve()
    atomic_write(first, b"[1]")
    assert final.read_bytes() == b"[1]"
    assert first.is_symlink() and (tmp_path / "data" / "hop.json").is_symlink()


def test_a_dangling_symlink_gets_its_target_created(tmp_path: Path) -> None:
    link = tmp_path / "summary.md"
    link.symlink_to("made-by-write.md")
    check_output_target(link)  # fine, and creates nothing
    assert not (tmp_path / "made-by-write.md").exists()
    atomic_write(link, b"# ok")
    assert link.is_symlink()
    assert (tmp_path / "made-by-write.md").read_bytes() == b"# ok"


def test_a_dangling_symlink_into_a_missing_folder_is_refused_and_creates_nothing(tmp_path: Path) -> None:
    link = tmp_path / "summary.md"
    link.symlink_to(tmp_path / "missing" / "deeper" / "x.md")
    with pytest.raises(FileNotFoundError) as info:
        atomic_write(link, b"# no")
    assert info.value.filename == str(link)
    assert "does not exist" in str(info.value)
    assert _names(tmp_path) == ["summary.md"]


@posix_only
def test_a_fifo_is_refused_without_blocking_and_kept(tmp_path: Path) -> None:
    fifo = tmp_path / "report.xml"
    os.mkfifo(fifo)
    outcome: list[BaseException] = []

    def write() -> None:
        try:
            atomic_write(fifo, b"<x/>")
        except BaseException as exc:
            outcome.append(exc)

    writer = threading.Thread(target=write, daemon=True)
    writer.start()
    writer.join(10)
    assert not writer.is_alive(), "writing to a FIFO blocked"
    assert len(outcome) == 1 and isinstance(outcome[0], NotARegularFileError)
    assert outcome[0].filename == str(fifo)
    assert "is a FIFO (named pipe), not a regular file" in str(outcome[0])
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)
    assert _names(tmp_path) == ["report.xml"]


@posix_only
def test_a_device_and_a_symlink_to_one_are_refused_and_the_device_untouched(tmp_path: Path, char_device: Path) -> None:
    link = tmp_path / "report.md"
    link.symlink_to(char_device)
    with pytest.raises(NotARegularFileError) as info:
        atomic_write(link, b"x")
    assert f"links to {char_device}, which is a character device" in str(info.value)
    assert link.is_symlink()
    with pytest.raises(NotARegularFileError, match="is a character device"):
        atomic_write(char_device, b"x")
    assert stat.S_ISCHR(os.lstat(char_device).st_mode)
    # The real /dev/full only ever meets the check, which writes nothing even if it were wrong.
    if Path("/dev/full").exists():
        with pytest.raises(NotARegularFileError, match="is a character device"):
            check_output_target("/dev/full")


@posix_only
def test_a_socket_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "s.sock"
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as server:
        server.bind(str(path))
        with pytest.raises(NotARegularFileError, match="is a socket"):
            atomic_write(path, b"x")
        assert stat.S_ISSOCK(os.lstat(path).st_mode)


def test_a_symlink_to_a_directory_is_refused(tmp_path: Path) -> None:
    (tmp_path / "folder").mkdir()
    (tmp_path / "out.json").symlink_to(tmp_path / "folder", target_is_directory=True)
    with pytest.raises(IsADirectoryError, match="which is a directory"):
        atomic_write(tmp_path / "out.json", b"{}")
    assert _names(tmp_path / "folder") == []


def test_a_file_in_the_way_of_the_parent_folders_is_refused(tmp_path: Path) -> None:
    (tmp_path / "file.txt").write_text("x")
    with pytest.raises(NotADirectoryError):
        check_output_target(tmp_path / "file.txt" / "sub" / "report.html")
    with pytest.raises(NotADirectoryError):
        check_output_target(tmp_path / "file.txt" / "report.html")


def test_a_symlink_loop_is_an_error(tmp_path: Path) -> None:
    (tmp_path / "a").symlink_to("b")
    (tmp_path / "b").symlink_to("a")
    with pytest.raises(OSError) as info:
        atomic_write(tmp_path / "a", b"x")
    assert info.value.errno == errno.ELOOP


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="needs root to own a link as another user")
def test_a_foreign_link_in_a_sticky_shared_folder_is_not_followed(tmp_path: Path) -> None:
    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(0o1777)
    victim = tmp_path / "victim.txt"
    victim.write_bytes(b"keep")
    link = shared / "report.html"
    link.symlink_to(victim)
    os.lchown(link, 54321, 54321)
    with pytest.raises(PermissionError, match="owned by another user"):
        atomic_write(link, b"attack")
    assert victim.read_bytes() == b"keep"


def test_a_name_close_to_the_file_system_limit_still_writes(tmp_path: Path) -> None:
    target = tmp_path / ("r" * 250 + ".json")
    atomic_write(target, b"{}")
    assert target.read_bytes() == b"{}"
    assert _names(tmp_path) == [target.name]


def test_checks_skip_none_and_create_nothing(tmp_path: Path) -> None:
    check_output_targets(None, tmp_path / "new" / "deeper" / "report.xml", None)
    assert _names(tmp_path) == []


def test_a_new_file_under_a_linked_folder_gets_its_missing_folders(tmp_path: Path) -> None:
    (tmp_path / "data").mkdir()
    (tmp_path / "alias").symlink_to(tmp_path / "data", target_is_directory=True)
    target = tmp_path / "alias" / "new" / "deeper" / "report.xml"
    check_output_target(target)
    atomic_write(target, b"<x/>")
    assert (tmp_path / "data" / "new" / "deeper" / "report.xml").read_bytes() == b"<x/>"
