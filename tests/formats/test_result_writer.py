"""The streaming result writer and reader: same bytes as a whole save, atomic, read back case by case."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parents[1] / "reporting"))

from result_samples import multi_run_result, single_run_result

from agentgauge.formats import load_result, save_result, to_adk_result
from agentgauge.formats._result_stream import NotStreamable, ResultStream, stream_result
from agentgauge.formats._result_writer import ResultWriter
from agentgauge.model import EvalSetResult


def _write(result: EvalSetResult, path: Path, *, split_summaries: bool = False, interrupted: bool = False) -> Path:
    writer = ResultWriter(path, eval_set_id=result.eval_set_id, eval_set_result_id=result.eval_set_result_id,
                          eval_set_result_name=result.eval_set_result_name)  # fmt: skip
    for case in result.eval_case_results:
        writer.add(case)
    summary, per_case = result.summary, []
    if split_summaries and summary is not None:
        per_case, summary = summary.eval_case_summaries, summary.model_copy(update={"eval_case_summaries": []})
    return writer.commit(summary=summary, case_summaries=iter(per_case),
                         creation_timestamp=result.creation_timestamp, interrupted=interrupted)  # fmt: skip


@pytest.mark.parametrize("make", [single_run_result, multi_run_result])
@pytest.mark.parametrize("split", [False, True])
def test_streamed_file_is_byte_identical_to_a_whole_save(make: object, split: bool, tmp_path: Path) -> None:
    result = make()  # type: ignore[operator]
    save_result(result, tmp_path / "whole.json")
    _write(result, tmp_path / "streamed.json", split_summaries=split)
    assert (tmp_path / "streamed.json").read_bytes() == (tmp_path / "whole.json").read_bytes()


def test_empty_result_and_interrupted_flag(tmp_path: Path) -> None:
    result = EvalSetResult(eval_set_id="s", eval_set_result_id="r", eval_set_result_name="r")
    save_result(result, tmp_path / "whole.json")
    assert _write(result, tmp_path / "a.json").read_bytes() == (tmp_path / "whole.json").read_bytes()
    loaded = load_result(_write(result, tmp_path / "b.json", interrupted=True))
    assert loaded.interrupted and loaded.eval_case_results == []
    assert json.loads((tmp_path / "b.json").read_text())["interrupted"] is True
    assert "interrupted" not in json.loads((tmp_path / "a.json").read_text())


def test_nothing_visible_until_commit_and_abort_cleans_up(tmp_path: Path) -> None:
    result = single_run_result()
    target = tmp_path / "out" / "r.json"
    with ResultWriter(target, eval_set_id="s", eval_set_result_id="r") as writer:
        writer.add(result.eval_case_results[0])
        assert not target.exists()  # a reader never sees a torn file
        assert len(list(target.parent.iterdir())) == 1  # only the temporary file
    assert list(target.parent.iterdir()) == []  # left without commit: dropped
    target.write_text("old")
    writer = ResultWriter(target, eval_set_id="s", eval_set_result_id="r")
    writer.add(result.eval_case_results[0])
    writer.abort()
    assert target.read_text() == "old" and len(list(target.parent.iterdir())) == 1


@pytest.mark.parametrize("adk", [False, True])
def test_result_stream_reads_back_every_case(adk: bool, tmp_path: Path) -> None:
    result = multi_run_result()
    path = tmp_path / "r.json"
    if adk:
        path.write_text(json.dumps(to_adk_result(result)))
    else:
        save_result(result, path)
    stream = stream_result(path)
    assert stream is not None
    assert list(stream.cases()) == load_result(path).eval_case_results
    whole = load_result(path).summary
    assert stream.header is not None and stream.header.summary is not None and whole is not None
    # The per-case summary entries are not kept: their statuses are, and they can be read again one by one.
    assert stream.header.summary == whole.model_copy(update={"eval_case_summaries": []})
    assert stream.case_status == {s.eval_id: s.overall_status for s in whole.eval_case_summaries}
    assert list(stream.case_summaries()) == whole.eval_case_summaries
    assert stream.header.eval_case_results == []
    assert list(stream.cases()) == list(stream.cases())  # can be read again


def test_result_stream_refuses_what_the_whole_reader_must_handle(tmp_path: Path) -> None:
    legacy = tmp_path / "legacy.json"
    legacy.write_text(json.dumps(single_run_result().model_dump_json()))
    assert stream_result(legacy) is None  # a JSON string: ADK's legacy form
    broken = tmp_path / "broken.json"
    broken.write_text('{"evalSetId": "s", "evalCaseResults": [{"evalId": "a"}, ')
    with pytest.raises(NotStreamable):
        list(ResultStream(broken).cases())
