"""Where a running ``agentgauge serve`` listens, so that ``agentgauge eval`` links its reports to the web UI without
``--ui-url``.

At start-up the server writes ``serve.json`` beside each results folder it reads (``.agentgauge/serve.json`` for the
default ``.agentgauge/results``; ``<parent>/serve.json`` for ``--output-dir <parent>/<name>``), atomically: its
address, its process id and the results folders it reads. It removes the files when it stops (those still naming
it: a server started later in the same place keeps its own). ``eval`` without ``--ui-url`` reads the file beside the
folder it saves its result in and uses the address when the file names a live process that reads that folder; a
file left by a server that was killed (its process is gone), a torn or foreign file, or one naming other folders
gives no link and no message.
"""

from __future__ import annotations

import json
import os
import signal
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

__all__ = ["SERVE_FILE", "advertised", "discover_ui_url", "serve_file", "serve_url", "served_folders"]

SERVE_FILE = "serve.json"
"""The file's name, in the folder that holds a results folder."""

_MAX_BYTES = 64 * 1024  # a serve file is a few hundred bytes: anything larger is not one


def serve_file(results: Path) -> Path:
    """The serve file of the results folder ``results`` (beside it)."""
    return results.absolute().parent / SERVE_FILE


def serve_url(host: str, port: int) -> str:
    """The address clients on this machine reach a server bound to ``host``:``port`` at (a wildcard address by the
    loopback one)."""
    host = {"0.0.0.0": "127.0.0.1", "::": "::1", "": "127.0.0.1"}.get(host, host)
    return f"http://[{host}]:{port}" if ":" in host else f"http://{host}:{port}"


def served_folders(config: Any) -> list[Path]:
    """The results folders a server (its :class:`~agentgauge.server.ServerConfig`) reads that ``eval`` saves to:
    its ``--output-dir``, its data directory's ``results`` and, when it lists it, eval's default
    ``.agentgauge/results``. The other folders it only lists (a shipped example's results, beside its sources) get
    no serve file: a checkout's tracked folders are not written to."""
    from ._options import DEFAULT_OUTPUT_DIR

    first = [config.output_dir] if config.output_dir is not None else []
    default = [folder for folder in config.result_dirs if _same(folder, DEFAULT_OUTPUT_DIR)]
    return [*first, config.data_dir / "results", *default]


def _same(a: Path, b: Path) -> bool:
    return os.path.normcase(os.path.realpath(a)) == os.path.normcase(os.path.realpath(b))


def _read(target: Path) -> dict[str, Any] | None:
    """The serve file's fields when it is one (address, live-or-not process id, folders), else ``None``."""
    try:
        with target.open("rb") as handle:
            raw = handle.read(_MAX_BYTES + 1)
        data = json.loads(raw) if len(raw) <= _MAX_BYTES else None
    except (OSError, ValueError):  # missing, unreadable, torn or not JSON (UnicodeDecodeError is a ValueError)
        return None
    if not isinstance(data, dict):
        return None
    url, pid, folders = data.get("url"), data.get("pid"), data.get("results")
    if not isinstance(url, str) or not url.startswith(("http://", "https://")):
        return None
    if type(pid) is not int or pid <= 0:
        return None
    if not isinstance(folders, list) or not all(isinstance(f, str) and f for f in folders):
        return None
    return data


def _alive(pid: int) -> bool:
    """Whether process ``pid`` exists (signal 0 checks without sending anything)."""
    if pid == os.getpid():
        return True
    if sys.platform == "win32":  # no signal 0 there: a server is taken as running while its file is there
        return True
    try:
        os.kill(pid, 0)
    except PermissionError:  # it exists, under another user
        return True
    except (OSError, OverflowError):  # ProcessLookupError: gone
        return False
    return True


def discover_ui_url(results: Path) -> str | None:
    """The address of the running ``agentgauge serve`` that reads the results folder ``results``, from the serve
    file beside it; ``None`` when there is none, it is not a serve file, its process is gone or it reads other
    folders (never an error: an eval without a server just has no links)."""
    data = _read(serve_file(results))
    if data is None or not _alive(data["pid"]):
        return None
    if not any(_same(Path(folder), results) for folder in data["results"]):
        return None
    return str(data["url"]).rstrip("/")


class _Stopped(BaseException):
    """A signal that stopped the server, raised to unwind to :func:`_signals_unwind` (cleaning up on the way)."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


def _stop(signum: int, frame: object) -> None:
    raise _Stopped(signum)


@contextmanager
def _signals_unwind() -> Iterator[None]:
    """Ctrl-C and SIGTERM unwind the block (its ``finally`` clauses run) and are then raised again with the handlers
    in place before: the command's own (Ctrl-C ends it with ``Interrupted.``, exit 130, at once, which would skip
    them), the system's for SIGTERM. uvicorn, having stopped the server on either signal, raises it again with the
    handler it found. Left alone outside the main thread."""
    previous: dict[int, Any] = {}
    try:
        for signum in (signal.SIGINT, signal.SIGTERM):
            previous[signum] = signal.signal(signum, _stop)
    except ValueError:  # not the main thread
        pass
    stopped = None
    try:
        yield
    except _Stopped as exc:
        stopped = exc.signum
    finally:
        for number, before in previous.items():
            signal.signal(number, before)
    if stopped is not None:
        signal.raise_signal(stopped)


@contextmanager
def advertised(url: str | None, results: list[Path]) -> Iterator[list[Path]]:
    """While the block runs (the server serves), a serve file naming ``url``, this process and ``results`` beside
    each of the ``results`` folders whose parent folder exists; yields the files written. A place it cannot write
    to gets none (the server runs all the same); ``url`` ``None`` (a port chosen by the system, not known here)
    writes none. The files still naming this process are removed at the end."""
    from .._util.fileio import atomic_write
    from .._util.version import VERSION
    from ..errors import InputError

    pid = os.getpid()
    folders = [str(folder.absolute()) for folder in results]
    body = json.dumps({"url": url, "pid": pid, "results": folders, "agentgauge": VERSION}, indent=1).encode()
    written: list[Path] = []
    for folder in results if url is not None else []:
        target = serve_file(folder)
        if any(_same(target, done) for done in written) or not target.parent.is_dir():
            continue
        try:
            atomic_write(os.fspath(target), body, durable=False)  # a reader sees the old file or this one, whole
        except (OSError, InputError):  # not writable, or a directory or device in the way
            continue
        written.append(target)
    with _signals_unwind():
        try:
            yield written
        finally:
            for target in written:
                found = _read(target)
                if found is not None and found["pid"] == pid:
                    target.unlink(missing_ok=True)
