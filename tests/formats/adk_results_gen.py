"""Result files written by Google ADK itself, for the reader tests.

Every shape an ADK 2.13 result file can take is built from ADK's own pydantic models (EvalCaseResult,
EvalMetricResult with and without details, rubric scores ``None`` and populated, token/duration details,
per-invocation results with and without an expected invocation, both intermediate-data forms, tool calls with
``args`` absent/``{}``, session details with events, the deprecated fields) and saved by ADK's own
``LocalEvalSetResultsManager``, exactly as ``adk eval`` saves them. The clock is pinned so the files are
reproducible. ``legacy_double_encoded`` is the form ADK wrote before 1.22: the JSON text wrapped in a JSON string.

Run ``python tests/formats/adk_results_gen.py`` (with google-adk installed) to rewrite the committed files in
``tests/formats/data/adk_results/``; ``test_fmt_adk_results.py`` regenerates them live and compares.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any
from unittest import mock

DATA_DIR = Path(__file__).parent / "data" / "adk_results"
APP = "weather_app"
CLOCK = 1761134484.5


def _content(role: str, *parts: Any) -> Any:
    from google.genai import types

    return types.Content(role=role, parts=list(parts))


def _text(text: str) -> Any:
    from google.genai import types

    return types.Part(text=text)


def _invocations() -> tuple[Any, Any, Any]:
    """An expected invocation (tool_uses form), its actual counterpart (invocation events form) and a bare one."""
    from google.adk.evaluation import app_details, eval_case, eval_rubrics
    from google.genai import types

    expected = eval_case.Invocation(
        invocation_id="e-1",
        user_content=_content("user", _text("Weather in Paris?")),
        final_response=_content("model", _text("It is sunny in Paris.")),
        intermediate_data=eval_case.IntermediateData(
            tool_uses=[
                types.FunctionCall(id="c1", name="get_weather", args={"city": "Paris"}),
                types.FunctionCall(id="c2", name="get_time"),  # no args: None, not {}
                types.FunctionCall(id="c3", name="list_cities", args={}),
            ],
            tool_responses=[types.FunctionResponse(id="c1", name="get_weather", response={"sky": "sunny"})],
            intermediate_responses=[("planner", [_text("Looking it up.")])],
        ),
        creation_timestamp=CLOCK,
        rubrics=[
            eval_rubrics.Rubric(
                rubric_id="r1",
                rubric_content=eval_rubrics.RubricContent(text_property="Mentions the city."),
                type="FINAL_RESPONSE_QUALITY",
            )
        ],
    )
    actual = eval_case.Invocation(
        invocation_id="a-1",
        user_content=_content("user", _text("Weather in Paris?")),
        final_response=_content("model", _text("Sunny."), _text("In Paris.")),
        intermediate_data=eval_case.InvocationEvents(
            invocation_events=[
                eval_case.InvocationEvent(
                    author="weather_agent",
                    content=_content(
                        "model", types.Part(function_call=types.FunctionCall(id="c1", name="get_weather", args={}))
                    ),
                ),
                eval_case.InvocationEvent(
                    author="weather_agent",
                    content=_content(
                        "user",
                        types.Part(
                            function_response=types.FunctionResponse(id="c1", name="get_weather", response={"sky": 1})
                        ),
                    ),
                ),
                eval_case.InvocationEvent(author="weather_agent", content=_content("model", _text("Checking."))),
            ]
        ),
        creation_timestamp=CLOCK,
        duration=1.25,
        model_duration=0.75,
        tool_duration=0.5,
        app_details=app_details.AppDetails(
            agent_details={
                "weather_agent": app_details.AgentDetails(
                    name="weather_agent", instructions="Answer about the weather.", tool_declarations=[]
                )
            }
        ),
    )
    bare = eval_case.Invocation(user_content=_content("user", _text("hi")))
    return expected, actual, bare


def _metric(name: str, **fields: Any) -> Any:
    from google.adk.evaluation import eval_metrics

    return eval_metrics.EvalMetricResult(metric_name=name, **fields)


def _status(name: str) -> Any:
    from google.adk.evaluation import eval_metrics

    return eval_metrics.EvalStatus[name]


def _results() -> dict[str, list[Any]]:
    """File name -> the eval case results ADK saves in it."""
    from google.adk.evaluation import eval_metrics, eval_result, eval_rubrics
    from google.adk.events import Event
    from google.adk.sessions import Session
    from google.genai import types

    em = eval_metrics
    expected, actual, bare = _invocations()
    trajectory = _metric(
        "tool_trajectory_avg_score",
        threshold=1.0,
        criterion=em.ToolTrajectoryCriterion(threshold=1.0, match_type=em.ToolTrajectoryCriterion.MatchType.IN_ORDER),
        score=0.0,
        eval_status=_status("FAILED"),
    )
    response = _metric("response_match_score", threshold=0.8, score=0.9, eval_status=_status("PASSED"))
    rubric_criterion = em.RubricsBasedCriterion(
        threshold=0.5,
        rubrics=[
            eval_rubrics.Rubric(rubric_id="r1", rubric_content=eval_rubrics.RubricContent(text_property="Polite."))
        ],
        judge_model_options=em.JudgeModelOptions(judge_model="gemini-2.5-flash", num_samples=2),
    )
    rubric = _metric(
        "rubric_based_final_response_quality_v1",
        threshold=0.5,
        criterion=rubric_criterion,
        score=0.5,
        eval_status=_status("PASSED"),
        details=em.EvalMetricResultDetails(
            rubric_scores=[
                eval_rubrics.RubricScore(rubric_id="r1", rationale="It greets the user.", score=1.0),
                eval_rubrics.RubricScore(rubric_id="r2", rationale=None, score=None),
                eval_rubrics.RubricScore(rubric_id="r3", score=0.0),
            ]
        ),
    )
    efficiency = _metric(
        "token_usage_v1",
        score=1200.0,
        eval_status=_status("INFORMATIONAL"),
        details=em.EvalMetricResultDetails(
            token_usage_details=em.TokenUsageDetails(total_tokens=1200, input_tokens=1000, output_tokens=200),
            duration_details=em.DurationDetails(total_seconds=1.25, model_seconds=0.75, tool_seconds=0.5),
        ),
    )
    judge = _metric(
        "final_response_match_v2",
        threshold=0.6,
        criterion=em.LlmAsAJudgeCriterion(
            threshold=0.6, judge_model_options=em.JudgeModelOptions(judge_model="gemini-2.5-flash")
        ),
        score=None,
        eval_status=_status("NOT_EVALUATED"),
        details=em.EvalMetricResultDetails(rubric_scores=[]),
    )
    custom = _metric(
        "my_custom_metric",
        threshold=0.5,
        custom_function_path="my_pkg.metrics.score",
        score=0.75,
        eval_status=_status("PASSED"),
    )
    session = Session(
        id="session-1",
        app_name=APP,
        user_id="user-1",
        state={"units": "metric"},
        events=[
            Event(
                id="ev-1",
                invocation_id="a-1",
                author="user",
                timestamp=CLOCK,
                content=_content("user", _text("Weather in Paris?")),
            ),
            Event(
                id="ev-2",
                invocation_id="a-1",
                author="weather_agent",
                timestamp=CLOCK + 1,
                content=_content("model", types.Part(function_call=types.FunctionCall(id="c1", name="get_weather"))),
            ),
        ],
        last_update_time=CLOCK + 1,
    )
    full = eval_result.EvalCaseResult(
        eval_set_id="weather",
        eval_id="paris",
        final_eval_status=_status("FAILED"),
        overall_eval_metric_results=[trajectory, response, rubric, efficiency, judge, custom],
        eval_metric_result_per_invocation=[
            em.EvalMetricResultPerInvocation(
                actual_invocation=actual,
                expected_invocation=expected,
                eval_metric_results=[trajectory, response, rubric, efficiency, judge, custom],
            ),
            em.EvalMetricResultPerInvocation(actual_invocation=bare, eval_metric_results=[efficiency]),
        ],
        session_id="session-1",
        session_details=session,
        user_id="user-1",
    )
    minimal = eval_result.EvalCaseResult(
        eval_id="empty",
        final_eval_status=_status("NOT_EVALUATED"),
        overall_eval_metric_results=[_metric("response_match_score", eval_status=_status("NOT_EVALUATED"))],
        eval_metric_result_per_invocation=[],
        session_id="",
    )
    deprecated = eval_result.EvalCaseResult(
        eval_set_file="weather.evalset.json",
        eval_set_id="weather",
        eval_id="old_style",
        final_eval_status=_status("PASSED"),
        eval_metric_results=[
            (em.EvalMetric(metric_name="response_match_score", threshold=0.8), response),
        ],
        overall_eval_metric_results=[response],
        eval_metric_result_per_invocation=[
            em.EvalMetricResultPerInvocation(
                actual_invocation=bare, expected_invocation=bare, eval_metric_results=[response]
            )
        ],
        session_id="session-2",
    )
    return {
        "full": [full],
        "minimal": [minimal],
        "deprecated_fields": [deprecated],
        "all_cases": [full, minimal, deprecated],
        "no_cases": [],
    }


def generate(directory: Path) -> dict[str, Path]:
    """Write every shape with ADK's ``LocalEvalSetResultsManager`` into ``directory``; name -> file."""
    import warnings

    from google.adk.evaluation import _eval_set_results_manager_utils as utils
    from google.adk.evaluation.local_eval_set_results_manager import LocalEvalSetResultsManager

    directory.mkdir(parents=True, exist_ok=True)
    out: dict[str, Path] = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the deprecated fields are set on purpose
        shapes = _results()
    for name, cases in shapes.items():
        agents_dir = directory / ".adk" / name
        manager = LocalEvalSetResultsManager(agents_dir=str(agents_dir))
        with mock.patch.object(utils.time, "time", return_value=CLOCK), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            manager.save_eval_set_result(APP, "weather", cases)
        [written] = (agents_dir / APP / ".adk" / "eval_history").glob("*.evalset_result.json")
        target = directory / f"{name}.evalset_result.json"
        written.replace(target)
        out[name] = target
    # ADK before 1.22 saved json.dumps(model_dump_json()): a JSON string holding the result JSON.
    legacy = directory / "legacy_double_encoded.evalset_result.json"
    legacy.write_text(json.dumps(out["full"].read_text()), encoding="utf-8")
    out["legacy_double_encoded"] = legacy
    _remove_tree(directory / ".adk")
    return out


def _remove_tree(path: Path) -> None:
    import shutil

    shutil.rmtree(path, ignore_errors=True)


if __name__ == "__main__":
    for name, path in generate(Path(sys.argv[1]) if len(sys.argv) > 1 else DATA_DIR).items():
        print(f"{name}: {path}")
