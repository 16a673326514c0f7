"""The prompts the reflection model gets, per kind of surface. GEPA fills ``<curr_param>`` with the current text
and ``<side_info>`` with the case records (see :mod:`._feedback`); the answer's text between ``` fences is the
proposal."""

from __future__ import annotations

__all__ = ["reflection_template"]

_EVIDENCE = """It was then evaluated. Below are the tasks it was given, what it answered and which tools it called,
what was expected, and the evaluation's verdict on each:
```
<side_info>
```
"""

_RULES = """Write a new version that fixes the failures without breaking the tasks that passed. Work out from the
tasks what they ask for and the facts and conventions the expected answers follow; put what the agent could not
have known into the new text. Keep what the current text says unless the evaluation contradicts it: other tasks may
depend on it. Return the whole new text, not a list of changes.

Provide the new text within ``` blocks."""

_TEMPLATES = {
    "instruction": "I gave an AI agent these instructions:\n```\n<curr_param>\n```\n\n" + _EVIDENCE + "\n"
    "The agent may also have used skills or sub-agents with instructions of their own: leave those out of its "
    "instructions.\n" + _RULES,
    "system_prompt": "I gave an AI assistant this system prompt:\n```\n<curr_param>\n```\n\n"
    + _EVIDENCE
    + "\n"
    + _RULES,
    "skill": "An AI agent could load a skill named `{owner}` with these instructions:\n```\n<curr_param>\n```\n\n"
    + _EVIDENCE
    + "\nOnly the tasks that used this skill matter here; the agent's own instructions and other skills are not "
    "yours to change. If no task used the skill, return its instructions unchanged.\n" + _RULES,
    "tool": "An AI agent could call a tool named `{owner}`; the model reads this description of it to decide when "
    "and how to call it:\n```\n<curr_param>\n```\n\n" + _EVIDENCE + "\nRewrite only the tool's description: say "
    "when to call it and what its arguments mean, as the failures show.\n" + _RULES,
    "text": "An AI agent works with this text (its `{owner}`):\n```\n<curr_param>\n```\n\n" + _EVIDENCE + "\n" + _RULES,
}


def reflection_template(kind: str, owner: str) -> str:
    """The reflection prompt template of a surface of ``kind`` belonging to ``owner`` (a skill, tool or field)."""
    template = _TEMPLATES.get(kind, _TEMPLATES["text"])
    return template.replace("{owner}", owner or "text")
