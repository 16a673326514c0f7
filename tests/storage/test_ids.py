"""Ids that name files or stored rows: every manager of every backend refuses the same ids with the project's own
error, naming the id and the limit, never a raw ``OSError``; every id that fits still works."""

from __future__ import annotations

import errno
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from agentgauge.errors import InputError, InvalidIdError
from agentgauge.model import EvalCase, EvalMetric, EvalSet, EvalSetResult, Invocation, Message
from agentgauge.model._ids import CASE_ID_MAX_CHARS, check_case_id
from agentgauge.storage import (
    EvalResultManager,
    EvalSetManager,
    InMemoryEvalResultManager,
    InMemoryEvalSetManager,
    InMemoryMetricManager,
    LocalEvalResultManager,
    LocalEvalSetManager,
    LocalMetricManager,
    MetricManager,
    check_segment,
)
from agentgauge.storage._ids import ID_MAX_BYTES, default_result_id

SET_MAX = ID_MAX_BYTES["eval set id"]
RESULT_MAX = ID_MAX_BYTES["eval set result id"]
CONTROL = "agpwn\r\nX-Injected:1"


def _sql_url(tmp_path: Path) -> str | None:
    try:
        import sqlalchemy  # noqa: F401
    except ImportError:
        return None
    return f"sqlite:///{tmp_path / 'store.db'}"


def _set_managers(tmp_path: Path) -> dict[str, EvalSetManager]:
    found: dict[str, EvalSetManager] = {"local": LocalEvalSetManager(tmp_path), "memory": InMemoryEvalSetManager()}
    url = _sql_url(tmp_path)
    if url is not None:
        from agentgauge.sqlstore import SqlEvalSetManager

        found["sql"] = SqlEvalSetManager(url)
    return found


def _metric_managers(tmp_path: Path) -> dict[str, MetricManager]:
    found: dict[str, MetricManager] = {"local": LocalMetricManager(tmp_path), "memory": InMemoryMetricManager()}
    url = _sql_url(tmp_path)
    if url is not None:
        from agentgauge.sqlstore import SqlMetricManager

        found["sql"] = SqlMetricManager(url)
    return found


def _result_managers(tmp_path: Path) -> dict[str, EvalResultManager]:
    found: dict[str, EvalResultManager] = {
        "local": LocalEvalResultManager(tmp_path),
        "memory": InMemoryEvalResultManager(),
    }
    url = _sql_url(tmp_path)
    if url is not None:
        from agentgauge.sqlstore import open_store

        found["sql"] = open_store(url).results()
    return found


def _case(eval_id: str) -> EvalCase:
    return EvalCase(eval_id=eval_id, conversation=[Invocation(user_content=Message(content="q"))])


def _refused(call: Callable[[], Any], kind: str, *, limit: int | None = None) -> InvalidIdError:
    with pytest.raises(InvalidIdError) as caught:
        call()
    error = caught.value
    assert isinstance(error, InputError) and error.kind == kind and kind in str(error)
    if limit is not None:
        assert error.limit == limit and f"at most {limit}" in str(error)
    return error


def test_the_issue_s_reproductions_raise_the_project_error(tmp_path: Path) -> None:
    # Each raised OSError [Errno 36] File name too long before.
    long_set = "x" * 255
    _refused(lambda: LocalEvalSetManager(tmp_path).create("app", long_set), "eval set id", limit=SET_MAX)
    _refused(lambda: LocalEvalSetManager(tmp_path).put("app", EvalSet(eval_set_id=long_set)), "eval set id")
    metric = EvalMetric(metric_name="response_match_score")
    _refused(lambda: LocalMetricManager(tmp_path).add("app", long_set, metric), "eval set id", limit=SET_MAX)
    result = EvalSetResult(eval_set_result_id="r" * 255, eval_set_id="s")
    _refused(lambda: LocalEvalResultManager(tmp_path).save("app", result), "eval set result id", limit=RESULT_MAX)
    assert not list(tmp_path.rglob("*.json"))


