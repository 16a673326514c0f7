"""Prompts of the multi-turn judge metrics (agentgauge's own wording; ADK sends these metrics to Vertex AI or uses
prompts of its own) and the conversation transcript they show the judge."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from ...criteria._llm import Rubric
from ...model import Invocation

__all__ = [
    "BUILT_IN_RUBRICS",
    "MULTI_TURN_PROPERTIES",
    "USER_SIMULATOR_TURN",
    "render_dialogue",
    "render_history",
    "render_persona",
]


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, default=str)


def render_dialogue(invocations: Sequence[Invocation]) -> str:
    """The whole conversation, turn by turn: user message, tool calls with their results, intermediate and final
    agent messages (``USER TURN 2: ...``, ``AGENT TURN 2 (tool call): name({...}) -> {...}``)."""
    lines: list[str] = []
    for n, inv in enumerate(invocations, start=1):
        if inv.user_content.content:
            lines.append(f"USER TURN {n}: {inv.user_content.content}")
        for tool in inv.tools:
            lines.append(f"AGENT TURN {n} (tool call): {tool.name}({_json(tool.arguments)}) -> {_json(tool.result)}")
        for message in inv.intermediate_responses:
            if message.content:
                lines.append(f"AGENT TURN {n} (intermediate): {message.content}")
        final = inv.final_response.content if inv.final_response is not None else ""
        lines.append(f"AGENT TURN {n}: {final or '(no final response)'}")
    return "\n".join(lines)


def render_history(invocations: Sequence[Invocation]) -> str:
    """The user and agent messages of the conversation so far (``user: ...`` / ``agent: ...``)."""
    lines: list[str] = []
    for inv in invocations:
        if inv.user_content.content:
            lines.append(f"user: {inv.user_content.content}")
        if inv.final_response is not None:
            lines.append(f"agent: {inv.final_response.content}")
    return "\n\n".join(lines) or "(the conversation has not started)"


def render_persona(persona: Any) -> str:
    """A user persona as text (scenario personas may be strings or objects)."""
    if persona is None or persona == "":
        return "(no persona given)"
    return persona if isinstance(persona, str) else _json(persona)


_BLOCKS = """\
For every property, in the order given, write exactly these four lines and then a blank line:
ID: <the property's id>
Property: <the property's text, copied exactly>
Rationale: <your reasoning, citing turn numbers>
Verdict: <yes or no>

Say "yes" only when the conversation clearly shows the property holds (or it does not apply); otherwise "no".
"""

MULTI_TURN_PROPERTIES = (
    """\
You review a whole conversation between a user and an AI agent. {focus}
Judge the agent's performance across all turns together: a mistake corrected in a later turn counts less than
one left standing, and later turns must stay consistent with earlier ones.

Conversation:
{dialogue}

Properties:
{rubrics}

"""
    + _BLOCKS
)

_FOCUS = {
    "multi_turn_task_success_v1": "Decide whether the agent accomplished what the user wanted.",
    "multi_turn_trajectory_quality_v1": "Assess the path the agent took: the steps, their order and their purpose.",
    "multi_turn_tool_use_quality_v1": "Assess how the agent used its tools over the conversation.",
    "rubric_based_multi_turn_trajectory_quality_v1": "Assess the agent's behaviour against the given properties.",
}


def focus(metric: str) -> str:
    """The one-sentence task of a multi-turn metric's judge."""
    return _FOCUS[metric]


def _rubrics(pairs: Sequence[tuple[str, str]]) -> tuple[Rubric, ...]:
    return tuple(Rubric.model_validate({"id": rid, "content": {"text": text}}) for rid, text in pairs)


BUILT_IN_RUBRICS: dict[str, tuple[Rubric, ...]] = {
    "multi_turn_task_success_v1": _rubrics(
        [
            (
                "goals_understood",
                "The agent correctly understood every goal the user expressed during the conversation.",
            ),
            (
                "goals_achieved",
                "By the end of the conversation every goal of the user was achieved, or the agent clearly and "
                "correctly explained why it could not be.",
            ),
            ("no_false_claims", "The agent never claimed to have done something it did not do."),
        ]
    ),
    "multi_turn_trajectory_quality_v1": _rubrics(
        [
            ("relevant_steps", "Every action the agent took served the user's requests."),
            ("no_wasted_steps", "The agent avoided unnecessary, repeated or circular steps."),
            ("logical_order", "The agent's steps followed a sensible order, using earlier results where needed."),
            ("adapts_to_user", "The agent took the user's follow-ups and corrections into account in later turns."),
        ]
    ),
    "multi_turn_tool_use_quality_v1": _rubrics(
        [
            ("right_tools", "The agent called the tools that fit each request and no unsuitable ones."),
            ("right_arguments", "Tool arguments were correct and grounded in what the user said or tools returned."),
            ("results_used", "The agent used the tool results correctly in its answers and did not contradict them."),
            ("failures_handled", "Failed or empty tool calls were noticed and handled sensibly, not ignored."),
        ]
    ),
}
"""The properties the three Vertex-backed ADK metrics are judged on (agentgauge's own; Vertex's are not public)."""

USER_SIMULATOR_TURN = """\
You check one message written by a simulated user who follows a conversation plan while talking to an AI agent.

The message is valid when all of these hold:
- it follows the conversation plan: it asks for or says what the plan calls for next, given what the agent has
  already done, and does not invent goals the plan does not contain;
- it responds sensibly to the agent's last message (answers the agent's question, corrects the agent, ...);
- it stays in the persona;
- it is the stop signal "{stop_signal}" exactly when the plan is complete or cannot progress any more, and never
  before that. A message that is the stop signal is valid only if the conversation is indeed finished.

Conversation plan:
{plan}

User persona:
{persona}

Conversation so far:
{history}

Message to check:
{message}

Answer with a JSON object only: {{"reasoning": "<one or two sentences>", "is_valid": "valid" or "invalid"}}
"""
