"""A case result handed over as indented JSON (as a remote worker sends it) reaches the progress log and the result
file exactly as one handed over as an object does."""

from __future__ import annotations

from pathlib import Path

import orjson

from agentgauge.model import EvalCaseResult, EvalStatus
from agentgauge.run._collector import _Collector
from agentgauge.run._resume import ProgressLog, read_progress
from agentgauge.service import CompactResult, case_row


def _result(eval_id: str) -> EvalCaseResult:
    return EvalCaseResult(
        eval_set_id="s",
        eval_id=eval_id,
        run_id=1,
        final_eval_status=EvalStatus.FAILED,
        error_message='line one\nline two: "quoted"  indented',  # escaped line breaks must survive
    )


def _log(path: Path) -> ProgressLog:
    return ProgressLog(path, eval_set_result_id="r", eval_set_id="s", app_name="a", num_runs=1, metrics="m")


def test_add_json_writes_the_same_record_as_add(tmp_path: Path) -> None:
    folder = tmp_path
    by_object, by_json = _log(folder / "a.progress.jsonl"), _log(folder / "b.progress.jsonl")
    first, second = _result("x"), _result("y")
    for result in (first, second):
        by_object.add(result)
        by_json.add_json(orjson.dumps(result.model_dump(mode="json"), option=orjson.OPT_INDENT_2))
    by_object.close(remove=False)
    by_json.close(remove=False)

    lines = (folder / "b.progress.jsonl").read_bytes().splitlines()
    assert len(lines) == 3  # the header and one line per result
    assert [orjson.loads(line) for line in lines[1:]] == [
        orjson.loads(line) for line in (folder / "a.progress.jsonl").read_bytes().splitlines()[1:]
    ]
    _, results = read_progress(folder / "b.progress.jsonl")
    assert results == [first, second]


class _StoreWriter:
    """A writer without a JSON document, as a SQL store's: it takes results only."""

    def __init__(self) -> None:
        self.added: list[EvalCaseResult] = []

    def add(self, case: EvalCaseResult) -> None:
        self.added.append(case)


def test_a_compact_result_reaches_a_writer_without_add_json() -> None:
    result = _result("x")
    detail = orjson.dumps(result.model_dump(mode="json"), option=orjson.OPT_INDENT_2)
    writer = _StoreWriter()
    collector = _Collector(writer, keep_full=False)  # type: ignore[arg-type]
    collector.add(0, CompactResult(case_row(result), detail))
    assert writer.added == [result]
    assert list(collector.rows) == [case_row(result)]
