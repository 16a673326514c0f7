"""Progress of a running evaluation, kept so that an interrupted run can be resumed.

While a run streams its result file (see :mod:`agentgauge.formats._result_writer`), the file is only a temporary one
until the run ends: a ``kill -9`` or a crash would lose every finished case. So every case result is also appended,
as soon as it is scored, to a *progress log* beside the result: ``<resultId>.progress.jsonl``. Its first line names
the run (result id, eval set, app, runs, a fingerprint of the metrics); every other line is one case result. Each
line goes to the operating system in one ``write`` as the case finishes, so killing the process loses at most the
cases in flight (the log is not fsynced per case: a power loss may lose more). A line cut short by a kill is
ignored when the log is read.

The log is deleted once the result file is in place, so a run that ends normally (or stops on Ctrl-C, which saves
an ``interrupted`` result) leaves only the result. ``agentgauge eval --resume`` reads the log and/or the interrupted
result (:func:`load_resume`), skips the (case, run) pairs already scored and writes one final result under the same
id.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import orjson
from pydantic import ValidationError

from .._util.redact import redact_bytes
from ..errors import InputError
from ..model import EvalCaseResult, EvalMetric, EvalSetResult

if TYPE_CHECKING:  # pragma: no cover
    from ..formats._result_writer import ResultWriter

__all__ = [
    "PROGRESS_SUFFIX",
    "ProgressLog",
    "ResumeState",
    "close_progress",
    "load_resume",
    "metrics_fingerprint",
    "open_progress",
    "progress_path",
    "read_progress",
]

PROGRESS_SUFFIX = ".progress.jsonl"
_RESULT_SUFFIX = ".evalset_result.json"
_FORMAT_KEY = "agentgaugeProgress"
_FORMAT_VERSION = 1


def progress_path(result_path: str | os.PathLike[str]) -> Path:
    """The progress log of the result file ``result_path``: ``<id>.progress.jsonl`` in the same directory."""
    path = Path(result_path)
    name = path.name.removesuffix(_RESULT_SUFFIX) if path.name.endswith(_RESULT_SUFFIX) else path.name
    return path.with_name(name + PROGRESS_SUFFIX)


def result_path_of(log: str | os.PathLike[str]) -> Path:
    """The result file a progress log belongs to (the inverse of :func:`progress_path`)."""
    path = Path(log)
    return path.with_name(path.name.removesuffix(PROGRESS_SUFFIX) + _RESULT_SUFFIX)


def metrics_fingerprint(metrics: Iterable[EvalMetric]) -> str:
    """A short hash of the metrics' configuration: resuming with other metrics would mix scores."""
    from ..formats._jsonexact import dumps

    doc = [m.model_dump(mode="json") for m in metrics]
    return hashlib.sha256(dumps(doc, option=orjson.OPT_SORT_KEYS)).hexdigest()[:16]


_LAYOUT = re.compile(rb"\n *")


class ProgressLog:
    """The progress log of one run, open for appending (see the module docstring).

    ``append=True`` continues an existing log (a resumed run): a last line cut short by a kill is cut off first so
    the next record starts on a line of its own.
    """

    def __init__(
        self,
        path: str | os.PathLike[str],
        *,
        eval_set_result_id: str,
        eval_set_id: str,
        app_name: str,
        num_runs: int,
        metrics: str,
        append: bool = False,
    ) -> None:
        self.path = Path(path)
        exists = append and self.path.is_file()
        if exists:
            _drop_partial_line(self.path)
        flags = os.O_WRONLY | os.O_CREAT | os.O_APPEND | getattr(os, "O_BINARY", 0)
        if not exists:
            flags |= os.O_TRUNC
        self._fd: int | None = os.open(self.path, flags, 0o666)
        if not exists:
            header = {
                _FORMAT_KEY: _FORMAT_VERSION,
                "evalSetResultId": eval_set_result_id,
                "evalSetId": eval_set_id,
                "appName": app_name,
                "numRuns": num_runs,
                "metrics": metrics,
            }
            self._write(orjson.dumps(header))

    def _write(self, line: bytes) -> None:
        if self._fd is None:
            raise ValueError(f"{self.path}: written after close")
        data = redact_bytes(line) + b"\n"  # no registered secret (API key) ever reaches a file
        while data:  # one write in practice; a short write (full disk, signal) is finished or raises
            written = os.write(self._fd, data)
            data = data[written:]

    def add(self, result: EvalCaseResult) -> dict[str, Any]:
        """Append one scored case result (in the kernel when this returns: a killed process keeps it) and return
        its ``model_dump(mode="json")``, which the result writer reuses."""
        from ..formats._jsonexact import dumps

        dumped = result.model_dump(mode="json")
        self._write(dumps(dumped))  # integers beyond 64 bits exact
        return dumped

    def add_json(self, indented: bytes) -> None:
        """Append one scored case result given as its indented JSON (as a remote worker sends it), on one line.

        JSON strings hold no raw line breaks (they are escaped), so every line break in ``indented`` is layout and
        the line is the document without them and their indentation, with no parse.
        """
        self._write(_LAYOUT.sub(b"", indented))

    def close(self, *, remove: bool) -> None:
        """Close the log; ``remove`` deletes it (the result file now holds everything). Safe to call twice."""
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None
        if remove:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(self.path)


