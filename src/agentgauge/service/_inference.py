"""Inference for one eval case: one session, invocations in order, failures kept inside the case."""

from __future__ import annotations

import asyncio
import copy
import time

from pydantic_core import PydanticSerializationError, to_json

from .._uuid import uuid4
from ..agents import Agent, AgentError, AgentOutput, AgentRequest
from ..agents._safety import check_output_depth, describe_exception
from ..agents._watchdog import AgentTimeout, Budget, active, arm, disarm
from ..model import EvalCase, Invocation, Message
from ._types import InferenceResult

__all__ = ["DEFAULT_USER_ID", "case_problem", "expected_invocations", "infer_case", "trace_invocations", "user_only"]

DEFAULT_USER_ID = "user"
"""The user id of a session when the case has no ``sessionInput.userId``."""


class CaseError(ValueError):
    """A case cannot be run as written (reported as the case's ``errorMessage``).

    ``traceback`` is the formatted traceback of the agent exception behind it (secrets masked), if any.
    """

    def __init__(self, message: str, traceback: str | None = None) -> None:
        super().__init__(message)
        self.traceback = traceback


MAX_TRACEBACK_CHARS = 20_000
"""A stored traceback keeps at most this many characters (its end, where the failing frame is)."""


def format_traceback(exc: BaseException) -> str | None:
    """The traceback of ``exc`` as text with registered secrets masked, at most :data:`MAX_TRACEBACK_CHARS` long
    (``None`` if it cannot be formatted)."""
    import traceback

    from .._redact import redact

    try:
        text = "".join(traceback.format_exception(exc)).rstrip("\n")
    except Exception:  # a broken exception object must not take the case down a second time
        return None
    if len(text) > MAX_TRACEBACK_CHARS:
        text = "…" + text[-MAX_TRACEBACK_CHARS:]
    return redact(text)


def user_only(invocation: Invocation) -> Invocation:
    """A copy of ``invocation`` keeping only its id and user content (an expectation with nothing expected)."""
    return Invocation(invocation_id=invocation.invocation_id, user_content=invocation.user_content)


def trace_invocations(case: EvalCase) -> tuple[list[Invocation], list[Invocation]]:
    """The (actuals, expecteds) of a trace-mode case, per the trace-mode table.

    ========================  ==================  =====================================  ==================
    conversation              actualConversation  actuals                                expecteds
    ========================  ==================  =====================================  ==================
    set                       –                   conversation                           user-input-only
    –                         set                 actualConversation                     user-input-only
    set                       set (same length)   actualConversation                     conversation
    ========================  ==================  =====================================  ==================
    """
    expected, actual = case.conversation or [], case.actual_conversation or []
    if case.conversation_scenario is not None:
        raise CaseError("conversationScenario is not allowed in trace mode")
    if expected and actual:
        if len(expected) != len(actual):
            raise CaseError(
                f"actualConversation has {len(actual)} invocations but conversation has {len(expected)}; "
                "trace mode needs the same length"
            )
        return list(actual), list(expected)
    recorded = actual or expected
    if not recorded:
        raise CaseError("trace-mode case has neither conversation nor actualConversation")
    return list(recorded), [user_only(inv) for inv in recorded]


def expected_invocations(case: EvalCase) -> list[Invocation]:
    """What a case's actual invocations are scored against."""
    if case.is_trace:
        return trace_invocations(case)[1]
    return list(case.conversation or [])


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
    if case.conversation_scenario is not None:
        return "conversationScenario (user simulation) is not supported by this run engine; use a conversation"
    if case.conversation is None:
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
    check_output_depth(output)
    try:
        to_json(output)
    except (PydanticSerializationError, RecursionError, ValueError) as exc:
        raise AgentError(f"agent output cannot be saved as JSON: {describe_exception(exc)}") from None


async def _converse(
    agent: Agent, case: EvalCase, result: InferenceResult, budget: Budget | None, actuals: list[Invocation]
) -> list[Invocation]:
    """Run the conversation, appending each finished turn to ``actuals`` (so a failure or timeout keeps them)."""
    session = case.session_input
    state = copy.deepcopy(session.state) if session is not None else {}
    conversation = case.conversation or []
    for index, expected in enumerate(conversation):
        context: list[Message] = [*case.context_messages, *expected.context_messages]
        # model_construct: the same state dict must reach every turn (validation would copy it).
        request = AgentRequest.model_construct(
            user_content=expected.user_content.model_copy(),
            session_id=result.session_id,
            user_id=result.user_id,
            state=state,
            context_messages=context,
            history=list(actuals),
        )
        # The budget marks code that runs on behalf of this case, where the watchdog may interrupt a blocked loop.
        token = active.set(budget)
        try:
            output = await agent.run(request)
            _check_savable(output)
        except BaseException as exc:
            if not _contained(exc):
                raise
            label = f" ({expected.invocation_id})" if expected.invocation_id else ""
            where = f"invocation {index + 1} of {len(conversation)}{label}"
            if isinstance(exc, AgentTimeout) and budget is not None:
                raise CaseError(
                    f"inference timed out after {budget.timeout:g} s: the agent blocked the event loop on {where}"
                ) from None
            raise CaseError(f"agent failed on {where}: {describe_exception(exc)}", format_traceback(exc)) from None
        finally:
            active.reset(token)
        actuals.append(
            Invocation(
                invocation_id=str(uuid4()),
                context_messages=context,
                user_content=expected.user_content,
                final_response=output.final_message(),
                tools=output.tools,
                intermediate_responses=output.intermediate_responses,
                creation_timestamp=time.time(),
            )
        )
    return actuals


async def infer_case(
    agent: Agent | None,
    case: EvalCase,
    *,
    app_name: str,
    eval_set_id: str,
    session_id: str,
    timeout: float | None = None,
) -> InferenceResult:
    """Run ``case`` through ``agent`` (or read its trace) and return the inference result.

    Never raises for problems of the case itself: an invalid case, anything the agent raises (``SystemExit`` and
    ``KeyboardInterrupt`` included; only cancellation propagates), a timeout (``timeout`` seconds for the whole
    case, enforced even on an async agent that blocks the event loop where the watchdog is available, see
    :mod:`agentgauge.agents._watchdog`) or unusable agent output gives a ``failed`` result with
    ``error_message``.
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
    if case.is_trace:
        result.inferences = trace_invocations(case)[0]
        return result
    assert agent is not None  # guaranteed by case_problem
    budget = arm(timeout)
    finished: list[Invocation] = []
    try:
        result.inferences = await asyncio.wait_for(_converse(agent, case, result, budget, finished), timeout)
    except CaseError as exc:
        return result.fail(str(exc), partial=finished, traceback=exc.traceback)
    except (TimeoutError, AgentTimeout):  # AgentTimeout: the watchdog fired just as the agent call ended
        return result.fail(f"inference timed out after {timeout:g} s", partial=finished)
    finally:
        disarm(budget)
    return result
