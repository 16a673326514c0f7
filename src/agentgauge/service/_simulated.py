"""Inference for scenario cases and cases with an expected runner (trpc ``expectedRunnerEnabled``)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence

from ..agents import Agent
from ..agents._safety import describe_exception
from ..agents._watchdog import Budget
from ..mocks import ActiveMocks
from ..model import EvalCase, Invocation, Message, SimulationSummary
from ..simulation._protocol import SimulatedUser, SimulationContext, SimulationError, UserTurn
from ..simulation._rules import ScenarioRules, scenario_rules
from ..simulation._settings import SimulationSettings
from ._turns import CaseError, StaticTurns, TurnSource, trace_invocations, user_only
from ._types import InferenceResult

__all__ = ["SimulatedTurns", "infer_simulated"]

Converse = Callable[[Agent, EvalCase, InferenceResult, "Budget | None", TurnSource], Awaitable[list[Invocation]]]
"""The run engine's session runner: ``converse(agent, case, result, budget, turns)`` -> the agent's invocations."""


class SimulatedTurns:
    """User turns written by a simulated user, under the scenario's stop signal and turn limit."""

    def __init__(self, user: SimulatedUser, rules: ScenarioRules, session_id: str) -> None:
        self.user = user
        self.rules = rules
        self.session_id = session_id
        self.sent = 0
        self.stop_reason = ""
        self.played: Sequence[Invocation] = ()  # the conversation's finished turns (the run engine's own list)

    async def next(self, actuals: Sequence[Invocation]) -> Invocation | None:
        """The next simulated user message, or ``None`` when the conversation is over."""
        self.played = actuals
        last = actuals[-1].final_response if actuals else None
        if actuals and last is None and self.rules.dialect == "trpc":
            raise CaseError(f"the agent gave no final response on simulated turn {len(actuals)}")
        if self.rules.max_turns is not None and self.sent >= self.rules.max_turns:
            self.stop_reason = "turn_limit"
            return None
        if self.sent == 0 and self.rules.starting_prompt:
            message: str | None = self.rules.starting_prompt
        else:
            turn = UserTurn(self.sent, last.content if last is not None else "", list(actuals))
            try:
                message = await self.user.next_message(turn)
            except SimulationError as exc:
                raise CaseError(str(exc)) from None
            except Exception as exc:
                raise CaseError(f"user simulator failed on turn {self.sent + 1}: {describe_exception(exc)}") from None
            if message is None:
                self.stop_reason = "simulator"
                return None
            if not isinstance(message, str):
                raise CaseError(f"user simulator returned {type(message).__name__}, expected str or None")
            if self.rules.is_stop(message):
                self.stop_reason = "stop_signal"
                return None
            if not message.strip():
                raise CaseError(f"user simulator returned an empty message on turn {self.sent + 1}")
        self.sent += 1
        return Invocation(user_content=Message(role="user", content=message))

    def mocks(self, invocation: Invocation) -> ActiveMocks | None:
        """Simulated turns have no tool mocks (as in trpc)."""
        return None

    def where(self, index: int, invocation: Invocation) -> str:
        """``simulated turn i``."""
        return f"simulated turn {index + 1}"


def _expected_agent(settings: SimulationSettings, why: str) -> Agent:
    if settings.expected_agent is None:
        raise CaseError(f"{why} but no expected agent is configured (--expected-agent, or expected_agent=...)")
    return settings.expected_agent


def _trace_inputs(case: EvalCase, actuals: list[Invocation]) -> list[Invocation]:
    # The expected agent replays the recorded user turns with the conversation's toolMock.expected of that turn.
    conversation = case.conversation or []
    out = []
    for i, actual in enumerate(actuals):
        source = conversation[i] if case.actual_conversation and i < len(conversation) else actual
        out.append(
            Invocation(invocation_id=actual.invocation_id, user_content=actual.user_content, tool_mock=source.tool_mock)
        )
    return out


