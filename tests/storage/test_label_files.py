"""Labels on files: a user's LABELS.jsonl (errors name the file, line and field) and a result's sidecar."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from agentgauge.errors import InputError
from agentgauge.model import HumanLabel, LabelVerdict
from agentgauge.storage import LabelFile, dump_labels, labels_path_for, parse_labels, read_labels


def test_sidecar_is_named_after_the_result() -> None:
    assert labels_path_for("/r/app/x_1.evalset_result.json") == Path("/r/app/x_1.labels.jsonl")
    assert labels_path_for("/r/result.json") == Path("/r/result.labels.jsonl")


def test_both_spellings_and_blank_lines() -> None:
    data = (
        b'{"evalId": "a", "metricName": "m", "verdict": "pass", "note": "ok", "author": "maria"}\n'
        b"\n"
        b'{"eval_id": "b", "metric_name": "m", "verdict": "disagree", "judge_verdict": "fail", "invocation": 2}\n'
    )
    first, second = parse_labels(data, "LABELS.jsonl")
    assert (first.eval_id, first.verdict, first.note, first.author) == ("a", LabelVerdict.PASS, "ok", "maria")
    assert (second.invocation, second.human_passes()) == (2, True)


@pytest.mark.parametrize(
    ("line", "message"),
    [
        (b"{not json", "LABELS.jsonl: line 2: invalid JSON"),
        (b"[1]", "LABELS.jsonl: line 2: expected a JSON object (one label per line)"),
        (b'{"evalId": "a", "metricName": "m"}', "LABELS.jsonl: line 2.verdict: missing required field"),
        (b'{"evalId": "a", "metricName": "m", "verdict": "maybe"}', "LABELS.jsonl: line 2.verdict: input should be"),
        (
            b'{"evalId": "a", "metricName": "m", "verdict": "pass", "invocation": 0}',
            "LABELS.jsonl: line 2.invocation: input should be greater than or equal to 1",
        ),
        (
            b'{"evalId": "a", "metricName": "m", "verdict": "agree"}',
            "LABELS.jsonl: line 2: verdict 'agree' needs judgeVerdict",
        ),
        (
            b'{"evalId": "", "metricName": "m", "verdict": "pass"}',
            "LABELS.jsonl: line 2.evalId: string should have at least 1 character",
        ),
    ],
)
def test_a_bad_line_names_the_file_line_and_field(line: bytes, message: str) -> None:
    good = b'{"evalId": "a", "metricName": "m", "verdict": "fail"}\n'
    with pytest.raises(InputError) as caught:
        parse_labels(good + line + b"\n", "LABELS.jsonl")
    assert str(caught.value).startswith(message)


def test_a_missing_file_is_an_input_error(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="file not found"):
        read_labels(tmp_path / "LABELS.jsonl")


names = st.text(st.characters(blacklist_categories=("Cs",)), min_size=1, max_size=30)
labels = st.builds(
    HumanLabel,
    eval_id=names,
    metric_name=names,
    verdict=st.sampled_from([LabelVerdict.PASS, LabelVerdict.FAIL]),
    eval_set_id=st.text(max_size=10),
    run_id=st.none() | st.integers(1, 9),
    invocation=st.none() | st.integers(1, 9),
    note=st.text(st.characters(blacklist_categories=("Cs",)), max_size=50),
    labelled_at=st.none() | st.floats(0, 2e9),
)


@given(st.lists(labels, max_size=5))
def test_dump_and_parse_round_trip(given_labels: list[HumanLabel]) -> None:
    assert parse_labels(dump_labels(given_labels), "x") == given_labels


def test_sidecar_put_replaces_by_key_and_leaves_the_result_file_alone(tmp_path: Path) -> None:
    result = tmp_path / "r.evalset_result.json"
    result.write_bytes(b'{"evalSetId": "s"}\n')
    sidecar = LabelFile(result)
    assert sidecar.read() == []
    sidecar.put(HumanLabel(eval_id="a", metric_name="m", verdict="pass"))
    sidecar.put(HumanLabel(eval_id="a", metric_name="m", verdict="pass", invocation=1))
    stored = sidecar.put(HumanLabel(eval_id="a", metric_name="m", verdict="fail", note="changed my mind"))
    assert [(s.invocation, s.verdict, s.note) for s in stored] == [(1, "pass", ""), (None, "fail", "changed my mind")]
    assert read_labels(tmp_path / "r.labels.jsonl") == stored
    assert result.read_bytes() == b'{"evalSetId": "s"}\n'
    assert sidecar.delete(lambda label: label.invocation is None) == 1
    assert [s.invocation for s in sidecar.read()] == [1]
    assert sidecar.delete(lambda label: False) == 0


def test_concurrent_puts_keep_every_label(tmp_path: Path) -> None:
    sidecar = LabelFile(tmp_path / "r.evalset_result.json")

    def put(i: int) -> None:
        LabelFile(tmp_path / "r.evalset_result.json").put(HumanLabel(eval_id=f"c{i}", metric_name="m", verdict="pass"))

    threads = [threading.Thread(target=put, args=(i,)) for i in range(12)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(label.eval_id for label in sidecar.read()) == sorted(f"c{i}" for i in range(12))
