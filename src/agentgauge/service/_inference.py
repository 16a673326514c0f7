"""Inference for one eval case: one session, invocations in order, failures kept inside the case."""

from __future__ import annotations

import asyncio
import copy
import functools
import time
from typing import TYPE_CHECKING

from pydantic_core import PydanticSerializationError, to_json

from .._util.uuids import uuid4
from ..agents import Agent, AgentError, AgentOutput, AgentRequest
from ..agents._safety import MAX_OUTPUT_DEPTH, check_output_depth, describe_exception
from ..agents._timing import TurnClock, turn_clock
from ..agents._watchdog import AgentTimeout, Budget, active, arm, disarm
from ..mocks import use_mocks
from ..model import EvalCase, Invocation, Message, TokenUsage
from ._turns import CaseError, StaticTurns, TurnSource, trace_invocations
from ._types import InferenceResult

if TYPE_CHECKING:
    from ..model._prices import PriceTable
    from ..simulation import SimulationSettings

__all__ = [
    "DEFAULT_USER_ID",
    "case_problem",
    "infer_case",
]

DEFAULT_USER_ID = "user"
"""The user id of a session when the case has no ``sessionInput.userId``."""


MAX_TRACEBACK_CHARS = 20_000
"""A stored traceback keeps at most this many characters (its end, where the failing frame is)."""


def format_traceback(exc: BaseException) -> str | None:
    """The traceback of ``exc`` as text with registered secrets masked, at most :data:`MAX_TRACEBACK_CHARS` long
    (``None`` if it cannot be formatted)."""
    import traceback

    from .._util.redact import redact

    try:
        text = "".join(traceback.format_exception(exc)).rstrip("\n")
    except Exception:  # a broken exception object must not take the case down a second time
        return None
    if len(text) > MAX_TRACEBACK_CHARS:
        text = "…" + text[-MAX_TRACEBACK_CHARS:]
    return redact(text)


def case_problem(case: EvalCase, *, has_agent: bool) -> str | None:
    """Why ``case`` cannot be run, or ``None``."""
    if case.is_trace:
        try:
            trace_invocations(case)
        except CaseError as exc:
            return str(exc)
        return None
    if case.actual_conversation:
        return 'actualConversation is only allowed in trace mode (evalMode "trace")'
    if case.conversation is not None and case.conversation_scenario is not None:
        return "conversation and conversationScenario are mutually exclusive"
    if case.conversation is None and case.conversation_scenario is None:
        return "case has neither conversation nor conversationScenario"
    if not has_agent:
        return "no agent to run this case (only trace-mode cases run without one)"
    return None


def _contained(exc: BaseException) -> bool:
    """Whether ``exc``, raised by agent code, fails only its case.

    Everything but cancellation is: an agent's ``sys.exit()``, ``SystemExit`` or ``KeyboardInterrupt`` must not end
    the run. A ``KeyboardInterrupt`` that arrives while the case is being cancelled is the user's Ctrl-C (the event
    loop cancels the run on the first one) and goes on.
    """
    if isinstance(exc, asyncio.CancelledError):
        return False
    if isinstance(exc, KeyboardInterrupt):
        task = asyncio.current_task()
        return task is None or not task.cancelling()
    return True


def _check_savable(output: AgentOutput) -> None:
    # Tool arguments/results and message extras are free-form; a value JSON cannot hold would only surface when
    # the result is saved, after every case has run, and lose the whole run.
    try:
        data = to_json(output)
    except (PydanticSerializationError, RecursionError, ValueError) as exc:
        check_output_depth(output)  # a value nested too deep is named as such
        raise AgentError(f"agent output cannot be saved as JSON: {describe_exception(exc)}") from None
    if data.count(b"[") + data.count(b"{") > MAX_OUTPUT_DEPTH:
        # Only then can a value nest too deep (brackets in strings count too: a few more checks, never fewer).
        check_output_depth(output)


def _seconds(value: float | None) -> float | None:
    # Milliseconds, as ADK records them: finer digits would be noise.
    return None if value is None else round(max(value, 0.0), 3)


def _usage(output: AgentOutput, prices: PriceTable | None) -> TokenUsage | None:
    usage = output.usage
    if usage is None:
        return None
    if usage.total_tokens is None and (usage.input_tokens is not None or usage.output_tokens is not None):
        usage = usage.model_copy(update={"total_tokens": (usage.input_tokens or 0) + (usage.output_tokens or 0)})
    if prices is None:
        from ..model._prices import DEFAULT_PRICES

        prices = DEFAULT_PRICES
    return prices.with_cost(usage)


def _priced(invocation: Invocation, prices: PriceTable | None) -> Invocation:
    """A recorded invocation whose usage (read from trace spans) gets its cost, as a live run's does."""
    usage = invocation.usage
    if usage is None or usage.cost is not None or usage.model is None:
        return invocation
    if prices is None:
        from ..model._prices import DEFAULT_PRICES

        prices = DEFAULT_PRICES
    priced = prices.with_cost(usage)
    return invocation if priced is usage else invocation.model_copy(update={"usage": priced})


