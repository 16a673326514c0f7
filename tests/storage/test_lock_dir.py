"""``lock_dir=``: lock files kept in one folder instead of beside the data (what ``agentgauge serve`` uses)."""

from __future__ import annotations

import os
import threading
from pathlib import Path

from agentgauge.model import EvalCase
from agentgauge.storage import LocalEvalSetManager, LocalMetricManager
from agentgauge.storage._lock import LOCK_DIR_NAME, lock_file_for


def test_changes_create_no_lock_folder_beside_the_data(tmp_path: Path) -> None:
    data, locks = tmp_path / "evals", tmp_path / "locks"
    sets = LocalEvalSetManager(data, lock_dir=locks)
    sets.create("app", "s")
    sets.add_case("app", "s", EvalCase(eval_id="c"))
    LocalMetricManager(data, lock_dir=locks).put_all("app", "s", [])
    assert sorted(p.name for p in (data / "app").iterdir()) == ["s.evalset.json", "s.metrics.json"]
    names = sorted(p.name for p in locks.iterdir())
    assert len(names) == 2 and names[0].startswith("s.evalset.json.") and names[1].startswith("s.metrics.json.")
    assert not list(tmp_path.rglob(LOCK_DIR_NAME))


def test_one_lock_per_file_whatever_the_path(tmp_path: Path) -> None:
    (tmp_path / "real").mkdir()
    (tmp_path / "link").symlink_to(tmp_path / "real")
    locks = tmp_path / "locks"
    via_link = lock_file_for(tmp_path / "link" / "s.evalset.json", locks)
    assert via_link == lock_file_for(tmp_path / "real" / "s.evalset.json", locks)
    assert via_link != lock_file_for(tmp_path / "other" / "s.evalset.json", locks)  # same name, other file
    assert len(lock_file_for(tmp_path / ("x" * 237 + ".evalset.json"), locks).name) < 130  # names stay short


def test_writers_sharing_a_lock_dir_lose_nothing(tmp_path: Path) -> None:
    data, locks = tmp_path / "evals", tmp_path / "locks"
    LocalEvalSetManager(data, lock_dir=locks).create("app", "s")

    def add(start: int) -> None:
        manager = LocalEvalSetManager(data, lock_dir=locks)  # one manager per thread, as separate requests
        for i in range(start, start + 25):
            manager.add_case("app", "s", EvalCase(eval_id=f"c{i}"))

    threads = [threading.Thread(target=add, args=(n * 25,)) for n in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(LocalEvalSetManager(data).get("app", "s").eval_cases) == 100


def test_a_lock_name_fits_the_file_name_limit_whatever_the_script(tmp_path: Path) -> None:
    """The readable prefix is cut in bytes: 80 CJK characters (240 bytes) once made a 278-byte lock name."""
    data = tmp_path / ("集" * 80 + ".evalset.json")
    lock = lock_file_for(data, tmp_path / "locks")
    assert len(os.fsencode(lock.name)) <= 255
    assert lock.name.startswith("集" * 26)  # as much of the name as 80 bytes hold, never half a character
    lock.parent.mkdir()
    lock.touch()  # the file system accepts the name
