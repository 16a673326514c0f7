"""The surfaces of a Google ADK agent tree, and a patched copy of it.

Each LLM agent of the tree (the root and its sub-agents, depth first) offers its static instruction as
``<agent name>#instruction`` (an instruction provider, a callable, is not a text and is left alone), and each skill
of its ``SkillToolset``s its instructions as ``<agent name>#skill:<skill name>`` -- what ADK's
``GEPARootAgentOptimizer`` rewrites for the root, extended to sub-agents. An ``App`` offers its root agent's.
The copy is made with ADK's own ``clone`` (sub-agents cloned recursively) and
``SkillToolset.clone_with_updated_skills``; the original tree is never changed.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from ._surfaces import Surface

__all__ = ["adk_surfaces", "patched_adk_agent"]


def _skill_toolsets(agent: Any) -> Iterator[Any]:
    from google.adk.tools.skill_toolset import SkillToolset

    for tool in getattr(agent, "tools", None) or []:
        if isinstance(tool, SkillToolset):
            yield tool


def _walk(agent: Any) -> Iterator[Any]:
    yield agent
    for sub in getattr(agent, "sub_agents", None) or []:
        yield from _walk(sub)


def _root(obj: Any) -> Any:
    return getattr(obj, "root_agent", None) if not hasattr(obj, "sub_agents") else obj


def adk_surfaces(obj: Any) -> list[Surface]:
    """Every static instruction and skill instruction of the tree under ``obj`` (an agent or an ``App``)."""
    root = _root(obj)
    found: list[Surface] = []
    for agent in _walk(root) if root is not None else ():
        instruction = getattr(agent, "instruction", None)
        if isinstance(instruction, str):
            found.append(
                Surface(surface_id=f"{agent.name}#instruction", kind="instruction", owner=agent.name, text=instruction)
            )
        for toolset in _skill_toolsets(agent):
            for skill in toolset.skills:
                found.append(
                    Surface(
                        surface_id=f"{agent.name}#skill:{skill.name}",
                        kind="skill",
                        owner=skill.name,
                        text=skill.instructions,
                    )
                )
    return found


def _patched_tools(agent: Any, texts: Mapping[str, str]) -> list[Any] | None:
    """The agent's tools with its skills' new instructions, or ``None`` when none changed."""
    from google.adk.tools.skill_toolset import SkillToolset

    tools = list(getattr(agent, "tools", None) or [])
    changed = False
    for index, tool in enumerate(tools):
        if not isinstance(tool, SkillToolset):
            continue
        skills = []
        for skill in tool.skills:
            text = texts.get(f"{agent.name}#skill:{skill.name}")
            skills.append(skill if text is None else skill.model_copy(update={"instructions": text}))
            changed = changed or text is not None
        if any(new is not old for new, old in zip(skills, tool.skills, strict=True)):
            tools[index] = tool.clone_with_updated_skills(skills)
    return tools if changed else None


def _patched(agent: Any, texts: Mapping[str, str]) -> Any:
    update: dict[str, Any] = {"sub_agents": [_patched(sub, texts) for sub in agent.sub_agents]}
    instruction = texts.get(f"{agent.name}#instruction")
    if instruction is not None:
        update["instruction"] = instruction
    tools = _patched_tools(agent, texts)
    if tools is not None:
        update["tools"] = tools
    return agent.clone(update=update)


def patched_adk_agent(obj: Any, texts: Mapping[str, str]) -> Any:
    """A copy of ``obj`` (an agent or an ``App``) with ``texts`` (surface id → text) in place."""
    if hasattr(obj, "sub_agents"):
        return _patched(obj, texts)
    return obj.model_copy(update={"root_agent": _patched(obj.root_agent, texts)})
