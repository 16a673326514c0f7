"""A simulated user played by any OpenAI-compatible model, and model-generated tool mock results.

Both run on the judge client (:class:`~agentgauge.judges.JudgeClient`): retries with backoff, the answer cache,
concurrency limits and masking of registered secrets are the judges' own.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from typing import Any

from ..judges import JudgeClient, JudgeError, JudgeMessage
from ._protocol import SimulatedUser, SimulationContext, SimulationError, UserTurn
from ._rules import ScenarioRules

__all__ = ["JudgeMockGenerator", "LlmUserSimulator", "adk_prompt", "render_history", "trpc_system_prompt"]

_ADK_PROMPT = """You play the user in a test of an AI agent. React to the agent's latest message the way this user \
would, guided by the conversation plan below (the plan says what the user wants; it is not a script).

Each turn, decide what the agent's latest message calls for, then write only the user's reply:
- ANSWER the agent's questions with facts from the plan; never invent facts the plan does not give.
- ADVANCE to the plan's next request once the current one is done.
- INTERVENE when the plan tells you to change the current request.
- CORRECT the agent when it is wrong or failed; the first time it fails a request, ask it to try again.
- END when every request of the plan is done, the agent failed a request more than once, it made a mistake it \
cannot undo, or it handed you over to a human: then reply with {stop_signal}
Do not end early while the agent is still making progress.
{persona}
# Conversation plan

{plan}

# Conversation so far

{history}
"""

_TRPC_PROMPT = """You are simulating the user in an evaluation conversation with an AI agent.
Each turn you receive the agent's latest reply (empty when the conversation is just starting) and answer with \
exactly one next user message that moves the conversation toward the user's goal.

- Write as the user would, following the conversation plan closely.
- Answer the agent's questions, give missing details, ask for the next step, or correct the agent when needed.
- Stay consistent with the user's goal, constraints and earlier messages; be concise.
- Do not explain your reasoning, describe the plan, or write several turns."""


def render_history(history: Sequence[Any], *, include_function_calls: bool = False) -> str:
    """The conversation as ``author: text`` lines separated by blank lines (tool lines optional, as ADK does)."""
    lines: list[str] = []
    for inv in history:
        lines.append(f"user: {inv.user_content.content}")
        for message in inv.intermediate_responses:
            if message.content:
                lines.append(f"{(message.model_extra or {}).get('author') or 'agent'}: {message.content}")
        if include_function_calls:
            for tool in inv.tools:
                args = json.dumps(tool.arguments, ensure_ascii=False, default=str)
                lines.append(f"agent called tool '{tool.name}' with args: {args}")
                lines.append(f"Tool '{tool.name}' returned: {json.dumps(tool.result, ensure_ascii=False, default=str)}")
        final = inv.final_response
        if final is not None and final.content:
            lines.append(f"{(final.model_extra or {}).get('author') or 'agent'}: {final.content}")
    return "\n\n".join(lines)


def adk_prompt(rules: ScenarioRules, history: str, custom_instructions: str | None = None) -> str:
    """The single stateless prompt of an ADK-dialect turn (``custom_instructions`` may use ``{{ stop_signal }}``,
    ``{{ conversation_plan }}``, ``{{ conversation_history }}`` and ``{{ persona }}``)."""
    persona = rules.persona.render(rules.stop_signal) if rules.persona is not None else ""
    if custom_instructions:
        values = {
            "stop_signal": rules.stop_signal,
            "conversation_plan": rules.plan,
            "conversation_history": history,
            "persona": persona,
        }
        # ADK renders these with Jinja; the four placeholders are all it documents, so they are substituted here.
        return re.sub(
            r"\{\{\s*(stop_signal|conversation_plan|conversation_history|persona)\s*\}\}",
            lambda m: values[m.group(1)],
            custom_instructions,
        )
    block = f"\n# Persona\n\n{persona}\n" if persona else ""
    return _ADK_PROMPT.format(stop_signal=rules.stop_signal, persona=block, plan=rules.plan, history=history)


def trpc_system_prompt(rules: ScenarioRules) -> str:
    """The system message that starts a trpc-dialect simulator session."""
    parts = [_TRPC_PROMPT]
    if rules.stop_signal:
        parts.append(
            f"- When the user's goal is already satisfied, output only this stop signal and nothing else: "
            f"{rules.stop_signal}"
        )
    if rules.persona is not None:
        parts += ["", "Persona:", rules.persona.render(rules.stop_signal)]
    if rules.starting_prompt:
        parts += ["", "The conversation already started with this fixed first user message:", rules.starting_prompt]
    parts += ["", "Conversation plan:", rules.plan]
    return "\n".join(parts)


class _LlmUser:
    def __init__(self, owner: LlmUserSimulator, context: SimulationContext) -> None:
        self._owner = owner
        self._rules = context.rules
        # trpc: the simulator keeps its own chat session; ADK: every turn is one stateless prompt.
        self._session: list[dict[str, str]] = [{"role": "system", "content": trpc_system_prompt(context.rules)}]

    async def next_message(self, turn: UserTurn) -> str | None:
        if self._rules.dialect == "adk":
            history = render_history(turn.history, include_function_calls=self._owner.include_function_calls)
            prompt = adk_prompt(self._rules, history, self._owner.custom_instructions)
            messages: list[JudgeMessage] = [{"role": "user", "content": prompt}]
        else:
            self._session.append({"role": "user", "content": turn.last_agent_message})
            messages = list(self._session)
        try:
            answer = await self._owner.client.ask(messages, generation_config=self._owner.generation_config)
        except JudgeError as exc:
            raise SimulationError(f"user simulator {self._owner.client.label} failed: {exc}") from None
        if not answer.strip():
            raise SimulationError(f"user simulator {self._owner.client.label} returned an empty message")
        if self._rules.dialect == "trpc":
            self._session.append({"role": "assistant", "content": answer})
        return answer


class LlmUserSimulator:
    """The simulated user played by a model through ``client`` (a :class:`~agentgauge.judges.JudgeClient`).

    - ADK scenarios: each turn sends one prompt holding the plan, the persona, the whole conversation so far and
      the stop signal (ADK re-renders the history every turn; ``include_function_calls`` adds tool lines,
      ``custom_instructions`` replaces the prompt).
    - trpc scenarios: the simulator keeps its own chat session, started with a system message holding the plan;
      each turn sends only the agent's last reply.
    """

    def __init__(
        self,
        client: JudgeClient,
        *,
        generation_config: Mapping[str, Any] | None = None,
        custom_instructions: str | None = None,
        include_function_calls: bool = False,
    ) -> None:
        self.client = client
        self.generation_config = dict(generation_config or {})
        self.custom_instructions = custom_instructions
        self.include_function_calls = include_function_calls

    def start(self, context: SimulationContext) -> SimulatedUser:
        """A simulated user for one conversation."""
        return _LlmUser(self, context)


class JudgeMockGenerator:
    """Generates ``llmGenerator`` tool results with a judge client: the rule's prompt is the system message, the
    call's arguments (JSON) the user message."""

    def __init__(self, client: JudgeClient, *, generation_config: Mapping[str, Any] | None = None) -> None:
        self.client = client
        self.generation_config = dict(generation_config or {})

    async def generate(self, prompt: str, arguments: str) -> str:
        """The model's raw answer for one mocked call."""
        messages: list[JudgeMessage] = [
            {"role": "system", "content": prompt},
            {"role": "user", "content": arguments or "{}"},
        ]
        return await self.client.ask(messages, generation_config=self.generation_config)
