"""Simulated conversations in the reports: the scenario, the summary line and the turns as a transcript.

A ``conversationScenario`` case's conversation is its per-invocation ``actualInvocation`` list; its ``simulation``
block says how it went and which scenario was played. Every format renders the same turns: the user message, the
agent's tool calls with their results, then the agent's final response.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from html import escape
from typing import TYPE_CHECKING, Any, Literal

from ..model import EvalCaseResult, SimulationSummary
from ..summary._reasons import format_tool_call, one_line

if TYPE_CHECKING:  # pragma: no cover
    from rich.console import Console

__all__ = [
    "TRANSCRIPT_CSS",
    "TranscriptLine",
    "html_transcript",
    "junit_simulation_properties",
    "markdown_transcript",
    "persona_text",
    "print_transcript",
    "scenario_fields",
    "simulation_headline",
    "transcript_lines",
]

_LIMIT = 500  # characters of one message or tool result in the terminal and Markdown (HTML shows them whole)


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, default=str)


def simulation_headline(simulation: SimulationSummary) -> str:
    """``trpc scenario, driver actual, 3 user turns, ended by stop_signal``."""
    parts = [f"{simulation.dialect or 'unknown'} scenario"]
    if simulation.driver:
        parts.append(f"driver {simulation.driver}")
    parts.append(f"{simulation.turns} user turn{'' if simulation.turns == 1 else 's'}")
    if simulation.stop_reason:
        parts.append(f"ended by {simulation.stop_reason}")
    return ", ".join(parts)


def persona_text(persona: Any) -> str:
    """A scenario's ``userPersona`` in one line: a persona id as written, an object as ``id: description``."""
    if persona is None or persona == "":
        return ""
    if isinstance(persona, str):
        return persona
    if isinstance(persona, dict):
        name, about = persona.get("id") or "", persona.get("description") or ""
        if isinstance(name, str) and isinstance(about, str) and (name or about):
            return f"{name}: {about}" if name and about else name or about
    return _json(persona)


def scenario_fields(simulation: SimulationSummary) -> list[tuple[str, str]]:
    """The recorded scenario as ``(label, text)`` pairs: starting prompt, plan, persona, stop signal, turn limit
    (only those it sets; none for a result saved before scenarios were recorded)."""
    scenario = simulation.scenario
    if scenario is None:
        return []
    fields = [
        ("Starting prompt", scenario.starting_prompt or ""),
        ("Plan", scenario.conversation_plan or ""),
        ("Persona", persona_text(scenario.user_persona)),
        ("Stop signal", scenario.stop_signal or ""),
        ("Turn limit", str(scenario.max_allowed_invocations) if scenario.max_allowed_invocations else ""),
    ]
    return [(label, text) for label, text in fields if text]


@dataclass(frozen=True)
class TranscriptLine:
    """One line of a transcript: a user message, a tool call (``text`` is the call, ``result`` its JSON result or
    ``None`` when none was recorded) or the agent's final response (``None`` text: the agent gave none)."""

    kind: Literal["user", "tool", "agent"]
    text: str | None
    result: str | None = None


def transcript_lines(case: EvalCaseResult) -> Iterator[TranscriptLine]:
    """The conversation of ``case`` in order: per turn the user message, the tool calls, the final response."""
    for per_inv in case.eval_metric_result_per_invocation:
        actual = per_inv.actual_invocation
        yield TranscriptLine("user", actual.user_content.content)
        for tool in actual.tools:
            yield TranscriptLine("tool", format_tool_call(tool), None if tool.result is None else _json(tool.result))
        yield TranscriptLine("agent", actual.final_response.content if actual.final_response is not None else None)


_DRIVER_NOTE = "The simulated user talked to the expected agent; the agent replayed the same user messages."


def print_transcript(case: EvalCaseResult, console: Console) -> None:
    """Print a simulated case's conversation under a ``Simulated conversation (...)`` header (nothing for other
    cases): one line per user message, tool call (``-> result``) and agent reply."""
    from rich.text import Text

    simulation = case.simulation
    if simulation is None:
        return
    block = Text(f"  Simulated conversation ({simulation_headline(simulation)})\n", style="bold")
    for line in transcript_lines(case):
        if line.kind == "user":
            block.append("    user:  ", style="cyan")
            block.append(one_line(line.text or "", _LIMIT) + "\n")
        elif line.kind == "tool":
            block.append("    tool:  ", style="magenta")
            block.append(line.text or "")
            if line.result is not None:
                block.append(" -> " + one_line(line.result, _LIMIT), style="dim")
            block.append("\n")
        else:
            block.append("    agent: ", style="green")
            block.append(one_line(line.text, _LIMIT) + "\n" if line.text is not None else "(no final response)\n")
    block.rstrip()
    console.print(block, soft_wrap=True)