def _drop_partial_line(path: Path) -> None:
    with open(path, "rb+") as handle:
        data = handle.read()
        if data and not data.endswith(b"\n"):
            handle.truncate(data.rfind(b"\n") + 1)


def open_progress(
    writer: ResultWriter | None,
    app_name: str,
    eval_set_id: str,
    result_id: str,
    num_runs: int,
    metrics: list[EvalMetric],
    resume: ResumeState | None,
) -> ProgressLog | None:
    """The progress log of a run that streams its result to a file (``None`` without a writer, whose result is
    only in memory until it is saved, and for a writer without a file, such as a SQL store's, which commits each
    case result itself)."""
    if writer is None or getattr(writer, "path", None) is None:
        return None
    return ProgressLog(
        progress_path(writer.path),
        eval_set_result_id=result_id,
        eval_set_id=eval_set_id,
        app_name=app_name,
        num_runs=num_runs,
        metrics=metrics_fingerprint(metrics),
        append=resume is not None,
    )


def close_progress(log: ProgressLog | None, *, saved: bool) -> None:
    """Close a run's log: deleted when ``saved`` (the result file holds everything), else kept for ``--resume``."""
    if log is not None:
        log.close(remove=saved)


@dataclass
class ResumeState:
    """What an interrupted run left: its id, and the case results already scored keyed by (case id, run id)."""

    eval_set_result_id: str
    eval_set_id: str
    result_path: Path
    num_runs: int | None = None
    """The interrupted run's ``--num-runs`` (``None`` when it cannot be told)."""
    metrics: str | None = None
    """:func:`metrics_fingerprint` of the interrupted run's metrics (``None``: from a result file, not recorded)."""
    done: dict[tuple[str, int], EvalCaseResult] = field(default_factory=dict)
    source: str = ""
    """Where the state was read, for messages (default: ``result_path``)."""

    def check(self, *, eval_set_id: str, num_runs: int, metrics: list[EvalMetric], case_ids: Iterable[str]) -> None:
        """Raise :class:`InputError` when this run does not continue the interrupted one (other eval set, other
        number of runs, other metrics, or a finished case this run does not select)."""
        where = self.source or str(self.result_path)
        if eval_set_id != self.eval_set_id:
            raise InputError(
                f"the interrupted run evaluated eval set {self.eval_set_id!r}, not {eval_set_id!r}", file=where
            )
        if self.num_runs is not None and num_runs != self.num_runs:
            raise InputError(
                f"the interrupted run had --num-runs {self.num_runs}; resume it with the same value, not {num_runs}",
                file=where,
            )
        if self.metrics is not None and self.metrics != metrics_fingerprint(metrics):
            raise InputError(
                "the metrics differ from the interrupted run's; resuming would mix scores of different metrics",
                file=where,
            )
        names = {m.metric_name for m in metrics}
        selected = set(case_ids)
        for (case_id, run_id), result in self.done.items():
            if case_id not in selected or run_id > num_runs:
                raise InputError(
                    f"the interrupted run scored case {case_id!r} (run {run_id}), which this run does not select; "
                    "resume with the same eval set, case filter and --num-runs",
                    file=where,
                )
            unknown = {m.metric_name for m in result.overall_eval_metric_results} - names
            if unknown:
                raise InputError(
                    f"case {case_id!r} was scored with metric(s) {', '.join(sorted(unknown))} that this run does not "
                    "use; resume with the same metrics",
                    file=where,
                )


