"""Local managers under concurrent writers: no lost update across threads, manager instances and processes."""

from __future__ import annotations

import json
import multiprocessing
import os
import shutil
import sys
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from agentgauge.errors import InputError, NotFoundError
from agentgauge.model import EvalCase, EvalMetric, EvalSetResult
from agentgauge.storage import LocalEvalResultManager, LocalEvalSetManager, LocalMetricManager
from agentgauge.storage._lock import LOCK_DIR_NAME, file_lock, lock_file_for

WORKERS = 8
CASES_EACH = 50
METRICS_EACH = 10


def _context(prefer: str) -> Any:
    """``fork`` is far cheaper on a loaded machine; ``spawn`` where fork does not exist."""
    return multiprocessing.get_context(prefer if prefer in multiprocessing.get_all_start_methods() else "spawn")


@pytest.fixture
def base() -> Iterator[Path]:
    # Locking does not depend on the disk; a RAM file system (when there is one) keeps 400 fsynced rewrites of a
    # growing file fast enough for the suite.
    shm = Path("/dev/shm")
    parent = str(shm) if shm.is_dir() and os.access(shm, os.W_OK) else None
    folder = Path(tempfile.mkdtemp(prefix="agentgauge-lock-", dir=parent))
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def _case(case_id: str, **extra: Any) -> EvalCase:
    return EvalCase.model_validate({"evalId": case_id, "conversation": [], **extra})


def _metric(name: str, threshold: float = 0.5) -> EvalMetric:
    return EvalMetric.model_validate({"metricName": name, "threshold": threshold})


def add_cases(base_dir: str, worker: int, count: int) -> None:
    """Process / thread body: one manager instance of its own, ``count`` cases added one by one."""
    manager = LocalEvalSetManager(base_dir)
    for i in range(count):
        manager.add_case("app", "s", _case(f"w{worker}_{i}"))


def add_metrics(base_dir: str, worker: int, count: int) -> None:
    """Process body: ``count`` metrics added to one eval set's metrics file."""
    manager = LocalMetricManager(base_dir)
    for i in range(count):
        manager.add("app", "s", _metric(f"m{worker}_{i}"))


def create_set(base_dir: str) -> None:
    """Process body: exit code 0 when this process created the set, 3 when it already existed."""
    try:
        LocalEvalSetManager(base_dir).create("app", "race")
    except InputError:
        sys.exit(3)


def save_results(base_dir: str, worker: int, count: int) -> None:
    """Process body: ``count`` results saved under generated ids."""
    manager = LocalEvalResultManager(base_dir)
    for i in range(count):
        manager.save("app", EvalSetResult(eval_set_id=f"s{worker}_{i}", eval_case_results=[]))


def hold_lock(data_path: str, held: Any, release: Any) -> None:
    """Process body: hold the lock of ``data_path`` until told to let go."""
    with file_lock(data_path):
        held.set()
        release.wait(30)


def _run_processes(ctx: Any, target: Any, args: list[tuple[Any, ...]]) -> list[int]:
    processes = [ctx.Process(target=target, args=a) for a in args]
    for process in processes:
        process.start()
    for process in processes:
        process.join(120)
    return [p.exitcode for p in processes]


class _TornReadWatcher(threading.Thread):
    """Reads the eval set file in a loop while others write it; records every failure to parse a whole file."""

    def __init__(self, path: Path) -> None:
        super().__init__(daemon=True)
        self.path = path
        self.stop = threading.Event()
        self.reads = 0
        self.errors: list[str] = []
        self.counts: list[int] = []

    def run(self) -> None:
        while not self.stop.is_set():
            try:
                cases = json.loads(self.path.read_bytes())["evalCases"]
            except Exception as exc:
                self.errors.append(repr(exc))
            else:
                self.reads += 1
                self.counts.append(len(cases))


def test_processes_adding_cases_keep_every_case_and_readers_never_see_a_torn_file(base: Path) -> None:
    manager = LocalEvalSetManager(base)
    manager.create("app", "s")
    watcher = _TornReadWatcher(manager.path_for("app", "s"))
    watcher.start()
    codes = _run_processes(_context("fork"), add_cases, [(str(base), w, CASES_EACH) for w in range(WORKERS)])
    watcher.stop.set()
    watcher.join(10)
    assert codes == [0] * WORKERS
    kept = [c.eval_id for c in manager.get("app", "s").eval_cases]
    assert len(kept) == WORKERS * CASES_EACH == 400
    assert set(kept) == {f"w{w}_{i}" for w in range(WORKERS) for i in range(CASES_EACH)}
    assert watcher.errors == []
    assert watcher.reads > 0
    assert watcher.counts == sorted(watcher.counts), "a reader saw the set shrink: an update was lost"


def test_threads_with_separate_manager_instances_and_paths_keep_every_case(base: Path) -> None:
    # Half the threads reach the folder through a symbolic link: the lock belongs to the file, not to the spelling.
    alias = base.parent / f"{base.name}-alias"
    alias.symlink_to(base, target_is_directory=True)
    try:
        LocalEvalSetManager(base).create("app", "s")
        threads = [
            threading.Thread(target=add_cases, args=(str(base if w % 2 else alias), w, CASES_EACH))
            for w in range(WORKERS)
        ]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(120)
    finally:
        alias.unlink()
    kept = [c.eval_id for c in LocalEvalSetManager(base).get("app", "s").eval_cases]
    assert len(kept) == len(set(kept)) == 400


