"""``launch.evaluate``: one request run in-process as every delivery runs it -- what it sees of the run, the one
metrics rule, nothing called before everything is checked, the in-memory set of the ADK drop-in and the pytest
plugin, and interrupting a prepared run."""

from __future__ import annotations

import dataclasses
import json
import shutil
from pathlib import Path

import pytest

from agentgauge.errors import InputError
from agentgauge.formats import load_eval_set
from agentgauge.launch import (
    METRICS_FILES,
    EvalRequest,
    EvalSetSpec,
    JudgeOptions,
    RunProgress,
    SetHeading,
    SimulationOptions,
    evaluate,
    evaluate_set,
    prepare,
)
from agentgauge.model import EvalMetric, EvalStatus
from agentgauge.run import EvaluationResult

ROOT = Path(__file__).resolve().parents[2]
CALCULATOR = ROOT / "examples" / "calculator"
AGENT = str(CALCULATOR / "agent.py")
SET = CALCULATOR / "calculator.evalset.json"
TRIP = ROOT / "examples" / "simulation" / "trip.evalset.json"


class _Recorded(RunProgress):
    def __init__(self) -> None:
        self.seen: list[str] = []

    def set_started(self, heading: SetHeading) -> None:
        self.seen.append(f"started {heading}")

    def cases_under_way(self, heading: SetHeading) -> None:
        self.seen.append("under way")

    def advanced(self, done: int, total: int) -> None:
        self.seen.append(f"{done}/{total}")

    def set_finished(self, outcome: EvaluationResult | None) -> None:
        self.seen.append(f"finished {outcome.overall_status.value if outcome is not None else 'by an error'}")


async def test_a_run_reports_its_progress_and_saves_its_result(tmp_path: Path) -> None:
    progress, notes = _Recorded(), list[str]()
    request = EvalRequest(agent=AGENT, sets=(f"{SET}:calc_add,calc_divide",), num_runs=2, output_dir=tmp_path)
    [outcome] = await evaluate(request, progress=progress, on_note=notes.append)
    assert outcome.overall_status is EvalStatus.PASSED and notes == []
    assert progress.seen[0] == f"started calculator ({SET}): metrics from {CALCULATOR / 'calculator.metrics.json'}"
    assert progress.seen[1:3] == ["0/4", "under way"] or progress.seen[1:3] == ["under way", "0/4"]
    assert progress.seen[-2:] == ["4/4", "finished passed"]
    assert outcome.result_path is not None and outcome.result_path.parent == tmp_path / "calculator"
    assert len(outcome.eval_set_result.eval_case_results) == 4


def _set_folder(tmp_path: Path, *files: str) -> Path:
    folder = tmp_path / "sets"
    folder.mkdir()
    shutil.copy(SET, folder / "calculator.evalset.json")
    documents = {
        "calculator.metrics.json": [{"metricName": "tool_trajectory_avg_score", "threshold": 1}],
        "test_config.json": {"criteria": {"response_match_score": 0.5}},
    }
    for name in files:
        if name == "eval_config.yaml":
            (folder / name).write_text("evaluators:\n  - name: response_match_score\n    type: builtin\n")
        else:
            (folder / name).write_text(json.dumps(documents[name]))
    return folder / "calculator.evalset.json"


@pytest.mark.parametrize(
    ("files", "found"),
    [
        (("calculator.metrics.json", "test_config.json", "eval_config.yaml"), "calculator.metrics.json"),
        (("test_config.json", "eval_config.yaml"), "test_config.json"),
        (("eval_config.yaml",), "eval_config.yaml"),
        ((), "ADK default criteria"),
    ],
)
def test_the_one_metrics_rule_finds_the_first_file_beside_the_set(
    tmp_path: Path, files: tuple[str, ...], found: str
) -> None:
    assert METRICS_FILES == ("{id}.metrics.json", "test_config.json", "eval_config.yaml")
    path = _set_folder(tmp_path, *files)
    prepared = prepare(EvalRequest(agent=AGENT, sets=(str(path),), output_dir=tmp_path / "out"))
    expected = found if found == "ADK default criteria" else str(path.parent / found)
    assert [s.heading.metrics_source for s in prepared.sets] == [expected]
    prepared.close()


def test_given_metrics_win_over_every_file(tmp_path: Path) -> None:
    path = _set_folder(tmp_path, "calculator.metrics.json")
    given = (EvalMetric(metric_name="response_match_score", threshold=0.5),)
    prepared = prepare(EvalRequest(agent=AGENT, sets=(str(path),), config=given, output_dir=tmp_path / "out"))
    [set_run] = prepared.sets
    assert set_run.heading.metrics_source == "config" and [m.metric_name for m in set_run.metrics] == [
        "response_match_score"
    ]


