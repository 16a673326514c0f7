"""Callbacks: the eight points, registration order, context passing, error wrapping and where errors land."""

from __future__ import annotations

from typing import Any

import pytest
from svc_fakes import ExactAnswer, FakeRegistry, RecordingAgent, SetManager, case, inv

from agentgauge.model import EvalMetric, EvalSet, EvalStatus
from agentgauge.service import (
    POINTS,
    Callback,
    CallbackError,
    CallbackResult,
    Callbacks,
    EvaluateConfig,
    EvaluateRequest,
    InferenceRequest,
    LocalService,
    RunOptions,
)

SET = EvalSet(eval_set_id="set", eval_cases=[case("c1", inv("q1", "echo: q1")), case("c2", inv("q2", "echo: q2"))])
METRICS = [EvalMetric(metric_name="exact_answer", threshold=1.0)]


def _service(callbacks: Callbacks, agent: object | None = None) -> LocalService:
    return LocalService(
        agent or RecordingAgent(),
        eval_set_manager=SetManager(SET),
        evaluators=FakeRegistry(exact_answer=ExactAnswer()),
        callbacks=callbacks,
        options=RunOptions(parallelism=1),
    )


async def _both_phases(service: LocalService) -> Any:
    inferences = await service.inference(InferenceRequest("app", "set"))
    return inferences, await service.evaluate(EvaluateRequest("app", "set", inferences, EvaluateConfig(METRICS)))


async def test_all_eight_points_run_in_order_with_their_arguments() -> None:
    calls: list[tuple[str, str, Any]] = []

    def recorder(tag: str) -> Callback:
        def make(point: str) -> Any:
            def fn(context: Any, args: Any) -> None:
                calls.append((tag, point, args))

            return fn

        return Callback(**{point: make(point) for point in POINTS})

    callbacks = Callbacks().register("first", recorder("first")).register("second", recorder("second"))
    await _both_phases(_service(callbacks))

    sequence = [(tag, point) for tag, point, _ in calls]
    assert sequence[:2] == [("first", "before_inference_set"), ("second", "before_inference_set")]
    assert sequence[2:6] == [
        ("first", "before_inference_case"),
        ("second", "before_inference_case"),
        ("first", "after_inference_case"),
        ("second", "after_inference_case"),
    ]
    assert [p for t, p in sequence if t == "first"] == [
        "before_inference_set",
        "before_inference_case",
        "after_inference_case",
        "before_inference_case",
        "after_inference_case",
        "after_inference_set",
        "before_evaluate_set",
        "before_evaluate_case",
        "after_evaluate_case",
        "before_evaluate_case",
        "after_evaluate_case",
        "after_evaluate_set",
    ]
    by_point = {p: a for t, p, a in calls if t == "first"}
    assert by_point["before_inference_case"].eval_case_id == "c2"
    assert by_point["before_inference_case"].session_id
    assert [r.eval_case_id for r in by_point["after_inference_set"].results] == ["c1", "c2"]
    assert by_point["after_inference_set"].error is None and by_point["after_inference_set"].start_time > 0
    assert by_point["after_evaluate_case"].result.final_eval_status is EvalStatus.PASSED
    assert by_point["after_evaluate_case"].inference_result.eval_case_id == "c2"
    assert len(by_point["after_evaluate_set"].result.eval_case_results) == 2


async def test_returned_context_replaces_context_for_later_callbacks_and_stages() -> None:
    seen: list[tuple[str, dict[str, Any]]] = []

    async def set_ctx(context: Any, args: Any) -> CallbackResult:
        return CallbackResult(context={**context, "trace": "abc"})

    def keep(context: Any, args: Any) -> None:
        seen.append(("keep", dict(context)))

    def case_ctx(context: Any, args: Any) -> CallbackResult:
        seen.append(("case", dict(context)))
        return CallbackResult(context={**context, "case": args.eval_case_id})

    def after_case(context: Any, args: Any) -> CallbackResult | None:
        seen.append(("after", dict(context)))
        return None

    callbacks = (
        Callbacks()
        .register_before_inference_set("set", set_ctx)
        .register_before_inference_set("keep", keep)
        .register_before_inference_case("case", case_ctx)
        .register_after_inference_case("after", after_case)
    )
    await _service(callbacks).inference(InferenceRequest("app", "set"))
    assert seen == [
        ("keep", {"trace": "abc"}),
        ("case", {"trace": "abc"}),
        ("after", {"trace": "abc", "case": "c1"}),
        ("case", {"trace": "abc"}),
        ("after", {"trace": "abc", "case": "c2"}),
    ]