@pytest.mark.parametrize("backend", ["local", "memory", "sql"])
def test_every_backend_refuses_the_same_set_ids(tmp_path: Path, backend: str) -> None:
    sets = _set_managers(tmp_path).get(backend)
    if sets is None:
        pytest.skip("sqlalchemy is not installed")
    for bad in ("x" * (SET_MAX + 1), "é" * 119, CONTROL, "tab\there", "esc\x1b[31m", "del\x7f", "c1\x85", "sur\ud800"):
        _refused(lambda bad=bad: sets.create("app", bad), "eval set id")  # type: ignore[misc]
        _refused(lambda bad=bad: sets.get("app", bad), "eval set id")  # type: ignore[misc]
    _refused(lambda: sets.create("a" * 256, "s"), "app name", limit=255)
    # The longest ids that fit, in ASCII and in multi-byte text, are stored and read back.
    for good in ("x" * SET_MAX, "é" * (SET_MAX // 2), "ok-id with spaces"):
        sets.create("app", good)
        sets.add_case("app", good, _case("c" * CASE_ID_MAX_CHARS))
        assert sets.get_case("app", good, "c" * CASE_ID_MAX_CHARS).eval_id == "c" * CASE_ID_MAX_CHARS
    assert sets.list("app") == sorted(("x" * SET_MAX, "é" * (SET_MAX // 2), "ok-id with spaces"))


@pytest.mark.parametrize("backend", ["local", "memory", "sql"])
def test_every_backend_refuses_the_same_case_ids(tmp_path: Path, backend: str) -> None:
    sets = _set_managers(tmp_path).get(backend)
    if sets is None:
        pytest.skip("sqlalchemy is not installed")
    sets.create("app", "s")
    too_long = "c" * (CASE_ID_MAX_CHARS + 1)
    for bad in (too_long, CONTROL, "nul\x00"):
        _refused(lambda bad=bad: sets.add_case("app", "s", _case(bad)), "eval case id")  # type: ignore[misc]
        _refused(lambda bad=bad: sets.update_case("app", "s", _case(bad)), "eval case id")  # type: ignore[misc]
        _refused(lambda bad=bad: sets.get_case("app", "s", bad), "eval case id")  # type: ignore[misc]
        _refused(lambda bad=bad: sets.delete_case("app", "s", bad), "eval case id")  # type: ignore[misc]
        whole = EvalSet(eval_set_id="s", eval_cases=[_case("fine"), _case(bad)])
        _refused(lambda whole=whole: sets.put("app", whole), "eval case id")  # type: ignore[misc]
    _refused(lambda: sets.add_case("app", "s", _case(too_long)), "eval case id", limit=CASE_ID_MAX_CHARS)
    # Case ids never name a file: '/' and the like stay allowed, as in ADK.
    sets.add_case("app", "s", _case("group/case 1"))
    assert [c.eval_id for c in sets.get("app", "s").eval_cases] == ["group/case 1"]


@pytest.mark.parametrize("backend", ["local", "memory", "sql"])
def test_every_backend_refuses_the_same_metric_set_ids(tmp_path: Path, backend: str) -> None:
    metrics = _metric_managers(tmp_path).get(backend)
    if metrics is None:
        pytest.skip("sqlalchemy is not installed")
    metric = EvalMetric(metric_name="response_match_score")
    for bad in ("x" * (SET_MAX + 1), CONTROL):
        _refused(lambda bad=bad: metrics.add("app", bad, metric), "eval set id")  # type: ignore[misc]
        _refused(lambda bad=bad: metrics.put_all("app", bad, [metric]), "eval set id")  # type: ignore[misc]
    metrics.add("app", "x" * SET_MAX, metric)
    assert metrics.list("app", "x" * SET_MAX) == ["response_match_score"]


@pytest.mark.parametrize("backend", ["local", "memory", "sql"])
def test_every_backend_gives_long_sets_a_result_id_that_fits(tmp_path: Path, backend: str) -> None:
    results = _result_managers(tmp_path).get(backend)
    if results is None:
        pytest.skip("sqlalchemy is not installed")
    for bad in ("r" * (RESULT_MAX + 1), CONTROL):
        result = EvalSetResult(eval_set_result_id=bad, eval_set_id="s")
        _refused(lambda result=result: results.save("app", result), "eval set result id")  # type: ignore[misc]
    # An app and eval set at their own limits still get a default result id, cut to fit: saved and read back.
    result = EvalSetResult(eval_set_id="é" * (SET_MAX // 2))
    result_id = results.save("a" * 100, result)
    assert len(result_id.encode()) <= RESULT_MAX and result_id.startswith("a" * 100 + "_éé")
    assert results.get("a" * 100, result_id).eval_set_id == "é" * (SET_MAX // 2)


def test_default_result_ids_keep_their_form_when_short() -> None:
    result_id = default_result_id("calc", "basic")
    prefix, _, uuid = result_id.rpartition("_")
    assert prefix == "calc_basic" and len(uuid) == 36
    cut = default_result_id("a", "€" * 100)  # 3-byte characters: the cut never splits one
    assert len(cut.encode()) <= RESULT_MAX and cut.encode().decode() == cut


def test_check_segment_messages_name_the_id_and_the_rule() -> None:
    with pytest.raises(InvalidIdError, match=r"invalid eval set id 'x+…': too long \(300 bytes in UTF-8; at most 237"):
        check_segment("x" * 300, "eval set id")
    with pytest.raises(InvalidIdError, match=r"must not contain control characters \(found '\\r' at position 5\)"):
        check_segment(CONTROL, "session id")
    with pytest.raises(InvalidIdError, match="one path segment only"):
        check_segment("../escape", "eval set id")
    with pytest.raises(InvalidIdError, match="at most 10"):
        check_segment("x" * 11, "anything", max_bytes=10)
    assert check_segment("x" * 255, "user id") == "x" * 255
    assert check_case_id("any/text: fine") == "any/text: fine"


def test_every_limit_leaves_room_for_the_file_names_it_derives(tmp_path: Path) -> None:
    # The longest ids are created for real on this file system, lock files included.
    set_id = "s" * SET_MAX
    LocalEvalSetManager(tmp_path).create("a" * 255, set_id)
    LocalMetricManager(tmp_path).add("a" * 255, set_id, EvalMetric(metric_name="response_match_score"))
    LocalEvalResultManager(tmp_path).save(
        "a" * 255, EvalSetResult(eval_set_result_id="r" * RESULT_MAX, eval_set_id="s")
    )
    names = [p.name for p in tmp_path.rglob("*")]
    assert max(len(os.fsencode(n)) for n in names) == 255
    with pytest.raises(OSError) as too_long:  # what the limits guard against
        (tmp_path / ("n" * 256)).touch()
    assert too_long.value.errno == errno.ENAMETOOLONG


class _PrefixLocator:
    """A custom layout that makes every file name 100 bytes longer than the default."""

    def build(self, base_dir: Path, app: str, id: str) -> Path:
        return base_dir / app / f"{'p' * 100}-{id}.evalset.json"

    def list(self, base_dir: Path, app: str) -> list[str]:
        return []


def test_a_custom_layout_too_long_for_an_id_raises_the_project_error(tmp_path: Path) -> None:
    sets = LocalEvalSetManager(tmp_path, locator=_PrefixLocator())
    error = _refused(lambda: sets.create("app", "s" * 200), "eval set id")
    assert error.limit == 136 and "too long for its file name" in str(error)
    sets.create("app", "s" * 136)  # the longest id that fits this layout, lock file included
    results = LocalEvalResultManager(tmp_path, locator=_PrefixLocator())
    _refused(
        lambda: results.save("app", EvalSetResult(eval_set_result_id="r" * 200, eval_set_id="s")), "eval set result id"
    )