async def infer_simulated(
    agent: Agent | None,
    case: EvalCase,
    result: InferenceResult,
    budget: Budget | None,
    settings: SimulationSettings | None,
    converse: Converse,
) -> None:
    """Fill ``result`` for a scenario case or a case with ``expectedRunnerEnabled``.

    - static conversation: the agent answers with ``toolMock.actual``, the expected agent replays the same user
      turns in session ``<session>-expected`` with ``toolMock.expected``;
    - trace mode: the recorded actuals are kept, the expected agent replays their user turns;
    - scenario, driver ``actual``: the simulated user talks to the agent; the expected agent (if enabled) replays
      the simulated user turns;
    - scenario, driver ``expected``: the simulated user talks to the expected agent, then the agent replays those
      user turns.

    Without ``expectedRunnerEnabled`` a scenario's expected invocations are user-only placeholders. Raises
    :class:`~agentgauge.service._inference.CaseError` for anything that fails the case.
    """
    settings = settings or SimulationSettings()
    generator = settings.mock_generator
    expected_session = f"{result.session_id}-expected"
    scenario = case.conversation_scenario
    if scenario is None:
        expected_agent = _expected_agent(settings, "expectedRunnerEnabled is set")
        if case.is_trace:
            result.inferences = trace_invocations(case)[0]
            inputs = _trace_inputs(case, result.inferences)
        else:
            assert agent is not None  # case_problem checked it
            inputs = list(case.conversation or [])
            turns = StaticTurns(inputs, result.session_id, side="actual", generator=generator)
            result.inferences = await converse(agent, case, result, budget, turns)
        replay = StaticTurns(inputs, expected_session, side="expected", generator=generator)
        result.expected_inferences = await converse(expected_agent, case, result, budget, replay)
        return
    try:
        rules = scenario_rules(scenario, max_turns=settings.max_turns, adk_max_invocations=settings.adk_max_invocations)
    except ValueError as exc:
        raise CaseError(f"conversationScenario: {exc}") from None
    if settings.user_simulator is None:
        raise CaseError(
            "no user simulator for this conversationScenario case: pass --simulator-model (or --judge-model), "
            "--user-simulator, or user_simulator=..."
        )
    context = SimulationContext(case.eval_id, scenario, rules, case.session_input)
    try:
        user = settings.user_simulator.start(context)
    except Exception as exc:
        raise CaseError(f"user simulator failed to start: {describe_exception(exc)}") from None
    enabled = case.expected_runner_enabled
    assert agent is not None  # case_problem checked it
    # Recorded before the conversation starts, so a case that fails half-way still shows the turns it played.
    summary = result.simulation = SimulationSummary(dialect=rules.dialect, driver=rules.driver, scenario=scenario)
    simulated = SimulatedTurns(user, rules, expected_session if rules.driver == "expected" else result.session_id)
    try:
        await _play(agent, case, result, budget, settings, converse, simulated, enabled)
    except BaseException:
        summary.stop_reason = "error"  # timeouts (cancellation) included
        if rules.driver == "actual":  # the turns the agent finished are the conversation so far (shown, not scored)
            result.partial_inferences = list(simulated.played)
        raise
    finally:
        summary.turns = simulated.sent
    summary.stop_reason = simulated.stop_reason


async def _play(
    agent: Agent,
    case: EvalCase,
    result: InferenceResult,
    budget: Budget | None,
    settings: SimulationSettings,
    converse: Converse,
    simulated: SimulatedTurns,
    enabled: bool,
) -> None:
    if simulated.rules.driver == "expected":
        expected_agent = _expected_agent(settings, 'conversationScenario driver "expected" needs an expected agent;')
        driven = await converse(expected_agent, case, result, budget, simulated)
        _check_started(driven)
        replay = StaticTurns([user_only(inv) for inv in driven], result.session_id)
        result.inferences = await converse(agent, case, result, budget, replay)
        result.expected_inferences = driven if enabled else [user_only(inv) for inv in driven]
    else:
        result.inferences = await converse(agent, case, result, budget, simulated)
        _check_started(result.inferences)
        if enabled:
            expected_agent = _expected_agent(settings, "expectedRunnerEnabled is set")
            replay = StaticTurns(
                [user_only(inv) for inv in result.inferences], f"{result.session_id}-expected", side="expected"
            )
            result.expected_inferences = await converse(expected_agent, case, result, budget, replay)
        else:
            result.expected_inferences = [user_only(inv) for inv in result.inferences]


def _check_started(invocations: list[Invocation]) -> None:
    if not invocations:
        raise CaseError("the simulated user ended the conversation before the first turn")
