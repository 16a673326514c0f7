"""Resuming: a request that would not continue the interrupted run it names is refused before the agent is called,
naming the option as the caller spells it (the end-to-end kill-and-resume runs are in ``tests/cli``)."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

from agentgauge.errors import InputError
from agentgauge.launch import COMMAND_LINE, EvalRequest, RunProgress, SetHeading, evaluate
from agentgauge.run import EvaluationResult

AGENT = """
from pathlib import Path


def agent(request):
    with open(Path(__file__).with_name("calls.txt"), "a") as calls:
        calls.write(request.user_content.content + "\\n")
    return "echo: " + request.user_content.content
"""
HEADER = {"agentgaugeProgress": 1, "evalSetResultId": "slow_slow_x1", "evalSetId": "slow", "numRuns": 2}


@pytest.fixture
def interrupted(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The progress log of an interrupted two-run run of eval set ``slow`` (three cases) under ``out/``."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "echo_agent.py").write_text(AGENT)  # not agent.py: examples import theirs by that name
    cases = [{"evalId": f"c{i}", "conversation": [{"userContent": {"content": f"q{i}"}}]} for i in range(3)]
    (tmp_path / "slow.evalset.json").write_text(json.dumps({"evalSetId": "slow", "evalCases": cases}))
    (tmp_path / "slow.metrics.json").write_text(json.dumps([{"metricName": "response_match_score", "threshold": 0.5}]))
    log = tmp_path / "out" / "slow" / "slow_slow_x1.progress.jsonl"
    log.parent.mkdir(parents=True)
    log.write_text(json.dumps(HEADER) + "\n")
    return log


BASE = EvalRequest(agent="echo_agent.py", sets=("slow.evalset.json",), output_dir=Path("out"), surface=COMMAND_LINE)


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"resume": "slow_slow_x1"}, "--num-runs 2; resume it with the same value, not 1"),
        ({"resume": "nope"}, "--resume nope: no such file, and no interrupted run with this id in out/slow"),
        ({"resume": "LOG", "output_dir": Path(".agentgauge/results")}, "; run with --output-dir out (and the same"),
        ({"resume": "slow_slow_x1", "sets": ("slow.evalset.json", "slow.evalset.json")}, "--resume continues one"),
    ],
)
async def test_resume_refuses_a_run_it_does_not_continue(
    interrupted: Path, fields: dict[str, object], message: str
) -> None:
    if fields.get("resume") == "LOG":
        fields = {**fields, "resume": str(interrupted)}
    with pytest.raises(InputError) as refused:
        await evaluate(dataclasses.replace(BASE, **fields))  # type: ignore[arg-type]
    assert message in str(refused.value), str(refused.value)
    assert not Path("calls.txt").exists()  # nothing ran
    assert interrupted.read_text() == json.dumps(HEADER) + "\n"


class _Ends(RunProgress):
    def __init__(self) -> None:
        self.seen: list[str] = []

    def set_started(self, heading: SetHeading) -> None:
        self.seen.append("started")

    def set_finished(self, outcome: EvaluationResult | None) -> None:
        self.seen.append("finished" if outcome is not None else "ended by an error")


async def test_a_set_whose_run_is_refused_still_ends_its_progress(interrupted: Path) -> None:
    progress = _Ends()
    with pytest.raises(InputError, match="resume it with the same value"):
        await evaluate(dataclasses.replace(BASE, resume="slow_slow_x1"), progress=progress)
    assert progress.seen == ["started", "ended by an error"]  # the terminal's bar and Ctrl-C handler are put away
