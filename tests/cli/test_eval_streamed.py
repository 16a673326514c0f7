"""``agentgauge eval`` of large inputs: a streamed eval set and a result too large to keep give the same output."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from agentgauge.cli import app
from agentgauge.run import _evaluator as evaluator

runner = CliRunner()


def _trace_case(i: int, answer: str) -> dict[str, Any]:
    turn = {"userContent": {"role": "user", "content": f"q{i}"}}
    return {
        "evalId": f"c{i}",
        "evalMode": "trace",
        "conversation": [{**turn, "finalResponse": {"role": "assistant", "content": f"the answer is {i}"}}],
        "actualConversation": [{**turn, "finalResponse": {"role": "assistant", "content": answer}}],
    }


@pytest.fixture
def inputs(tmp_path: Path) -> Path:
    cases = [_trace_case(i, f"the answer is {i}" if i % 3 else "no idea at all") for i in range(7)]
    (tmp_path / "t.evalset.json").write_text(json.dumps({"evalSetId": "t", "evalCases": cases}))
    (tmp_path / "t.metrics.json").write_text(json.dumps([{"metricName": "response_match_score", "threshold": 0.8}]))
    return tmp_path


def _run(folder: Path, out: str, *extra: str) -> Any:
    reports = ["--junit", f"{out}.xml", "--markdown", f"{out}.md", "--html", f"{out}.html"]
    return runner.invoke(app, ["eval", str(folder / "t.evalset.json"), "--output-dir", str(folder / out),
                               "--parallelism", "3", *reports, *extra])  # fmt: skip


def _normalized(text: str) -> str:
    # The result id and timestamps differ between runs; everything else must not.
    import re

    text = re.sub(r"t_t_[0-9a-f-]{36}", "<id>", text)
    text = re.sub(r"\d{4}-\d\d-\d\dT?\s?\d\d:\d\d:\d\d( UTC)?", "<time>", text)
    text = re.sub(r'"(creationTimestamp|startedAt|finishedAt)": [0-9.e+]+', r'"\1": 0', text)
    text = re.sub(r'"(sessionId|invocationId)": "[^"]*"', r'"\1": ""', text)
    return re.sub(r"Duration: [0-9.]+ s", "Duration: <d>", text).replace("small", "<out>").replace("large", "<out>")


def test_streamed_input_and_result_give_the_same_output(inputs: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(inputs)
    small = _run(inputs, "small", "--print-detailed-results")
    monkeypatch.setenv("AGENTGAUGE_STREAM_MIN_BYTES", "0")  # read the eval set case by case
    monkeypatch.setattr(evaluator, "DEFAULT_MAX_RESULTS_IN_MEMORY", 0)  # keep no case result in memory
    large = _run(inputs, "large", "--print-detailed-results")
    assert small.exit_code == large.exit_code == 1, large.output
    assert _normalized(large.output) == _normalized(small.output)
    for suffix in ("xml", "md", "html"):
        assert _normalized((inputs / f"large.{suffix}").read_text()) == _normalized(
            (inputs / f"small.{suffix}").read_text()
        )
    (small_file,) = (inputs / "small").rglob("*.evalset_result.json")
    (large_file,) = (inputs / "large").rglob("*.evalset_result.json")
    assert _normalized(large_file.read_text()) == _normalized(small_file.read_text())
    as_json = _run(inputs, "large2", "--json")
    assert json.loads(as_json.stdout)["evalSetId"] == "t"
    (saved,) = (inputs / "large2").rglob("*.evalset_result.json")
    assert as_json.stdout == saved.read_text()  # copied from the file, not loaded
