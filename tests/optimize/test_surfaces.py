"""Surfaces: the texts of ADK agent trees (root, sub-agents, skills), of an OpenAIAgent and of any TextFields
agent; patched copies leave the original alone; patches, their ids, diffs and hash checks."""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path

import pytest

from agentgauge.agents import OpenAIAgent
from agentgauge.errors import InputError
from agentgauge.optimize import apply_patch, load_patch, make_patch, patch_diff, patch_id, surfaces_of


def _adk_tree() -> object:
    from google.adk.agents import LlmAgent
    from google.adk.skills.models import Frontmatter, Skill
    from google.adk.tools.skill_toolset import SkillToolset

    skill = Skill(frontmatter=Frontmatter(name="refunds", description="Refunds"), instructions="Refund in 14 days.")
    billing = LlmAgent(name="billing", model="gemini-2.5-flash", instruction="You handle billing.")
    dynamic = LlmAgent(name="dynamic", model="gemini-2.5-flash", instruction=lambda ctx: "from state")
    return LlmAgent(
        name="support",
        model="gemini-2.5-flash",
        instruction="You route questions.",
        sub_agents=[billing, dynamic],
        tools=[SkillToolset(skills=[skill])],
    )


def test_an_adk_tree_offers_every_static_instruction_and_skill() -> None:
    root = _adk_tree()
    surfaces = surfaces_of(root, "support/")
    assert [(s.surface_id, s.kind, s.owner) for s in surfaces.surfaces] == [
        ("support#instruction", "instruction", "support"),
        ("support#skill:refunds", "skill", "refunds"),
        ("billing#instruction", "instruction", "billing"),
    ]  # the instruction provider of "dynamic" is not a text
    patched = surfaces.patched({"billing#instruction": "Billing, kindly.", "support#skill:refunds": "30 days."})
    assert patched is not root
    assert patched.sub_agents[0].instruction == "Billing, kindly."  # type: ignore[attr-defined]
    assert patched.sub_agents[0].parent_agent is patched  # type: ignore[attr-defined]
    assert patched.tools[0].skills[0].instructions == "30 days."  # type: ignore[attr-defined]
    assert patched.instruction == "You route questions."  # type: ignore[attr-defined]
    assert root.sub_agents[0].instruction == "You handle billing."  # type: ignore[attr-defined]
    assert root.tools[0].skills[0].instructions == "Refund in 14 days."  # type: ignore[attr-defined]
    assert surfaces.choose(["billing#instruction"]).texts() == {"billing#instruction": "You handle billing."}
    with pytest.raises(
        InputError, match=re.escape("--surface: support/ has no text 'nope'; its texts are support#instruction")
    ):
        surfaces.choose(["nope"])


def add(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b


def test_an_openai_agent_offers_its_system_prompt_and_tool_descriptions() -> None:
    agent = OpenAIAgent("m", system_prompt="Be brief.", tools=[add])
    surfaces = surfaces_of(agent, "agent.py")
    assert surfaces.texts() == {"system_prompt": "Be brief.", "tool:add": "Add two numbers."}
    assert [s.kind for s in surfaces.surfaces] == ["system_prompt", "tool"]
    patched = surfaces.patched({"tool:add": "Adds a and b; call it for every sum."})
    assert isinstance(patched, OpenAIAgent) and patched.tools["add"].description.startswith("Adds a and b")
    assert patched.tools["add"].openai_schema()["function"]["description"].startswith("Adds a and b")
    assert agent.tools["add"].description == "Add two numbers."
    with pytest.raises(KeyError, match=re.escape("OpenAIAgent has no text field 'tool:mul'")):
        agent.with_text_fields({"tool:mul": "x"})


class Fields:
    def __init__(self, texts: Mapping[str, object]) -> None:
        self.texts = dict(texts)

    def text_fields(self) -> Mapping[str, object]:
        return self.texts

    def with_text_fields(self, texts: Mapping[str, str]) -> Fields:
        return Fields({**self.texts, **texts})

    def run(self, request: object) -> str:
        return "ok"


def test_any_agent_with_text_fields_and_agents_without_texts() -> None:
    surfaces = surfaces_of(Fields({"greeting": "Hello.", "tone": "warm"}), "fields.py")
    assert [(s.surface_id, s.kind) for s in surfaces.surfaces] == [("greeting", "text"), ("tone", "text")]
    assert surfaces.patched({"tone": "warm"}) is surfaces.obj  # nothing changes: the agent itself
    with pytest.raises(InputError, match=re.escape("fields.py: the agent has no text 'mood'")):
        surfaces.patched({"mood": "x"})
    with pytest.raises(InputError, match=r"f.py: text_fields\(\) must return a mapping of names to texts"):
        surfaces_of(Fields({"n": 3}), "f.py")
    with pytest.raises(InputError, match=re.escape("plain.py: the agent (function) has no texts to optimise")):
        surfaces_of(lambda request: "hi", "plain.py")
    with pytest.raises(InputError, match=re.escape("empty.py: the agent has no static text")):
        surfaces_of(Fields({}), "empty.py")


def test_patches_diffs_and_hash_checks(tmp_path: Path) -> None:
    surfaces = surfaces_of(Fields({"greeting": "Hello.\nBye.", "tone": "warm"}), "fields.py")
    patch = make_patch(surfaces, {"greeting": "Hello.\nSee you.", "tone": "warm"})
    assert patch.texts == {"greeting": "Hello.\nSee you."} and set(patch.replaces) == {"greeting"}
    assert patch_diff(surfaces.texts(), patch).splitlines() == [
        "--- a/greeting",
        "+++ b/greeting",
        "@@ -1,2 +1,2 @@",
        " Hello.",
        "-Bye.",
        "+See you.",
    ]
    assert patch_id({"a": "1", "b": "2"}) == patch_id({"b": "2", "a": "1"}) != patch_id({"a": "1"})
    path = tmp_path / "patch.json"
    path.write_text(patch.model_dump_json())
    loaded = load_patch(path)
    assert apply_patch(surfaces, loaded).text_fields()["greeting"] == "Hello.\nSee you."  # type: ignore[attr-defined]
    edited = surfaces_of(Fields({"greeting": "Hi.", "tone": "warm"}), "fields.py")
    with pytest.raises(
        InputError, match=re.escape("patch.json: the agent's text 'greeting' changed since the patch was made")
    ):
        apply_patch(edited, loaded, source=str(path))
    path.write_text('{"texts": {"greeting": 3}}')
    with pytest.raises(InputError, match=r"patch.json: texts.greeting: input should be a valid string"):
        load_patch(path)