@pytest.mark.parametrize(("no_cache", "cache"), [(False, ".judge_cache"), (True, None)])
def test_the_judge_cache_lives_in_the_output_dir_unless_disabled(
    tmp_path: Path, no_cache: bool, cache: str | None
) -> None:
    request = EvalRequest(agent=AGENT, sets=(str(SET),), judge=JudgeOptions(no_cache=no_cache), output_dir=tmp_path)
    settings = request.check().registry().judge_settings
    assert settings is not None and settings.cache_dir == (tmp_path / cache if cache else None)


def test_nothing_is_called_before_everything_is_checked(tmp_path: Path) -> None:
    marker = tmp_path / "agent-imported"
    agent = tmp_path / "agent.py"
    agent.write_text(f"open({str(marker)!r}, 'w').close()\n\nasync def agent(request):\n    return 'x'\n")
    unknown = (EvalMetric(metric_name="no_such_metric", threshold=0.5),)
    with pytest.raises(InputError, match="unknown metric 'no_such_metric'"):
        prepare(EvalRequest(agent=str(agent), sets=(str(SET),), config=unknown, output_dir=tmp_path / "out"))
    assert not marker.exists() and not (tmp_path / "out").exists()


def test_a_scenario_without_a_simulated_user_is_refused_in_the_callers_words(tmp_path: Path) -> None:
    request = EvalRequest(agent=AGENT, sets=(f"{TRIP}:paris_trip",), output_dir=tmp_path)
    with pytest.raises(InputError) as refused:
        prepare(request)
    message = str(refused.value)
    assert message.startswith(f"{TRIP}: case(s) paris_trip have a conversationScenario and need a simulated user")
    assert "simulation=SimulationOptions(" in message and "--" not in message
    given = prepare(
        EvalRequest(
            agent=AGENT,
            sets=(f"{TRIP}:paris_trip",),
            simulation=SimulationOptions(user_simulator=str(TRIP.parent / "simulator.py")),
            output_dir=tmp_path,
        )
    )
    assert given.shared.simulation is not None and given.shared.simulation.user_simulator is not None


async def test_an_in_memory_set_runs_without_writing_anything(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    from agentgauge.agents import load_agent

    eval_set = load_eval_set(SET)
    metrics = [EvalMetric(metric_name="tool_trajectory_avg_score", threshold=1.0)]
    result = await evaluate_set(
        eval_set, metrics, load_agent(AGENT), app_name="pytest", num_runs=2, case_ids=["calc_add"]
    )
    assert [(r.eval_id, r.run_id) for r in result.eval_case_results] == [("calc_add", 1), ("calc_add", 2)]
    assert all(r.final_eval_status is EvalStatus.PASSED for r in result.eval_case_results)
    assert list(tmp_path.iterdir()) == []  # no result file, no judge cache


async def test_an_in_memory_set_finds_its_metrics_beside_its_file(tmp_path: Path) -> None:
    from agentgauge.agents import load_agent

    path = _set_folder(tmp_path, "test_config.json")
    result = await evaluate_set(load_eval_set(path), None, load_agent(AGENT), app_name="t", path=path)
    names = {m.metric_name for r in result.eval_case_results for m in r.overall_eval_metric_results}
    assert "response_match_score" in names and "tool_trajectory_avg_score" not in names  # test_config.json's only


async def test_an_interrupted_prepared_run_starts_no_set(tmp_path: Path) -> None:
    prepared = prepare(EvalRequest(agent=AGENT, sets=(str(SET), str(SET)), output_dir=tmp_path))
    prepared.interrupt()
    assert await prepared.run() == []
    assert not (tmp_path / "calculator").exists()


def test_an_in_memory_spec_is_named_as_given() -> None:
    eval_set = load_eval_set(SET)
    assert EvalSetSpec(eval_set=eval_set).source == "calculator"
    assert EvalSetSpec(SET, eval_set=eval_set, name="calculator/calculator.evalset.json").source == (
        "calculator/calculator.evalset.json"
    )


async def test_a_callers_own_agent_cache_and_source_serve_an_agent_object(tmp_path: Path) -> None:
    from agentgauge.agents import load_agent
    from agentgauge.service import AgentResponseCache

    cache = AgentResponseCache(tmp_path / "cache", "calculator|variant-a")
    request = EvalRequest(
        agent=load_agent(AGENT), sets=(f"{SET}:calc_add",), output_dir=tmp_path, agent_cache=cache, agent_source=AGENT
    )
    [first] = await evaluate(request)
    metadata = first.eval_set_result.run_metadata
    assert metadata is not None and metadata.agent_source_hash  # hashed from the spec, not the object
    [again] = await evaluate(dataclasses.replace(request, record_metadata=False))
    assert cache.hits == 1 and again.eval_set_result.run_metadata is None
    with pytest.raises(InputError, match="needs the agent given by its spec"):
        prepare(dataclasses.replace(request, agent_cache=tmp_path / "folder"))  # a folder keys by the spec