def _boom(context: Any, args: Any) -> None:
    raise RuntimeError("boom")


@pytest.mark.parametrize(
    "point",
    [
        "before_inference_set",
        "after_inference_set",
        "before_evaluate_set",
        "after_evaluate_set",
        "before_evaluate_case",
        "after_evaluate_case",
    ],
)
async def test_set_and_evaluate_case_errors_abort_with_wrapped_message(point: str) -> None:
    callbacks = Callbacks().register("ok", Callback()).register("noop", Callback(**{point: lambda c, a: None}))
    callbacks.register("bad", Callback(**{point: _boom}))
    with pytest.raises(CallbackError) as info:
        await _both_phases(_service(callbacks))
    assert str(info.value) == f"{POINTS[point]} callback[1] (bad): boom"


@pytest.mark.parametrize("point", ["before_inference_case", "after_inference_case"])
async def test_inference_case_errors_fail_only_that_case(point: str) -> None:
    def only_c1(context: Any, args: Any) -> None:
        case_id = getattr(args, "eval_case_id", None) or args.result.eval_case_id
        if case_id == "c1":
            raise ValueError("no c1")

    agent = RecordingAgent()
    callbacks = Callbacks().register("picky", Callback(**{point: only_c1}))
    inferences, run = await _both_phases(_service(callbacks, agent))
    assert [r.status for r in inferences] == [EvalStatus.FAILED, EvalStatus.PASSED]
    message = f"{POINTS[point]} callback[0] (picky): no c1"
    assert inferences[0].error_message == message
    assert inferences[0].inferences == []
    assert [(r.eval_id, r.final_eval_status, r.error_message) for r in run.eval_case_results] == [
        ("c1", EvalStatus.ERROR, message),
        ("c2", EvalStatus.PASSED, None),
    ]
    expected_calls = ["q2"] if point == "before_inference_case" else ["q1", "q2"]
    assert [r.user_content.content for r in agent.requests] == expected_calls


async def test_invalid_return_value_is_an_error() -> None:
    callbacks = Callbacks().register_before_inference_set("weird", lambda c, a: {"not": "a result"})
    with pytest.raises(CallbackError, match=r"BeforeInferenceSet callback\[0\] \(weird\): returned dict"):
        await _service(callbacks).inference(InferenceRequest("app", "set"))


async def test_set_callbacks_may_modify_the_request() -> None:
    def only_c2(context: Any, args: Any) -> None:
        args.request.eval_case_ids = ["c2"]

    agent = RecordingAgent()
    inferences = await _service(Callbacks().register_before_inference_set("filter", only_c2), agent).inference(
        InferenceRequest("app", "set")
    )
    assert [r.eval_case_id for r in inferences] == ["c2"]


def test_register_rejects_non_callables_and_keeps_names_in_order() -> None:
    callbacks = Callbacks().register("a", Callback(before_evaluate_set=lambda c, a: None))
    callbacks.register_before_evaluate_set("b", lambda c, a: None)
    assert callbacks.names("before_evaluate_set") == ["a", "b"]
    with pytest.raises(TypeError, match="not callable"):
        callbacks.register("x", Callback(after_evaluate_set=42))  # type: ignore[arg-type]


async def test_unknown_case_in_evaluate_request_fails_that_case() -> None:
    service = _service(Callbacks())
    inferences = await service.inference(InferenceRequest("app", "set", ["c1"]))
    inferences[0].eval_case_id = "ghost"
    run = await service.evaluate(EvaluateRequest("app", "set", inferences, EvaluateConfig(METRICS)))
    assert run.eval_case_results[0].error_message == "eval case 'ghost' is not in eval set 'set'"
