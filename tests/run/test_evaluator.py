"""AgentEvaluator: runs, parallelism, streaming, case filter, saved result with the multi-run summary."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).parents[1] / "service"))

from svc_fakes import ExactAnswer, RecordingAgent, case, inv

from agentgauge.agents import AgentRequest
from agentgauge.errors import InputError
from agentgauge.evaluators import Registry
from agentgauge.model import EvalCase, EvalMetric, EvalSet, EvalStatus
from agentgauge.run._evaluator import AgentEvaluator
from agentgauge.service import Callback, CallbackError, Callbacks
from agentgauge.storage import (
    InMemoryEvalResultManager,
    InMemoryEvalSetManager,
    InMemoryMetricManager,
    LocalEvalResultManager,
    LocalEvalSetManager,
    LocalMetricManager,
)

METRICS = [EvalMetric(metric_name="exact_answer", threshold=1.0)]


def _registry() -> Registry:
    registry = Registry()
    registry.register(ExactAnswer())
    return registry


def _evaluator(cases: list[EvalCase], agent: object | None, **kwargs: Any) -> AgentEvaluator:
    sets, metrics = InMemoryEvalSetManager(), InMemoryMetricManager()
    sets.put("app", EvalSet(eval_set_id="set", eval_cases=cases))
    metrics.put_all("app", "set", kwargs.pop("metrics", METRICS))
    kwargs.setdefault("result_manager", InMemoryEvalResultManager())
    return AgentEvaluator("app", agent, eval_set_manager=sets, metric_manager=metrics, registry=_registry(), **kwargs)


CASES = [case("c1", inv("q1", "echo: q1")), case("c2", inv("q2", "echo: q2"), inv("q3", "echo: q3"))]


async def test_single_run_passes_and_saves_one_result() -> None:
    results = InMemoryEvalResultManager()
    outcome = await _evaluator(CASES, RecordingAgent(), result_manager=results).evaluate("set")
    assert outcome.overall_status is EvalStatus.PASSED
    assert (outcome.app_name, outcome.eval_set_id) == ("app", "set")
    assert outcome.execution_time > 0
    assert outcome.result_path is None
    saved = results.get("app", outcome.eval_set_result.eval_set_result_id)
    assert saved.eval_set_result_id.startswith("app_set_")
    assert saved.eval_set_result_name == saved.eval_set_result_id
    assert [(r.eval_id, r.run_id, r.final_eval_status) for r in saved.eval_case_results] == [
        ("c1", 1, EvalStatus.PASSED),
        ("c2", 1, EvalStatus.PASSED),
    ]
    assert saved.summary is not None and saved.summary.num_runs == 1
    assert [c.eval_id for c in outcome.eval_cases] == ["c1", "c2"]


async def test_multiple_runs_in_one_result_with_pass_at_k() -> None:
    calls = {"n": 0}

    def flaky(request: AgentRequest) -> str:
        calls["n"] += 1
        # c1 fails in exactly one of three runs.
        if request.user_content.content == "q1" and calls.setdefault("q1", 0) == 0:
            calls["q1"] = 1
            return "wrong"
        return f"echo: {request.user_content.content}"

    outcome = await _evaluator(CASES, flaky, num_runs=3, parallelism=1).evaluate("set")
    result = outcome.eval_set_result
    assert result.summary is not None
    assert result.summary.num_runs == 3
    assert len(result.eval_case_results) == 6
    assert sorted((r.eval_id, r.run_id) for r in result.eval_case_results) == [
        (c, r) for c in ("c1", "c2") for r in (1, 2, 3)
    ]
    c1 = outcome.eval_cases[0]
    assert (c1.runs, c1.runs_passed) == (3, 2)
    assert c1.metrics[0].average == pytest.approx(2 / 3)
    assert c1.status is EvalStatus.FAILED  # 0.67 < threshold 1.0
    assert c1.status_text == "failed (2/3 runs passed; rule: mean of runs ≥ threshold)"
    assert c1.pass_at_k(1) == pytest.approx(2 / 3)
    assert c1.pass_hat_k(2) == pytest.approx(4 / 9)
    assert result.summary.run_status_counts.passed == 2
    assert outcome.pass_at_k(3) == 1.0
    assert outcome.overall_status is EvalStatus.FAILED


async def test_parallelism_is_one_global_limit_across_cases_and_runs() -> None:
    active = peak = 0

    async def agent(request: AgentRequest) -> str:
        nonlocal active, peak
        active += 1
        peak = max(peak, active)
        await asyncio.sleep(0.02)
        active -= 1
        return f"echo: {request.user_content.content}"

    cases = [case(f"c{i}", inv(f"q{i}", f"echo: q{i}")) for i in range(6)]
    outcome = await _evaluator(cases, agent, num_runs=3, parallelism=5).evaluate("set")
    assert peak == 5
    assert outcome.overall_status is EvalStatus.PASSED


async def test_cases_are_scored_while_others_are_still_running() -> None:
    events: list[str] = []
    release = asyncio.Event()

    async def agent(request: AgentRequest) -> str:
        if request.user_content.content == "slow":
            await release.wait()
        events.append(f"answer {request.user_content.content}")
        return "x"

    def scored(context: Any, args: Any) -> None:
        events.append(f"scored {args.eval_case_id}")
        if args.eval_case_id == "fast":
            release.set()

    callbacks = Callbacks().register_before_evaluate_case("watch", scored)
    cases = [case("slow", inv("slow")), case("fast", inv("fast"))]
    await asyncio.wait_for(_evaluator(cases, agent, callbacks=callbacks, parallelism=2).evaluate("set"), 5)
    assert events == ["answer fast", "scored fast", "answer slow", "scored slow"]


async def test_errors_stay_inside_their_case() -> None:
    async def agent(request: AgentRequest) -> str:
        text = request.user_content.content
        if text == "raise":
            raise RuntimeError("agent crashed")
        if text == "hang":
            await asyncio.sleep(60)
        return f"echo: {text}"

    cases = [case("ok", inv("fine", "echo: fine")), case("bad", inv("raise")), case("stuck", inv("hang"))]
    outcome = await _evaluator(cases, agent, timeout=0.2, parallelism=3).evaluate("set")
    status = {r.eval_id: (r.final_eval_status, r.error_message) for r in outcome.eval_set_result.eval_case_results}
    assert status == {
        "ok": (EvalStatus.PASSED, None),
        "bad": (EvalStatus.ERROR, "agent failed on invocation 1 of 1: RuntimeError: agent crashed"),
        "stuck": (EvalStatus.ERROR, "inference timed out after 0.2 s"),
    }
    assert outcome.overall_status is EvalStatus.ERROR


async def test_case_filter_and_unknown_ids() -> None:
    agent = RecordingAgent()
    outcome = await _evaluator(CASES, agent, case_ids=["c2"]).evaluate("set")
    assert [r.eval_id for r in outcome.eval_set_result.eval_case_results] == ["c2"]
    with pytest.raises(InputError, match="eval set 'set' has no case 'nope'; valid ids: c1, c2"):
        await _evaluator(CASES, agent, case_ids=["nope"]).evaluate("set")


async def test_input_problems_are_raised_before_running() -> None:
    agent = RecordingAgent()
    with pytest.raises(InputError, match="unknown metric 'nope'"):
        await _evaluator(CASES, agent, metrics=[EvalMetric(metric_name="nope")]).evaluate("set")
    with pytest.raises(InputError, match="an agent is required: case\\(s\\) c1, c2 are not in trace mode"):
        await _evaluator(CASES, None).evaluate("set")
    assert agent.requests == []


async def test_trace_mode_without_agent() -> None:
    trace = EvalCase(eval_id="t", eval_mode="trace", conversation=[inv("q", "recorded")])
    # Expecteds are user-input only, so exact_answer compares against None and fails: the trace is still scored.
    outcome = await _evaluator([trace], None).evaluate("set")
    [result] = outcome.eval_set_result.eval_case_results
    assert result.final_eval_status is EvalStatus.FAILED
    assert result.eval_metric_result_per_invocation[0].actual_invocation.final_response.content == "recorded"  # type: ignore[union-attr]


async def test_set_level_callbacks_run_once_per_run_and_errors_abort() -> None:
    points: list[tuple[str, Any]] = []
    callback = Callback(
        before_inference_set=lambda c, a: points.append(("bis", a.request.eval_case_ids)),
        before_evaluate_set=lambda c, a: points.append(("bes", None)),
        after_inference_set=lambda c, a: points.append(("ais", [r.eval_case_id for r in a.results])),
        after_evaluate_set=lambda c, a: points.append(
            ("aes", [(r.eval_id, r.run_id) for r in a.result.eval_case_results])
        ),
    )
    await _evaluator(CASES, RecordingAgent(), num_runs=2, callbacks=Callbacks().register("p", callback)).evaluate("set")
    assert points == [
        ("bis", ["c1", "c2"]),
        ("bes", None),
        ("bis", ["c1", "c2"]),
        ("bes", None),
        ("ais", ["c1", "c2"]),
        ("aes", [("c1", 1), ("c2", 1)]),
        ("ais", ["c1", "c2"]),
        ("aes", [("c1", 2), ("c2", 2)]),
    ]

    def boom(context: Any, args: Any) -> None:
        raise RuntimeError("stop")

    results = InMemoryEvalResultManager()
    failing = _evaluator(
        CASES, RecordingAgent(), callbacks=Callbacks().register_after_evaluate_case("x", boom), result_manager=results
    )
    with pytest.raises(CallbackError, match=r"AfterEvaluateCase callback\[0\] \(x\): stop"):
        await failing.evaluate("set")
    assert results.list("app") == []


def test_evaluate_sync_and_local_managers_by_default(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    LocalEvalSetManager().put("app", EvalSet(eval_set_id="set", eval_cases=CASES))
    LocalMetricManager().put_all("app", "set", METRICS)
    outcome = AgentEvaluator("app", RecordingAgent(), registry=_registry()).evaluate_sync("set")
    assert outcome.result_path is not None
    assert outcome.result_path == LocalEvalResultManager().path_for("app", outcome.eval_set_result.eval_set_result_id)
    assert outcome.result_path.is_file()
    assert outcome.overall_status is EvalStatus.PASSED


async def test_evaluate_sync_refuses_a_running_loop() -> None:
    with pytest.raises(RuntimeError, match="cannot run inside a running event loop"):
        _evaluator(CASES, RecordingAgent()).evaluate_sync("set")


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"num_runs": 0}, "num_runs must be at least 1"),
        ({"timeout": 0}, "timeout"),
    ],
)
def test_bad_settings(kwargs: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        _evaluator(CASES, RecordingAgent(), **kwargs)


async def test_a_parallelism_below_one_is_refused_by_the_pool_before_any_case_runs() -> None:
    # A request is checked once, in agentgauge.launch; the engine's own guard is the pool's.
    agent = RecordingAgent()
    with pytest.raises(ValueError, match="parallelism must be at least 1, got 0"):
        await _evaluator(CASES, agent, parallelism=0).evaluate("set")
    assert agent.requests == []


async def test_progress_reports_every_case_and_run() -> None:
    seen: list[tuple[int, int]] = []
    await _evaluator(CASES, RecordingAgent(), num_runs=2, progress=lambda d, t: seen.append((d, t))).evaluate("set")
    assert seen == [(0, 4), (1, 4), (2, 4), (3, 4), (4, 4)]


async def test_before_inference_set_may_narrow_the_cases_of_a_run() -> None:
    def second_run_only_c2(context: Any, args: Any) -> None:
        calls.append(args.request.eval_case_ids)
        if len(calls) == 2:
            args.request.eval_case_ids = ["c2"]

    calls: list[list[str]] = []
    callbacks = Callbacks().register_before_inference_set("narrow", second_run_only_c2)
    outcome = await _evaluator(CASES, RecordingAgent(), num_runs=2, callbacks=callbacks).evaluate("set")
    runs = [(r.eval_id, r.run_id) for r in outcome.eval_set_result.eval_case_results]
    assert runs == [("c1", 1), ("c2", 1), ("c2", 2)]
    assert [c.runs for c in outcome.eval_cases] == [1, 2]


# --- large runs: streamed result file, compact rows, lazy details, interruption -------------------------------------


def _many(n: int) -> list[EvalCase]:
    return [case(f"c{i:03d}", inv(f"q{i}", f"echo: q{i}" if i % 3 else "other")) for i in range(n)]


async def test_large_run_streams_the_file_and_loads_details_on_demand(tmp_path: Path) -> None:
    cases = _many(30)
    kept = await _evaluator(cases, RecordingAgent(), result_manager=LocalEvalResultManager(tmp_path / "a"),
                            parallelism=7).evaluate("set")  # fmt: skip
    lazy = await _evaluator(cases, RecordingAgent(), result_manager=LocalEvalResultManager(tmp_path / "b"),
                            parallelism=7, max_results_in_memory=10).evaluate("set")  # fmt: skip
    assert kept.results_in_memory and not lazy.results_in_memory
    assert lazy.overall_status is kept.overall_status is EvalStatus.FAILED
    assert lazy.result_path is not None and lazy.result_path.is_file()
    # Details come back from the file, in eval-set order despite 7 cases in flight.
    loaded = lazy.eval_set_result
    assert [r.eval_id for r in loaded.eval_case_results] == [c.eval_id for c in cases]

    def comparable(result: Any) -> Any:
        # Session and invocation ids are random per run; everything scored must agree.
        return [
            (r.eval_id, r.final_eval_status, r.overall_eval_metric_results, len(r.eval_metric_result_per_invocation))
            for r in result.eval_case_results
        ], result.summary

    assert comparable(loaded) == comparable(kept.eval_set_result)
    assert [(c.eval_id, c.status) for c in lazy.eval_cases] == [(c.eval_id, c.status) for c in kept.eval_cases]
    # The file written piece by piece is byte for byte what saving the whole result writes.
    from agentgauge.formats import save_result

    save_result(kept.eval_set_result, tmp_path / "whole.json")
    assert kept.result_path is not None
    assert kept.result_path.read_bytes() == (tmp_path / "whole.json").read_bytes()


async def test_rows_are_compact_and_summary_matches(tmp_path: Path) -> None:
    outcome = await _evaluator(_many(12), RecordingAgent(), result_manager=LocalEvalResultManager(tmp_path),
                               num_runs=2, max_results_in_memory=0).evaluate("set")  # fmt: skip
    assert outcome.rows is not None
    assert sum(len(runs) for runs in outcome.rows.by_case.values()) == 24
    saved = outcome.eval_set_result.summary
    assert saved is not None and saved == outcome.rows.full()
    assert outcome.pass_at_k(1) == 0.0  # both runs failed as a whole (every third case fails)


async def test_streamed_eval_set_is_read_case_by_case(tmp_path: Path) -> None:
    from agentgauge.formats import save_eval_set
    from agentgauge.service import StreamedEvalSet

    cases = _many(9)
    save_eval_set(EvalSet(eval_set_id="set", eval_cases=cases), tmp_path / "set.evalset.json")
    source = StreamedEvalSet.scan(tmp_path / "set.evalset.json")
    assert source is not None
    assert [c.conversation for c in source.header.eval_cases] == [None] * 9  # only an index is kept
    reads = {"n": 0}
    original = source.iter_cases

    def counting(app: str, set_id: str) -> Any:
        reads["n"] += 1
        yield from original(app, set_id)

    source.iter_cases = counting  # type: ignore[method-assign]
    metrics = InMemoryMetricManager()
    metrics.put_all("app", "set", METRICS)
    outcome = await AgentEvaluator("app", RecordingAgent(), eval_set_manager=source, metric_manager=metrics,
                                   result_manager=InMemoryEvalResultManager(), registry=_registry(), num_runs=2,
                                   case_ids=["c001", "c003"]).evaluate("set")  # fmt: skip
    assert reads["n"] == 2  # once per run
    assert [(r.eval_id, r.run_id) for r in outcome.eval_set_result.eval_case_results] == [
        ("c001", 1), ("c003", 1), ("c001", 2), ("c003", 2)
    ]  # fmt: skip


class _SlowAgent:
    def __init__(self) -> None:
        self.started = 0

    async def __call__(self, request: AgentRequest) -> str:
        self.started += 1
        await asyncio.sleep(0.05 if request.user_content.content != "q5" else 30)
        return f"echo: {request.user_content.content}"


async def test_interrupt_saves_finished_cases_marked_interrupted(tmp_path: Path) -> None:
    agent = _SlowAgent()
    evaluator = _evaluator(_many(40), agent, result_manager=LocalEvalResultManager(tmp_path), parallelism=3)
    asyncio.get_running_loop().call_later(0.4, evaluator.interrupt)
    outcome = await evaluator.evaluate("set")
    assert outcome.interrupted
    assert outcome.overall_status is not EvalStatus.PASSED
    assert outcome.result_path is not None
    saved = json.loads(outcome.result_path.read_text())
    assert saved["interrupted"] is True
    finished = [r["evalId"] for r in saved["evalCaseResults"]]
    assert 3 <= len(finished) < 40 and "c005" not in finished  # c005 was still running
    assert len(saved["summary"]["evalCaseSummaries"]) == len(finished)
    assert not list(tmp_path.rglob("*.tmp"))
    assert "interrupted=True" in repr(outcome)


async def test_cancelled_run_saves_then_propagates(tmp_path: Path) -> None:
    evaluator = _evaluator(_many(40), _SlowAgent(), result_manager=LocalEvalResultManager(tmp_path), parallelism=3)
    task = asyncio.ensure_future(evaluator.evaluate("set"))
    await asyncio.sleep(0.4)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    (path,) = tmp_path.rglob("*.evalset_result.json")
    saved = json.loads(path.read_text())
    assert saved["interrupted"] is True and 0 < len(saved["evalCaseResults"]) < 40


async def test_a_failing_run_leaves_no_partial_file(tmp_path: Path) -> None:
    def boom(args: Any) -> None:
        raise RuntimeError("after set failed")

    callbacks = Callbacks().register_after_evaluate_set("boom", boom)
    evaluator = _evaluator(_many(4), RecordingAgent(), result_manager=LocalEvalResultManager(tmp_path),
                           callbacks=callbacks)  # fmt: skip
    with pytest.raises(CallbackError):
        await evaluator.evaluate("set")
    assert not [p for p in tmp_path.rglob("*") if p.is_file()]


async def test_repr_is_short_for_large_results() -> None:
    outcome = await _evaluator(_many(200), RecordingAgent(), parallelism=50).evaluate("set")
    assert len(repr(outcome)) < 200 and repr(outcome).startswith("EvaluationResult(app_name='app'")


async def test_interrupt_during_set_callbacks_runs_no_case(tmp_path: Path) -> None:
    evaluator: AgentEvaluator | None = None

    def stop(context: Any, args: Any) -> None:
        assert evaluator is not None
        evaluator.interrupt()

    callbacks = Callbacks().register_before_evaluate_set("stop", stop)
    evaluator = _evaluator(_many(5), RecordingAgent(), result_manager=LocalEvalResultManager(tmp_path),
                           callbacks=callbacks)  # fmt: skip
    outcome = await evaluator.evaluate("set")
    assert outcome.interrupted and outcome.eval_set_result.eval_case_results == []
    assert outcome.overall_status is EvalStatus.NOT_EVALUATED


async def test_cases_finishing_before_scorers_are_ready_are_scored_later(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import agentgauge.run._evaluator as evaluator_module

    ready: dict[str, Any] = {}

    def slow_prepare(metrics: Any) -> Any:
        async def later() -> None:
            await asyncio.sleep(0.3)
            ready["at"] = asyncio.get_running_loop().time()

        return asyncio.ensure_future(later())

    monkeypatch.setattr(evaluator_module, "_prepare_scorers", slow_prepare)
    started: list[float] = []

    async def agent(request: AgentRequest) -> str:
        started.append(asyncio.get_running_loop().time())
        await asyncio.sleep(0.02)
        return f"echo: {request.user_content.content}"

    seen: list[tuple[int, int]] = []
    outcome = await _evaluator(_many(12), agent, result_manager=LocalEvalResultManager(tmp_path), parallelism=2,
                               progress=lambda done, total: seen.append((done, total))).evaluate("set")  # fmt: skip
    # Inference went on while the scorers were prepared (more cases started than workers), and every case was
    # scored, written in eval-set order.
    assert sum(t < ready["at"] for t in started) > 2
    assert seen[-1] == (12, 12)
    assert [r.eval_id for r in outcome.eval_set_result.eval_case_results] == [f"c{i:03d}" for i in range(12)]
    assert outcome.eval_set_result.summary is not None


async def test_errors_of_deferred_scoring_propagate(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import agentgauge.run._evaluator as evaluator_module

    monkeypatch.setattr(evaluator_module, "_prepare_scorers", lambda m: asyncio.ensure_future(asyncio.sleep(0.2)))

    def deny(context: Any, args: Any) -> None:
        raise RuntimeError("denied")

    callbacks = Callbacks().register_before_evaluate_case("audit", deny)
    evaluator = _evaluator(_many(4), RecordingAgent(), result_manager=LocalEvalResultManager(tmp_path),
                           callbacks=callbacks)  # fmt: skip
    with pytest.raises(CallbackError, match="denied"):
        await evaluator.evaluate("set")
    assert not [p for p in tmp_path.rglob("*") if p.is_file()]
