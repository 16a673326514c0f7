"""What an optimisation reads: ``--budget``, ADK's sampler and optimizer config files, split specs, plug-in
optimisers and the case records the reflection model gets; every bad input is one message naming where."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from agentgauge.errors import InputError
from agentgauge.model import (
    EvalCaseResult,
    EvalMetricResult,
    EvalMetricResultDetails,
    EvalMetricResultPerInvocation,
    EvalStatus,
    Invocation,
    Message,
)
from agentgauge.optimize import (
    Budget,
    generation_settings,
    load_optimizer,
    load_optimizer_config,
    load_sampler_config,
    parse_split,
)
from agentgauge.optimize._feedback import MAX_FIELD_CHARS, case_feedback, case_score


@pytest.mark.parametrize(
    ("values", "expected"),
    [
        ((), Budget()),
        (("calls=200",), Budget(200)),
        (("calls=10,cost=1.5,time=90",), Budget(10, 1.5, 90.0)),
        (("cost=0.2", "time=15m"), Budget(None, 0.2, 900.0)),
        (("time=2h",), Budget(None, None, 7200.0)),
        (("metric_calls=5, seconds=30s",), Budget(5, None, 30.0)),
    ],
)
def test_budgets(values: tuple[str, ...], expected: Budget) -> None:
    assert Budget.parse(values) == expected


@pytest.mark.parametrize(
    ("values", "message"),
    [
        (("calls",), "--budget: expected calls=N, cost=X or time=T, got 'calls'"),
        (("money=3",), "--budget: expected calls=N, cost=X or time=T, got 'money=3'"),
        (("calls=1", "calls=2"), "--budget: calls is given twice"),
        (("calls=0",), "--budget: calls must be a whole number of at least 1, got '0'"),
        (("calls=1.5",), "--budget: calls must be a whole number of at least 1, got '1.5'"),
        (("cost=-1",), "--budget: cost must be a positive number, got '-1'"),
        (("cost=nan",), "--budget: cost must be a positive number, got 'nan'"),
        (("cost=inf",), "--budget: cost must be a positive number, got 'inf'"),
        (("time=soon",), "--budget: time must be like 90, 90s, 15m or 2h, got 'soon'"),
    ],
)
def test_bad_budgets(values: tuple[str, ...], message: str) -> None:
    with pytest.raises(InputError) as info:
        Budget.parse(values)
    assert str(info.value) == message


def test_adk_sampler_and_optimizer_configs(tmp_path: Path) -> None:
    sampler = tmp_path / "sampler.json"
    sampler.write_text(
        json.dumps(
            {
                "eval_config": {"criteria": {"tool_trajectory_avg_score": 1.0, "response_match_score": 0.8}},
                "app_name": "app",
                "train_eval_set": "train",
                "train_eval_case_ids": ["a", "b"],
            }
        )
    )
    config = load_sampler_config(sampler)
    assert config.train_eval_case_ids == ["a", "b"] and config.validation_eval_set is None
    names = [m.metric_name for m in config.metrics(str(sampler))]
    assert names[:2] == ["tool_trajectory_avg_score", "response_match_score"]  # then ADK's informational metrics
    optimizer = tmp_path / "gepa.json"
    optimizer.write_text(
        json.dumps(
            {
                "optimizer_model": "gemini-2.5-flash",
                "model_configuration": {"temperature": 0.7, "maxOutputTokens": 2048, "thinking_config": {}},
                "max_metric_calls": 50,
                "reflection_minibatch_size": 4,
                "run_dir": "gepa-run",
                "max_metric_call": 3,
            }
        )
    )
    read = load_optimizer_config(optimizer)
    assert (read.optimizer_model, read.max_metric_calls, read.reflection_minibatch_size) == ("gemini-2.5-flash", 50, 4)
    assert read.unknown_keys == ["max_metric_call"]
    assert generation_settings(read.model_configuration) == {"temperature": 0.7, "max_tokens": 2048}


@pytest.mark.parametrize(
    ("document", "message"),
    [
        ({"app_name": "a", "train_eval_set": "t"}, "sampler.json: eval_config: missing required field"),
        ({"eval_config": {}, "app_name": "a"}, "sampler.json: train_eval_set: missing required field"),
        (
            {"eval_config": {}, "app_name": "a", "train_eval_set": "t", "train_eval_case_ids": []},
            "sampler.json: train_eval_case_ids: must not be empty",
        ),
        (
            {"eval_config": {"criteria": {"x": "high"}}, "app_name": "a", "train_eval_set": "t"},
            "sampler.json: eval_config.criteria.x: expected a number (got 'high')",
        ),
    ],
)
def test_bad_sampler_configs(tmp_path: Path, document: dict[str, object], message: str) -> None:
    sampler = tmp_path / "sampler.json"
    sampler.write_text(json.dumps(document))
    with pytest.raises(InputError) as info:
        load_sampler_config(sampler).metrics(str(sampler))
    assert str(info.value).replace(f"{tmp_path}/", "").startswith(message), str(info.value)


def test_bad_optimizer_config(tmp_path: Path) -> None:
    path = tmp_path / "gepa.json"
    path.write_text('{"max_metric_calls": 0}')
    with pytest.raises(
        InputError, match=re.escape("gepa.json: max_metric_calls: input should be greater than or equal to 1")
    ):
        load_optimizer_config(path)


def test_split_specs(tmp_path: Path) -> None:
    odd = tmp_path / "a:b.json"
    odd.write_text("{}")
    assert parse_split(str(odd)).path == odd and parse_split(str(odd)).case_ids == ()
    spec = parse_split("sets/x.evalset.json:c1, c2")
    assert spec.path == Path("sets/x.evalset.json") and spec.case_ids == ("c1", "c2")


def test_plugin_optimizers(tmp_path: Path) -> None:
    plugin = tmp_path / "plug.py"
    plugin.write_text(
        "class Good:\n    name = 'good'\n    async def search(self, session):\n        return None\n"
        "class Sync:\n    name = 'sync'\n    def search(self, session):\n        return None\n"
        "def boom():\n    raise RuntimeError('no')\n"
    )
    assert load_optimizer(f"{plugin}:Good").name == "good"
    for spec, message in (
        ("nope", "--optimizer: unknown optimizer 'nope'; choose gepa, simple or module:attribute"),
        (f"{plugin}:Sync", "not an optimizer: it needs a name and an async search(session) method"),
        (f"{plugin}:boom", "could not make the optimizer: RuntimeError: no"),
        (f"{plugin}:Missing", "defines no `Missing`"),
        (f"{tmp_path}/gone.py:X", "optimizer file not found"),
        ("no_such_module_xyz:thing", "cannot load the optimizer: ModuleNotFoundError"),
    ):
        with pytest.raises(InputError) as info:
            load_optimizer(spec)
        assert message in str(info.value), str(info.value)


def test_the_record_of_a_case_is_bounded_and_says_why_it_failed() -> None:
    long = "x" * (MAX_FIELD_CHARS * 3)
    turn = Invocation(user_content=Message(content=long), final_response=Message(role="assistant", content="no"))
    expected = Invocation(user_content=Message(content=long), final_response=Message(role="assistant", content="yes"))
    metric = EvalMetricResult(
        metric_name="final_response_avg_score",
        score=0.0,
        threshold=1.0,
        eval_status=EvalStatus.FAILED,
        details=EvalMetricResultDetails(reason="text mismatch: " + long),
    )
    result = EvalCaseResult(
        eval_id="c",
        final_eval_status=EvalStatus.FAILED,
        overall_eval_metric_results=[metric],
        eval_metric_result_per_invocation=[
            EvalMetricResultPerInvocation(actual_invocation=turn, expected_invocation=expected)
        ],
    )
    record = case_feedback(result, None)
    assert len(json.dumps(record)) < MAX_FIELD_CHARS * 3
    assert record["agent"] == [{"response": "no"}] and record["expected"] == [{"response": "yes"}]
    assert record["feedback"].startswith(
        "case failed\nfinal_response_avg_score: failed (score 0.00, threshold 1): text"
    )
    assert case_score(result) == 0.0 and case_score(result, "final_response_avg_score") == 0.0
    assert case_score(result, "absent") == 0.0
