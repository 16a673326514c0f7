"""Registry: built-ins, user registration, lookups and metric validation."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from agentgauge.criteria import CompareRegistry
from agentgauge.errors import InputError, NotFoundError
from agentgauge.evaluators import EvaluateResult, Evaluator, MetricInfo, Registry
from agentgauge.evaluators._trajectory import ToolTrajectoryEvaluator
from agentgauge.model import Criterion, EvalMetric, EvalStatus, Invocation, Message, Tool

DETERMINISTIC = {"tool_trajectory_avg_score", "final_response_avg_score", "response_match_score"}


class LengthEvaluator:
    """A user metric: 1 when the answer is short."""

    name = "short_answer"
    description = "Answer has at most 10 characters."

    async def evaluate(
        self, actuals: Sequence[Invocation], expecteds: Sequence[Invocation], metric: EvalMetric
    ) -> EvaluateResult:
        ok = all(len(a.final_response.content if a.final_response else "") <= 10 for a in actuals)
        return EvaluateResult(1.0 if ok else 0.0, EvalStatus.PASSED if ok else EvalStatus.FAILED)


def test_builtins_registered_with_infos() -> None:
    registry = Registry()
    assert set(registry.names()) >= DETERMINISTIC
    assert registry.names() == sorted(registry.names())
    for name in DETERMINISTIC:
        info = registry.info(name)
        assert info == MetricInfo(name, registry.get(name).description, True, False, 0.0, 1.0)
        assert name in registry
        assert isinstance(registry.get(name), Evaluator)
    assert [i.name for i in registry.infos()] == registry.names()


def test_unknown_name_lists_valid_ones() -> None:
    registry = Registry()
    with pytest.raises(NotFoundError) as info:
        registry.get("no_such_metric")
    assert "unknown metric 'no_such_metric'; valid metrics: " in str(info.value)
    assert "tool_trajectory_avg_score" in str(info.value)
    assert "no_such_metric" not in registry
    with pytest.raises(NotFoundError):
        registry.info("no_such_metric")


def test_user_registration_and_evaluator_name_fallback() -> None:
    registry = Registry()
    evaluator = LengthEvaluator()
    registry.register(evaluator)
    assert registry.get("short_answer") is evaluator
    assert registry.info("short_answer") == MetricInfo("short_answer", evaluator.description, True, False)
    # evaluatorName wins, else metricName
    assert registry.resolve(EvalMetric(metric_name="my_len", evaluator_name="short_answer")) is evaluator
    assert registry.resolve(EvalMetric(metric_name="short_answer")) is evaluator
    # another name, custom info; registering again replaces
    registry.register(evaluator, name="brief", info=MetricInfo("x", "d", False, False, 0, 5))
    assert registry.info("brief") == MetricInfo("brief", "d", False, False, 0, 5)
    replacement = LengthEvaluator()
    registry.register(replacement)
    assert registry.get("short_answer") is replacement


def test_builtin_can_be_replaced() -> None:
    registry = Registry()
    registry.register(LengthEvaluator(), name="response_match_score")
    assert isinstance(registry.get("response_match_score"), LengthEvaluator)


def test_validate_metrics_accepts_good_ones() -> None:
    Registry().validate_metrics(
        [
            EvalMetric(metric_name="tool_trajectory_avg_score", threshold=1.0),
            EvalMetric(
                metric_name="tool_trajectory_avg_score", criterion=Criterion(tool_trajectory={"orderSensitive": True})
            ),
            EvalMetric(
                metric_name="tool_trajectory_avg_score",
                criterion=Criterion(adk={"threshold": 1, "match_type": "in-order"}),
            ),
            EvalMetric(metric_name="final_response_avg_score", criterion=Criterion(final_response={"text": {}})),
            EvalMetric(metric_name="response_match_score", threshold=0.8, criterion=Criterion(adk={"threshold": 0.8})),
        ]
    )


@pytest.mark.parametrize(
    ("metric", "location", "message"),
    [
        (EvalMetric(metric_name="nope"), "metrics[1].metricName", "unknown metric 'nope'; valid metrics: "),
        (
            EvalMetric(metric_name="x", evaluator_name="nope"),
            "metrics[1].evaluatorName",
            "unknown metric 'nope'; valid metrics: ",
        ),
        (
            EvalMetric(
                metric_name="tool_trajectory_avg_score",
                criterion=Criterion(adk={"threshold": 1, "match_type": "SOMETIMES"}),
            ),
            "metrics[1].criterion",
            "invalid match_type 'SOMETIMES'",
        ),
        (
            EvalMetric(
                metric_name="tool_trajectory_avg_score",
                criterion=Criterion(tool_trajectory={"defaultStrategy": {"name": {"matchStrategy": "fuzzy"}}}),
            ),
            "metrics[1].criterion",
            "invalid match strategy 'fuzzy'",
        ),
        (
            EvalMetric(metric_name="final_response_avg_score"),
            "metrics[1].criterion",
            "finalResponse criterion not configured",
        ),
        (
            EvalMetric(
                metric_name="final_response_avg_score",
                criterion=Criterion(final_response={"json": {"onlyTree": {"a": 1}}}),
            ),
            "metrics[1].criterion",
            "must be a bool or an object",
        ),
        (
            # a criterion block is checked whichever metric carries it
            EvalMetric(
                metric_name="response_match_score", criterion=Criterion(tool_trajectory={"orderSensitive": "often"})
            ),
            "metrics[1].criterion",
            "orderSensitive",
        ),
    ],
)
def test_validate_metrics_rejects(metric: EvalMetric, location: str, message: str) -> None:
    good = EvalMetric(metric_name="response_match_score", threshold=0.8)
    with pytest.raises(InputError) as info:
        Registry().validate_metrics([good, metric], file="m.metrics.json")
    assert info.value.file == "m.metrics.json"
    assert info.value.location == location
    assert message in info.value.message
    assert str(info.value).startswith(f"m.metrics.json: {location}: ")


async def test_compare_registry_reaches_builtin_evaluators() -> None:
    compares = CompareRegistry()
    compares.register_text("prefix", lambda a, e: a.startswith(e))
    registry = Registry(compares=compares)
    assert registry.compares is compares
    m = EvalMetric(
        metric_name="tool_trajectory_avg_score",
        threshold=1.0,
        criterion=Criterion(tool_trajectory={"defaultStrategy": {"name": {"compareName": "prefix"}}}),
    )
    registry.validate_metrics([m])
    actual = Invocation(user_content=Message(content="q"), tools=[Tool(name="get_weather_v2")])
    expected = Invocation(user_content=Message(content="q"), tools=[Tool(name="get_weather")])
    result = await registry.resolve(m).evaluate([actual], [expected], m)
    assert result.overall_score == 1.0
    with pytest.raises(InputError, match="unknown text compareName 'missing'"):
        bad = Criterion(tool_trajectory={"defaultStrategy": {"name": {"compareName": "missing"}}})
        registry.validate_metrics([EvalMetric(metric_name="tool_trajectory_avg_score", criterion=bad)])


def test_judge_metrics_are_imported_only_when_needed() -> None:
    import subprocess
    import sys

    script = (
        "import sys\n"
        "from agentgauge.evaluators import Registry\n"
        "from agentgauge.model import EvalMetric\n"
        "r = Registry()\n"
        "r.validate_metrics([EvalMetric(metric_name='tool_trajectory_avg_score', threshold=1)])\n"
        "r.check_judges_ready([EvalMetric(metric_name='response_match_score', threshold=0.8)])\n"
        "assert 'agentgauge.evaluators.llm' not in sys.modules, 'judge metrics imported for a deterministic run'\n"
        "assert 'llm_final_response' in r and r.info('safety_v1').needs_judge\n"
        "assert 'agentgauge.evaluators.llm' in sys.modules\n"
    )
    run = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr


def test_a_name_registered_before_the_judge_metrics_load_keeps_its_evaluator() -> None:
    registry = Registry()
    mine = ToolTrajectoryEvaluator(registry.compares)
    registry.register(mine, name="safety_v1")
    assert "llm_final_response" in registry.names()  # the judge metrics load now
    assert registry.get("safety_v1") is mine
