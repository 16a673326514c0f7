"""The run's collector hands case results on in eval-set order, whatever order they finish in; what does not depend
on that order (the compact row, the case's JSON) is made as each case finishes."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import agentgauge.formats._result_writer as result_writer
from agentgauge.formats import save_result
from agentgauge.formats._result_writer import ResultWriter
from agentgauge.model import EvalCaseResult, EvalSetResult, EvalStatus
from agentgauge.run._collector import _Collector
from agentgauge.service import case_row


def _result(eval_id: str, status: EvalStatus) -> EvalCaseResult:
    return EvalCaseResult(
        eval_set_id="s",
        eval_id=eval_id,
        run_id=1,
        final_eval_status=status,
        error_message=None if status is EvalStatus.PASSED else f'{eval_id} failed:\n  "why" [x]',
    )


_RESULTS = [_result(f"case{i}", EvalStatus.PASSED if i % 2 else EvalStatus.FAILED) for i in range(6)]


@pytest.mark.parametrize("finish_order", [[0, 1, 2, 3, 4, 5], [5, 4, 3, 2, 1, 0], [2, 0, 5, 1, 4, 3]])
def test_results_finishing_in_any_order_give_the_same_file_as_a_whole_save(
    tmp_path: Path, finish_order: list[int]
) -> None:
    streamed = tmp_path / "streamed.json"
    writer = ResultWriter(streamed, eval_set_id="s", eval_set_result_id="r", durable=False)
    collector = _Collector(writer, keep_full=True)
    for seq in finish_order:
        result = _RESULTS[seq]
        collector.add(seq, result, result.model_dump(mode="json") if seq % 2 else None)
    writer.commit()
    whole = tmp_path / "whole.json"
    save_result(EvalSetResult(eval_set_result_id="r", eval_set_id="s", eval_case_results=_RESULTS), whole)
    assert streamed.read_bytes() == whole.read_bytes()
    assert list(collector.rows) == [case_row(r) for r in _RESULTS]
    assert collector.full == _RESULTS


def test_a_case_is_encoded_when_it_finishes_not_when_its_turn_comes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    encoded: list[str] = []
    real = result_writer.case_json

    def counting(document: dict[str, Any]) -> bytes:
        encoded.append(document["evalId"])
        return real(document)

    monkeypatch.setattr(result_writer, "case_json", counting)
    writer = ResultWriter(tmp_path / "r.json", eval_set_id="s", eval_set_result_id="r", durable=False)
    collector = _Collector(writer, keep_full=False)
    collector.add(2, _RESULTS[2])
    collector.add(1, _RESULTS[1])
    # Both wait for case 0, already encoded (after the last agent answer only the waiting is left to do).
    assert encoded == ["case2", "case1"]
    assert writer.count == 0 and len(collector.rows) == 0
    collector.add(0, _RESULTS[0])
    assert encoded == ["case2", "case1", "case0"]
    assert writer.count == 3 and [row.eval_id for row in collector.rows] == ["case0", "case1", "case2"]
    writer.abort()