def _record(
    expected: Invocation,
    context: list[Message],
    output: AgentOutput,
    clock: TurnClock,
    wall: float,
    prices: PriceTable | None,
) -> Invocation:
    """The actual invocation of one turn, with its wall time, model/tool time and usage."""
    model = output.model_duration if output.model_duration is not None else clock.model_seconds()
    tool = output.tool_duration if output.tool_duration is not None else clock.tool_seconds()
    return Invocation(
        invocation_id=output.invocation_id or str(uuid4()),
        context_messages=context,
        user_content=expected.user_content,
        final_response=output.final_message(),
        tools=output.tools,
        intermediate_responses=output.intermediate_responses,
        creation_timestamp=time.time(),
        duration=_seconds(wall),
        model_duration=_seconds(model),
        tool_duration=_seconds(tool),
        usage=_usage(output, prices),
        agents=output.agents,
        execution_trace=output.execution_trace,
    )


async def _converse(
    agent: Agent,
    case: EvalCase,
    result: InferenceResult,
    budget: Budget | None,
    source: TurnSource | None = None,
    prices: PriceTable | None = None,
    actuals: list[Invocation] | None = None,
) -> list[Invocation]:
    """Run the conversation, appending each finished turn to ``actuals`` (so a failure or timeout keeps them)."""
    session = case.session_input
    state = copy.deepcopy(session.state) if session is not None else {}
    turns = source if source is not None else StaticTurns(case.conversation or [], result.session_id)
    if actuals is None:
        actuals = []
    index = 0
    while (expected := await turns.next(actuals)) is not None:
        context: list[Message] = [*case.context_messages, *expected.context_messages]
        # model_construct: the same state dict must reach every turn (validation would copy it).
        request = AgentRequest.model_construct(
            user_content=expected.user_content.model_copy(),
            session_id=turns.session_id,
            user_id=result.user_id,
            state=state,
            context_messages=context,
            history=list(actuals),
        )
        # The budget marks code that runs on behalf of this case, where the watchdog may interrupt a blocked loop.
        token = active.set(budget)
        mocks = turns.mocks(expected)
        try:
            with use_mocks(mocks), turn_clock() as clock:
                started = time.monotonic()
                output = await agent.run(request)
                wall = time.monotonic() - started
            _check_savable(output)
        except BaseException as exc:
            if not _contained(exc):
                raise
            where = turns.where(index, expected)
            if isinstance(exc, AgentTimeout) and budget is not None:
                raise CaseError(
                    f"inference timed out after {budget.timeout:g} s: the agent blocked the event loop on {where}"
                ) from None
            raise CaseError(f"agent failed on {where}: {describe_exception(exc)}", format_traceback(exc)) from None
        finally:
            active.reset(token)
        actual = _record(expected, context, output, clock, wall, prices)
        if mocks is not None and mocks.replay is not None:
            actual.replay = mocks.replay.record()  # what the turn did with its recording
        actuals.append(actual)
        index += 1
    return actuals


async def infer_case(
    agent: Agent | None,
    case: EvalCase,
    *,
    app_name: str,
    eval_set_id: str,
    session_id: str,
    timeout: float | None = None,
    prices: PriceTable | None = None,
    simulation: SimulationSettings | None = None,
) -> InferenceResult:
    """Run ``case`` through ``agent`` (or read its trace) and return the inference result.

    Never raises for problems of the case itself: an invalid case, anything the agent raises (``SystemExit`` and
    ``KeyboardInterrupt`` included; only cancellation propagates), a timeout (``timeout`` seconds for the whole
    case, enforced even on an async agent that blocks the event loop where the watchdog is available, see
    :mod:`agentgauge.agents._watchdog`) or unusable agent output gives a ``failed`` result with
    ``error_message``. Scenario cases and cases with ``expectedRunnerEnabled`` run through
    :func:`agentgauge.service.infer_simulated` with ``simulation``'s user simulator and expected agent.

    Each actual invocation records its wall time (``duration``), the time spent awaiting models and inside tools
    where the agent lets them be measured, and the agent's token usage with its cost from ``prices`` (default:
    the built-in table) when the model's price is known.
    """
    session = case.session_input
    result = InferenceResult(
        app_name=app_name,
        eval_set_id=eval_set_id,
        eval_case_id=case.eval_id,
        session_id=session_id,
        user_id=(session.user_id if session is not None else "") or DEFAULT_USER_ID,
    )
    problem = case_problem(case, has_agent=agent is not None)
    if problem is not None:
        return result.fail(problem)
    simulated = case.conversation_scenario is not None or case.expected_runner_enabled
    if case.is_trace and not simulated:
        result.inferences = [_priced(inv, prices) for inv in trace_invocations(case)[0]]
        return result
    budget = arm(timeout)
    finished: list[Invocation] = []
    try:
        converse = functools.partial(_converse, prices=prices)
        if simulated:
            from ._simulated import infer_simulated  # deferred: scenario cases are rare

            await asyncio.wait_for(infer_simulated(agent, case, result, budget, simulation, converse), timeout)
        else:
            assert agent is not None  # guaranteed by case_problem
            generator = simulation.mock_generator if simulation is not None else None
            turns = StaticTurns(case.conversation or [], result.session_id, generator=generator)
            result.inferences = await asyncio.wait_for(
                converse(agent, case, result, budget, turns, actuals=finished), timeout
            )
    except CaseError as exc:
        # A simulated conversation leaves its finished turns in partial_inferences.
        return result.fail(str(exc), partial=finished or result.partial_inferences, traceback=exc.traceback)
    except (TimeoutError, AgentTimeout):  # AgentTimeout: the watchdog fired just as the agent call ended
        return result.fail(f"inference timed out after {timeout:g} s", partial=finished or result.partial_inferences)
    finally:
        disarm(budget)
    return result