def test_metric_manager_processes_keep_every_metric(base: Path) -> None:
    # spawn: fresh interpreters that share nothing with this one but the files.
    codes = _run_processes(_context("spawn"), add_metrics, [(str(base), w, METRICS_EACH) for w in range(WORKERS)])
    assert codes == [0] * WORKERS
    names = LocalMetricManager(base).list("app", "s")
    assert len(names) == len(set(names)) == WORKERS * METRICS_EACH == 80


def test_concurrent_updates_and_deletes_are_all_applied(base: Path) -> None:
    sets, metrics = LocalEvalSetManager(base), LocalMetricManager(base)
    sets.create("app", "s")
    for w in range(WORKERS):
        for i in range(6):
            sets.add_case("app", "s", _case(f"w{w}_{i}"))
            metrics.add("app", "s", _metric(f"m{w}_{i}"))

    def churn(worker: int) -> None:
        own_sets, own_metrics = LocalEvalSetManager(base), LocalMetricManager(base)
        for i in range(6):
            if i % 2:
                own_sets.delete_case("app", "s", f"w{worker}_{i}")
                own_metrics.delete("app", "s", f"m{worker}_{i}")
            else:
                own_sets.update_case("app", "s", _case(f"w{worker}_{i}", evalMode="trace"))
                own_metrics.update("app", "s", _metric(f"m{worker}_{i}", threshold=0.9))

    threads = [threading.Thread(target=churn, args=(w,)) for w in range(WORKERS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(120)
    cases = sets.get("app", "s").eval_cases
    assert sorted(c.eval_id for c in cases) == sorted(f"w{w}_{i}" for w in range(WORKERS) for i in (0, 2, 4))
    assert all(c.eval_mode == "trace" for c in cases)
    stored = metrics.get_all("app", "s")
    assert len(stored) == 24
    assert all(m.threshold == 0.9 for m in stored)


def test_only_one_of_many_concurrent_creates_succeeds(base: Path) -> None:
    codes = _run_processes(_context("fork"), create_set, [(str(base),) for _ in range(WORKERS)])
    assert sorted(codes) == [0] + [3] * (WORKERS - 1)
    assert LocalEvalSetManager(base).get("app", "race").eval_cases == []


def test_concurrent_result_saves_are_all_kept(base: Path) -> None:
    codes = _run_processes(_context("fork"), save_results, [(str(base), w, 10) for w in range(WORKERS)])
    assert codes == [0] * WORKERS
    manager = LocalEvalResultManager(base)
    ids = manager.list("app")
    assert len(ids) == 80
    assert {manager.get("app", i).eval_set_id for i in ids} == {f"s{w}_{i}" for w in range(WORKERS) for i in range(10)}
    # A result is written once, whole: no read-modify-write, hence no lock file among the results.
    assert not (base / "app" / LOCK_DIR_NAME).exists()


def test_lock_files_live_in_one_hidden_folder_beside_the_data(base: Path) -> None:
    sets, metrics = LocalEvalSetManager(base), LocalMetricManager(base)
    sets.create("app", "s")
    metrics.add("app", "s", _metric("m"))
    folder = base / "app"
    assert sorted(p.name for p in folder.iterdir()) == [LOCK_DIR_NAME, "s.evalset.json", "s.metrics.json"]
    assert sorted(p.name for p in (folder / LOCK_DIR_NAME).iterdir()) == ["s.evalset.json.lock", "s.metrics.json.lock"]
    assert lock_file_for(sets.path_for("app", "s")) == folder.resolve() / LOCK_DIR_NAME / "s.evalset.json.lock"
    assert sets.list("app") == ["s"]


def test_changes_to_a_missing_set_fail_without_creating_anything(base: Path) -> None:
    sets, metrics = LocalEvalSetManager(base), LocalMetricManager(base)
    with pytest.raises(NotFoundError, match="eval set 'nope' of app 'app' not found"):
        sets.add_case("app", "nope", _case("c"))
    with pytest.raises(NotFoundError, match="eval set 'nope'"):
        sets.delete("app", "nope")
    with pytest.raises(NotFoundError, match="no metrics stored for eval set 'nope'"):
        metrics.delete("app", "nope", "m")
    assert list(base.iterdir()) == []


def test_a_writer_waiting_too_long_gets_a_timeout_naming_the_file(base: Path) -> None:
    sets = LocalEvalSetManager(base, lock_timeout=0.3)
    sets.create("app", "s")
    path = sets.path_for("app", "s")
    ctx = _context("fork")
    held, release = ctx.Event(), ctx.Event()
    holder = ctx.Process(target=hold_lock, args=(str(path), held, release))
    holder.start()
    try:
        assert held.wait(60)
        with pytest.raises(TimeoutError) as info:  # the holder would keep the lock for good
            sets.add_case("app", "s", _case("late"))
        assert info.value.filename == str(path)
        assert "more than 0.3 s" in str(info.value)
    finally:
        release.set()
        holder.join(30)
    sets.add_case("app", "s", _case("late"))  # the holder is gone: the lock is free again
    assert [c.eval_id for c in sets.get("app", "s").eval_cases] == ["late"]


def test_the_lock_is_reentrant_within_a_thread_and_exclusive_across_threads(base: Path) -> None:
    target = base / "f.json"
    entered = threading.Event()
    with file_lock(target), file_lock(target):

        def other() -> None:
            with file_lock(target, timeout=0.2):
                entered.set()

        outcome: list[BaseException] = []
        thread = threading.Thread(target=lambda: _capture(other, outcome))
        thread.start()
        thread.join(30)
        assert not entered.is_set()
        assert len(outcome) == 1 and isinstance(outcome[0], TimeoutError)
    with file_lock(target, timeout=0.2):  # released after the outer block
        pass


def _capture(body: Any, outcome: list[BaseException]) -> None:
    try:
        body()
    except BaseException as exc:
        outcome.append(exc)