def read_progress(path: str | os.PathLike[str]) -> tuple[dict[str, object], list[EvalCaseResult]]:
    """The header and the case results of a progress log. A last line cut short (a kill mid-write) is skipped; any
    other unreadable line raises :class:`InputError` naming the line."""
    from ..formats._jsonexact import loads

    where = os.fspath(path)
    with open(path, "rb") as handle:
        lines = handle.read().split(b"\n")
    complete = lines[:-1]  # after the last newline: empty, or a line the kill cut short
    if not complete:
        raise InputError("empty progress log (the run was killed before it started)", file=where)
    try:
        header = orjson.loads(complete[0])
    except orjson.JSONDecodeError:
        header = None
    if not isinstance(header, dict) or header.get(_FORMAT_KEY) != _FORMAT_VERSION:
        raise InputError("not an agentgauge progress log (first line)", file=where, location="line 1")
    results = []
    for number, line in enumerate(complete[1:], start=2):
        if not line.strip():
            continue
        try:
            results.append(EvalCaseResult.model_validate(loads(line)))
        except (orjson.JSONDecodeError, ValidationError) as exc:
            reason = str(exc).splitlines()[0]
            raise InputError(f"unreadable case result: {reason}", file=where, location=f"line {number}") from None
    return header, results


def _result_file(path: Path) -> EvalSetResult:
    from ..formats import load_result

    result = load_result(path)
    if not result.interrupted:
        raise InputError(
            "this run is complete (not interrupted): nothing to resume; start a new run instead", file=str(path)
        )
    return result


def load_resume(given: str | os.PathLike[str]) -> ResumeState:
    """The state of an interrupted run from its result file (``interrupted``, e.g. after Ctrl-C), its progress log
    (after a kill or crash), or either of them when both exist; stale temporary files of the killed run's result
    are removed. Raises :class:`InputError` for a file that is neither, or a complete run."""
    path = Path(given)
    if path.name.endswith(PROGRESS_SUFFIX):
        log, result_path = path, result_path_of(path)
    else:
        log, result_path = progress_path(path), path
    if not log.is_file() and not result_path.is_file():
        raise InputError("no such result file or progress log", file=os.fspath(given))
    state: ResumeState | None = None
    if result_path.is_file():
        result = _result_file(result_path)
        state = ResumeState(result.eval_set_result_id, result.eval_set_id, result_path)
        if result.summary is not None:
            state.num_runs = result.summary.num_runs
        state.done.update(((r.eval_id, r.run_id), r) for r in result.eval_case_results)
    if log.is_file():
        header, results = read_progress(log)
        result_id, set_id = str(header.get("evalSetResultId", "")), str(header.get("evalSetId", ""))
        if state is not None and (result_id, set_id) != (state.eval_set_result_id, state.eval_set_id):
            raise InputError(f"belongs to result {result_id!r}, not {state.eval_set_result_id!r}", file=str(log))
        state = state or ResumeState(result_id, set_id, result_path)
        runs = header.get("numRuns")
        state.num_runs = runs if isinstance(runs, int) else state.num_runs
        metrics = header.get("metrics")
        state.metrics = metrics if isinstance(metrics, str) else None
        state.done.update(((r.eval_id, r.run_id), r) for r in results)
    assert state is not None
    _remove_stale_temporaries(result_path, state.eval_set_result_id)
    return state


def _remove_stale_temporaries(result_path: Path, result_id: str) -> None:
    """Delete the temporary result file(s) a killed run left (``.<name>.<random>.tmp``, see ``_fileio``).

    Only when the shortened name still holds the whole result id: then no other run's file can match.
    """
    prefix = "." + result_path.name[:64] + "."
    if result_id not in prefix or not result_path.parent.is_dir():
        return
    for entry in result_path.parent.iterdir():
        if entry.name.startswith(prefix) and entry.name.endswith(".tmp"):
            with contextlib.suppress(OSError):
                entry.unlink()