TRANSCRIPT_CSS = """
.sim { border-top: 1px dashed var(--line); padding: 8px 0; }
.sim h3 { font-size: 14px; margin: 0 0 2px; }
.sim dl.scenario { display: grid; grid-template-columns: max-content 1fr; gap: 2px 12px; margin: 6px 0; }
.sim dl.scenario dt { color: var(--muted); }
.sim dl.scenario dd { margin: 0; white-space: pre-wrap; word-break: break-word; }
ol.chat { list-style: none; margin: 6px 0; padding: 0; display: flex; flex-direction: column; gap: 6px; }
ol.chat li { max-width: 80%; border-radius: 10px; padding: 6px 10px; }
ol.chat .who { display: block; font-size: 11px; text-transform: uppercase; color: var(--muted); }
ol.chat .text { white-space: pre-wrap; word-break: break-word; }
ol.chat li.user { align-self: flex-end; background: #ddf4ff; }
ol.chat li.agent { align-self: flex-start; background: #f6f8fa; border: 1px solid var(--line); }
ol.chat li.tool { align-self: flex-start; margin-left: 24px; background: #fff8c5; }
ol.chat li.tool code { font: 12.5px/1.4 ui-monospace, SFMono-Regular, Menlo, monospace; white-space: pre-wrap;
  word-break: break-word; }
"""
"""The transcript's styles, added to the HTML report's stylesheet."""


def html_transcript(case: EvalCaseResult) -> str:
    """A simulated case's scenario and conversation as a chat transcript (``""`` for other cases): the summary
    line, the scenario's starting prompt, plan, persona, stop signal and turn limit, then user messages, tool calls
    with their results and agent replies."""
    simulation = case.simulation
    if simulation is None:
        return ""
    headline = escape(simulation_headline(simulation))
    html = f'<section class="sim"><h3>Simulated conversation</h3><div class="muted">{headline}</div>'
    if simulation.driver == "expected":
        html += f'<div class="muted">{escape(_DRIVER_NOTE)}</div>'
    fields = scenario_fields(simulation)
    if fields:
        html += '<dl class="scenario">' + "".join(
            f"<dt>{escape(label)}</dt><dd>{escape(text)}</dd>" for label, text in fields
        )
        html += "</dl>"
    items = []
    for line in transcript_lines(case):
        if line.kind == "tool":
            result = f'<div class="result">→ {escape(line.result)}</div>' if line.result is not None else ""
            items.append(
                f'<li class="tool"><span class="who">Tool call</span><code>{escape(line.text or "")}</code>'
                f"{result}</li>"
            )
        else:
            who = "User" if line.kind == "user" else "Agent"
            text = escape(line.text) if line.text is not None else '<span class="muted">(no final response)</span>'
            items.append(f'<li class="{line.kind}"><span class="who">{who}</span><div class="text">{text}</div></li>')
    if items:
        html += f'<ol class="chat">{"".join(items)}</ol>'
    else:
        html += '<div class="muted">No turn was played.</div>'
    return html + "</section>"


def markdown_transcript(case: EvalCaseResult, code: Callable[[str], str], text: Callable[[str], str]) -> list[str]:
    """A simulated case's scenario and conversation as a compact Markdown list (``[]`` for other cases); ``code``
    and ``text`` are the report's inline-code and escaped-text helpers."""
    simulation = case.simulation
    if simulation is None:
        return []
    lines = [f"**Simulated conversation** ({text(simulation_headline(simulation))})", ""]
    fields = scenario_fields(simulation)
    if fields:
        lines += [f"- *{label}:* {text(one_line(value, _LIMIT))}" for label, value in fields]
        lines += ["", "*Conversation:*", ""]  # a paragraph between the lists, so Markdown does not join them
    for line in transcript_lines(case):
        if line.kind == "user":
            lines.append(f"- **user:** {text(one_line(line.text or '', _LIMIT))}")
        elif line.kind == "tool":
            result = f" → {code(one_line(line.result, _LIMIT))}" if line.result is not None else ""
            lines.append(f"  - tool: {code(line.text or '')}{result}")
        else:
            reply = text(one_line(line.text, _LIMIT)) if line.text is not None else "*(no final response)*"
            lines.append(f"  - **agent:** {reply}")
    return [*lines, ""]


def junit_simulation_properties(simulation: SimulationSummary | None) -> list[tuple[str, str]]:
    """The simulation summary as JUnit properties: ``simulation.dialect``, ``.driver``, ``.turns``,
    ``.stop_reason`` (none for a case that was not simulated)."""
    if simulation is None:
        return []
    return [
        ("simulation.dialect", simulation.dialect),
        ("simulation.driver", simulation.driver),
        ("simulation.turns", str(simulation.turns)),
        ("simulation.stop_reason", simulation.stop_reason),
    ]
