"""User personas for simulated users: ADK's persona shape and three built-in personas (our own wording)."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from ..model._base import empty_list

__all__ = ["BUILTIN_PERSONAS", "UserBehavior", "UserPersona", "resolve_persona"]


class UserBehavior(BaseModel):
    """One trait of a persona: instructions for the simulated user, rubrics a judge uses to spot violations."""

    model_config = ConfigDict(extra="allow")

    name: str
    description: str = ""
    behavior_instructions: list[str] = Field(default_factory=empty_list)
    violation_rubrics: list[str] = Field(default_factory=empty_list)


class UserPersona(BaseModel):
    """Who the simulated user is (ADK ``UserPersona``): an id, a description and behaviours."""

    model_config = ConfigDict(extra="allow")

    id: str = ""
    description: str = ""
    behaviors: list[UserBehavior] = Field(default_factory=empty_list)

    def render(self, stop_signal: str) -> str:
        """The persona as prompt text (``{{ stop_signal }}`` in instructions is replaced by ``stop_signal``)."""
        lines = [self.description.strip()]
        for behavior in self.behaviors:
            lines += ["", f"## {behavior.name}"]
            if behavior.description:
                lines.append(behavior.description)
            lines += [f"  * {text}" for text in behavior.behavior_instructions]
        return "\n".join(lines).replace("{{ stop_signal }}", stop_signal).strip()


def _behavior(name: str, description: str, *instructions: str, violations: tuple[str, ...] = ()) -> UserBehavior:
    return UserBehavior(
        name=name,
        description=description,
        behavior_instructions=list(instructions),
        violation_rubrics=list(violations),
    )


_END = _behavior(
    "End the conversation when done",
    "The user ends the conversation once the plan is complete or the agent cannot help.",
    "When every request of the plan is fulfilled, or the agent failed a request twice, reply with `{{ stop_signal }}`.",
    "Do not end the conversation while a request of the plan is still open and the agent is making progress.",
    violations=("The user ends the conversation while the plan is unfinished and the agent is still helping.",),
)
_DETAILED = _behavior(
    "Detail oriented",
    "The user gives every detail of the current request up front.",
    "State all details the plan gives for the current request in one message.",
    violations=("The user withholds details of the current request that the plan provides.",),
)
_GOAL = _behavior(
    "Goal oriented",
    "The user states the goal and gives details only when asked.",
    "Say what you want to achieve; give the plan's details only when the agent asks for them.",
    violations=("The user volunteers details the agent did not ask for.",),
)
_RELEVANT = _behavior(
    "Answer relevant questions only",
    "The user answers questions that matter for the plan and declines others.",
    "Answer questions about the plan's requests; politely decline unrelated questions.",
)
_ALL = _behavior(
    "Answer all questions",
    "The user answers every question the agent asks.",
    "Answer every question; say you do not know when the plan gives no answer.",
)
_CORRECT = _behavior(
    "Correct the agent",
    "The user points out the agent's mistakes.",
    "When the agent states something wrong or does the wrong thing, say so and ask it to fix it.",
)
_NO_CORRECT = _behavior(
    "Do not correct the agent",
    "The user does not notice or point out the agent's mistakes.",
    "Accept the agent's statements as they are.",
)
_PROFESSIONAL = _behavior("Professional tone", "The user writes briefly and formally.", "Be brief and formal.")
_CASUAL = _behavior("Conversational tone", "The user writes informally.", "Write casually, as in a chat.")

BUILTIN_PERSONAS: dict[str, UserPersona] = {
    "EXPERT": UserPersona(
        id="EXPERT",
        description="An experienced user who knows what they want and how the agent should help.",
        behaviors=[_DETAILED, _RELEVANT, _CORRECT, _PROFESSIONAL, _END],
    ),
    "NOVICE": UserPersona(
        id="NOVICE",
        description="A first-time user who relies on the agent to lead the way.",
        behaviors=[_GOAL, _ALL, _NO_CORRECT, _CASUAL, _END],
    ),
    "EVALUATOR": UserPersona(
        id="EVALUATOR",
        description="A user testing the agent methodically, request by request.",
        behaviors=[_DETAILED, _RELEVANT, _NO_CORRECT, _CASUAL, _END],
    ),
}
"""The persona ids ADK scenarios may name (``EXPERT``, ``NOVICE``, ``EVALUATOR``)."""


def resolve_persona(value: Any) -> UserPersona | None:
    """A scenario's ``user_persona``: ``None``, a built-in persona id, or a persona object.

    Raises ``ValueError`` for an unknown id or a malformed object.
    """
    if value is None:
        return None
    if isinstance(value, str):
        persona = BUILTIN_PERSONAS.get(value.strip().upper())
        if persona is None:
            raise ValueError(f"unknown user persona {value!r}; built-in personas: {', '.join(BUILTIN_PERSONAS)}")
        return persona
    if isinstance(value, UserPersona):
        return value
    try:
        return UserPersona.model_validate(value)
    except ValidationError as exc:
        first = exc.errors(include_url=False)[0]
        where = ".".join(str(p) for p in first["loc"])
        raise ValueError(f"invalid user persona: {where}: {first['msg']}") from None
