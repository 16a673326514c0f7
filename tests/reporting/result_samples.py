"""Results built from the model classes: passing, failing, not evaluated and errored cases, plus a multi-run set."""

from __future__ import annotations

from agentgauge.model import (
    CaseRunSummary,
    EvalCaseResult,
    EvalCaseSummary,
    EvalMetricResult,
    EvalMetricResultDetails,
    EvalMetricResultPerInvocation,
    EvalSetResult,
    EvalSetResultSummary,
    EvalStatus,
    Invocation,
    Message,
    RubricScore,
    StatusCounts,
    Tool,
)

P, F, N = EvalStatus.PASSED, EvalStatus.FAILED, EvalStatus.NOT_EVALUATED


def invocation(user: str, response: str | None, *tools: tuple[str, object]) -> Invocation:
    """An invocation with a user message, an optional final response and tool calls ``(name, arguments)``."""
    return Invocation(
        invocation_id=f"inv-{user[:8]}",
        user_content=Message(role="user", content=user),
        final_response=None if response is None else Message(role="assistant", content=response),
        tools=[Tool(id=f"call-{i}", name=name, arguments=args) for i, (name, args) in enumerate(tools)],
    )


def metric(name: str, score: float | None, threshold: float, status: EvalStatus, reason: str = "") -> EvalMetricResult:
    """A metric result with an optional reason."""
    details = EvalMetricResultDetails(reason=reason, score=score) if reason else None
    return EvalMetricResult(metric_name=name, score=score, threshold=threshold, eval_status=status, details=details)


def passing_case(run_id: int = 1) -> EvalCaseResult:
    """Both metrics pass on one invocation."""
    inv = invocation("What is 2+3?", "5", ("add", {"a": 2, "b": 3}))
    metrics = [metric("tool_trajectory_avg_score", 1.0, 1.0, P), metric("response_match_score", 1.0, 0.8, P)]
    return EvalCaseResult(
        eval_set_id="calc",
        eval_id="add_small",
        run_id=run_id,
        final_eval_status=P,
        overall_eval_metric_results=metrics,
        eval_metric_result_per_invocation=[
            EvalMetricResultPerInvocation(actual_invocation=inv, expected_invocation=inv, eval_metric_results=metrics)
        ],
    )


def failing_case(run_id: int = 1) -> EvalCaseResult:
    """Wrong tool arguments and a different answer on the second invocation; a judge explains why."""
    ok = invocation("Hi", "Hello!")
    expected = invocation("Multiply 6 by 7", "The answer is 42.", ("multiply", {"a": 6, "b": 7}))
    actual = invocation("Multiply 6 by 7", "The answer is 48.", ("multiply", {"a": 6, "b": 8}))
    traj_fail = metric("tool_trajectory_avg_score", 0.0, 1.0, F, "tool 0: arguments differ: b: 7 != 8")
    resp_fail = metric("response_match_score", 0.5, 0.8, F)
    resp_fail.details = EvalMetricResultDetails(
        reason="judge: the number is wrong",
        rubric_scores=[RubricScore(id="correct", reason="42 expected", score=0.0)],
    )
    return EvalCaseResult(
        eval_set_id="calc",
        eval_id="multiply_pipe|<tag>",
        run_id=run_id,
        final_eval_status=F,
        overall_eval_metric_results=[
            metric("tool_trajectory_avg_score", 0.5, 1.0, F),
            metric("response_match_score", 0.75, 0.8, F),
        ],
        eval_metric_result_per_invocation=[
            EvalMetricResultPerInvocation(
                actual_invocation=ok,
                expected_invocation=ok,
                eval_metric_results=[
                    metric("tool_trajectory_avg_score", 1.0, 1.0, P),
                    metric("response_match_score", 1.0, 0.8, P),
                ],
            ),
            EvalMetricResultPerInvocation(
                actual_invocation=actual, expected_invocation=expected, eval_metric_results=[traj_fail, resp_fail]
            ),
        ],
    )


def not_evaluated_case(run_id: int = 1) -> EvalCaseResult:
    """No metric could produce a score."""
    return EvalCaseResult(
        eval_set_id="calc",
        eval_id="no_expected",
        run_id=run_id,
        final_eval_status=N,
        overall_eval_metric_results=[metric("response_match_score", None, 0.8, N)],
    )


def errored_case(run_id: int = 1) -> EvalCaseResult:
    """The agent raised during inference."""
    return EvalCaseResult(
        eval_set_id="calc",
        eval_id="agent_crash",
        run_id=run_id,
        final_eval_status=F,
        error_message='inference failed: ZeroDivisionError("division by zero") & <stop>\x01',
    )


def single_run_result() -> EvalSetResult:
    """One run of four cases: passed, failed, not evaluated, errored."""
    return EvalSetResult(
        eval_set_result_id="calc_run_1",
        eval_set_id="calc",
        creation_timestamp=1_700_000_000.0,
        eval_case_results=[passing_case(), failing_case(), not_evaluated_case(), errored_case()],
    )


def multi_run_result() -> EvalSetResult:
    """Three runs of two cases: ``add_small`` passes every run, the multiply case passes once of three."""
    cases = []
    for run in (1, 2, 3):
        cases.append(passing_case(run))
        flaky = passing_case(run) if run == 2 else failing_case(run)
        flaky.eval_id = "multiply_pipe|<tag>"
        cases.append(flaky)
    summaries = [
        EvalCaseSummary(eval_id="add_small", overall_status=P, run_status_counts=StatusCounts(passed=3)),
        EvalCaseSummary(
            eval_id="multiply_pipe|<tag>",
            overall_status=F,
            run_status_counts=StatusCounts(passed=1, failed=2),
            run_summaries=[CaseRunSummary(run_id=r, final_eval_status=P if r == 2 else F) for r in (1, 2, 3)],
        ),
    ]
    summary = EvalSetResultSummary(
        overall_status=F, num_runs=3, run_status_counts=StatusCounts(passed=1, failed=2), eval_case_summaries=summaries
    )
    return EvalSetResult(eval_set_result_id="calc_multi", eval_set_id="calc", eval_case_results=cases, summary=summary)
