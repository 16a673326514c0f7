"""Results built from the model classes: passing, failing, not evaluated and errored cases, plus a multi-run set."""

from __future__ import annotations

from agentgauge.model import (
    CaseRunSummary,
    Criterion,
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
    TokenUsage,
    Tool,
)

P, F, N, E = EvalStatus.PASSED, EvalStatus.FAILED, EvalStatus.NOT_EVALUATED, EvalStatus.ERROR


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
        final_eval_status=E,
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


def timed(
    inv: Invocation, duration: float, tokens: tuple[int, int] | None = None, cost: float | None = None
) -> Invocation:
    """``inv`` with a recorded duration and, optionally, token usage ``(input, output)`` and cost."""
    usage = None
    if tokens is not None:
        usage = TokenUsage(
            input_tokens=tokens[0],
            output_tokens=tokens[1],
            total_tokens=sum(tokens),
            model_calls=1,
            model="gpt-test",
            cost=cost,
        )
    return inv.model_copy(update={"duration": duration, "model_duration": duration / 2, "usage": usage})


def usage_result() -> EvalSetResult:
    """One run with recorded durations, tokens and costs on every actual invocation.

    - ``weather`` failed its trajectory (wrong city) while its ``contains`` response check passed with other
      words; the tool result differs from the expected one. 1.5 s, 120 + 30 tokens, cost 0.002.
    - ``rubric_case`` failed a judge metric with a rubric whose text lives in the criterion; the overall reason
      repeats the invocation's. 0.25 s, no token usage recorded.
    - ``crash`` errored on its second turn: traceback stored, first turn kept. 2 s, 50 + 10 tokens, no price.
    - ``fine`` passed, no usage recorded at all.
    """
    expected = Invocation(
        invocation_id="w-1",
        user_content=Message(role="user", content="Weather in Paris?"),
        final_response=Message(role="assistant", content="It is sunny in Paris."),
        tools=[Tool(id="t1", name="get_weather", arguments={"city": "Paris"}, result={"sky": "sunny"})],
    )
    actual = timed(
        Invocation(
            invocation_id="a-1",
            user_content=Message(role="user", content="Weather in Paris?"),
            final_response=Message(role="assistant", content="Paris: sunny today, enjoy!"),
            tools=[Tool(id="t1", name="get_weather", arguments={"city": "Lyon"}, result={"sky": "rain"})],
        ),
        1.5,
        (120, 30),
        0.002,
    )
    traj = metric("tool_trajectory_avg_score", 0.0, 1.0, F, "arguments differ at $.city")
    contains = EvalMetricResult(
        metric_name="final_response_avg_score",
        score=1.0,
        threshold=1.0,
        eval_status=P,
        criterion=Criterion(final_response={"text": {"matchStrategy": "contains"}}),
    )
    weather = EvalCaseResult(
        eval_set_id="usage",
        eval_id="weather",
        final_eval_status=F,
        overall_eval_metric_results=[traj, contains],
        eval_metric_result_per_invocation=[
            EvalMetricResultPerInvocation(
                actual_invocation=actual, expected_invocation=expected, eval_metric_results=[traj, contains]
            )
        ],
    )
    judge_criterion = Criterion(
        llm_judge={"rubrics": [{"id": "polite", "content": {"text": "The answer thanks the user."}}]}
    )
    judged = EvalMetricResult(
        metric_name="llm_rubric_response",
        score=0.0,
        threshold=1.0,
        eval_status=F,
        criterion=judge_criterion,
        details=EvalMetricResultDetails(
            reason="the answer is curt",
            rubric_scores=[RubricScore(id="polite", reason="no thanks given", score=0.0)],
        ),
    )
    rubric_inv = timed(invocation("Say hi", "hi"), 0.25)
    rubric_case = EvalCaseResult(
        eval_set_id="usage",
        eval_id="rubric_case",
        final_eval_status=F,
        overall_eval_metric_results=[judged],
        eval_metric_result_per_invocation=[
            EvalMetricResultPerInvocation(
                actual_invocation=rubric_inv, expected_invocation=None, eval_metric_results=[judged]
            )
        ],
    )
    crash = EvalCaseResult(
        eval_set_id="usage",
        eval_id="crash",
        final_eval_status=E,
        error_message="agent failed on invocation 2 of 2 (crash-2): RuntimeError: boom",
        error_traceback='Traceback (most recent call last):\n  File "agent.py", line 8, in run\nRuntimeError: boom',
        eval_metric_result_per_invocation=[
            EvalMetricResultPerInvocation(
                actual_invocation=timed(invocation("calc add 2 3", "5", ("add", {"a": 2, "b": 3})), 2.0, (50, 10))
            )
        ],
    )
    fine = passing_case()
    fine.eval_set_id, fine.eval_id = "usage", "fine"
    return EvalSetResult(
        eval_set_result_id="usage_1",
        eval_set_id="usage",
        creation_timestamp=1_700_000_000.0,
        eval_case_results=[weather, rubric_case, crash, fine],
    )
