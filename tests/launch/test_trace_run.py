"""The one trace flow: conversations read from a trace file and conversations received elsewhere (a live session)
are paired, scored and named the same way."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from agentgauge.errors import InputError
from agentgauge.launch import HTTP_API, EvalRequest, EvalSetSpec, RecordedTraces, evaluate, prepare
from agentgauge.model import EvalMetric
from agentgauge.run import EvaluationResult
from agentgauge.traces import read_conversations

TRACES = Path(__file__).resolve().parents[2] / "examples" / "traces"
WEATHER = TRACES / "weather.evalset.json"


def _scores(outcome: EvaluationResult) -> dict[str, dict[str, float | None]]:
    return {
        case.eval_id: {m.metric_name: m.score for m in case.overall_eval_metric_results}
        for case in outcome.eval_set_result.eval_case_results
    }


async def test_received_conversations_score_as_the_trace_files_they_came_from(tmp_path: Path) -> None:
    notes: list[str] = []
    [from_files] = await evaluate(
        EvalRequest(traces=TRACES, sets=(str(WEATHER),), output_dir=tmp_path / "files"), on_note=notes.append
    )
    received = RecordedTraces(tuple(read_conversations(TRACES).conversations), "live_x")
    prepared = prepare(EvalRequest(traces=received, sets=(EvalSetSpec(WEATHER),), output_dir=tmp_path / "live"))
    [set_run] = prepared.sets
    [from_memory] = await prepared.run()
    assert _scores(from_memory) == _scores(from_files) and len(_scores(from_files)) == 2
    assert sorted(set_run.matches) == [
        ("weather_oslo_lisbon", "user text"),
        ("weather_two_cities", "eval id attribute"),
    ]
    assert sorted(note.split(" -> ")[1] for note in notes) == [
        "case weather_oslo_lisbon (by user text)",
        "case weather_two_cities (by eval id attribute)",
    ]
    assert prepared.app_name == from_files.app_name == "weather_agent"


async def test_reference_free_metrics_score_received_conversations_under_their_own_set(tmp_path: Path) -> None:
    received = RecordedTraces(tuple(read_conversations(TRACES / "adk_weather.otlp.jsonl").conversations), "live_k")
    counted = (EvalMetric(metric_name="tool_call_count_v1"),)
    [outcome] = await evaluate(EvalRequest(traces=received, config=counted, output_dir=tmp_path))
    assert outcome.eval_set_id == "live_k" and set(_scores(outcome)) == {"weather_two_cities"}


_NO_SET = (
    "no eval set: give one (appName and evalSetId) to compare the traces with expected conversations, or metrics "
    "with reference-free metrics"
)
_EXPECTED = "metrics: metric(s) response_match_score compare with expected data: give an eval set (appName and"


@pytest.mark.parametrize(
    ("config", "message"),
    [(None, _NO_SET), ((EvalMetric(metric_name="response_match_score", threshold=0.5),), _EXPECTED)],
)
def test_a_reference_free_run_needs_reference_free_metrics(
    tmp_path: Path, config: tuple[EvalMetric, ...] | None, message: str
) -> None:
    received = RecordedTraces(tuple(read_conversations(TRACES / "adk_weather.otlp.jsonl").conversations), "live_k")
    with pytest.raises(InputError) as refused:
        prepare(EvalRequest(traces=received, config=config, output_dir=tmp_path, surface=HTTP_API))
    assert str(refused.value).startswith(message)


def _six_case_set(tmp_path: Path) -> Path:
    """The weather set with four more cases no recorded trace names or asks."""
    data = json.loads(WEATHER.read_text(encoding="utf-8"))
    first = data["evalCases"][0]
    for n in range(4):
        extra = copy.deepcopy(first)
        extra["evalId"] = f"weather_unrecorded_{n}"
        extra["conversation"][0]["userContent"]["content"] = f"Is it snowing in city {n}?"
        data["evalCases"].append(extra)
    path = tmp_path / "six.evalset.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


async def test_cases_without_a_trace_are_listed_as_not_run_and_required_cases_fail(tmp_path: Path) -> None:
    six = _six_case_set(tmp_path)
    one = RecordedTraces(tuple(read_conversations(TRACES / "adk_weather.otlp.jsonl").conversations), "one")
    notes: list[str] = []
    [outcome] = await evaluate(EvalRequest(traces=one, sets=(str(six),), output_dir=tmp_path), on_note=notes.append)
    assert set(_scores(outcome)) == {"weather_two_cities"}
    [missing] = [note for note in notes if "not run" in note]
    unrecorded = ", ".join(f"weather_unrecorded_{n}" for n in range(4))
    assert missing == f"note: 5 case(s) not run: no trace: weather_oslo_lisbon, {unrecorded}"
    # A received session is one conversation: the other cases are not counted as missing from its result ...
    assert outcome.result_header.summary is not None and outcome.result_header.summary.cases_not_run == []
    # ... while a trace file scored against the set counts each case without a trace in the result.
    [from_file] = await evaluate(
        EvalRequest(traces=TRACES / "adk_weather.otlp.jsonl", sets=(str(six),), output_dir=tmp_path / "file")
    )
    summary = from_file.result_header.summary
    assert summary is not None
    assert [(c.eval_id, c.reason) for c in summary.cases_not_run] == [
        ("weather_oslo_lisbon", "no trace"),
        *((f"weather_unrecorded_{n}", "no trace") for n in range(4)),
    ]
    with pytest.raises(InputError, match=r"5 case\(s\) of eval set '.*' have no trace: weather_oslo_lisbon, ") as err:
        prepare(EvalRequest(traces=one, sets=(str(six),), output_dir=tmp_path, require_all_cases=True))
    assert err.value.file == str(six) and "require_all_cases" in str(err.value)
    with pytest.raises(InputError, match="require_all_cases are only used with traces"):
        prepare(EvalRequest(sets=(str(six),), require_all_cases=True))
