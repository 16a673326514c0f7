"""A tRPC-Agent run answer (``POST .../runs``: ``{status, events, executionTrace, errorMessage}``) as an
:class:`~agentgauge.agents.AgentOutput`, read as trpc-agent-go's own evaluation reads a run's events
(``evaluation/service/internal/inference``): tool calls from the model's tool-call events, their results merged
in by tool call id, the final response of the run's root invocation, errors of any event failing the turn.

Beyond that: the answers of other agents (sub-agents, earlier turns of the model) are the intermediate
responses; the agents that ran are the executed-agent records (``evalset.Agent``), one per invocation id seen in
the events and the trace's steps, root first and each sub-agent after its parent; the execution trace is kept as
sent, and its steps' tool records stand in for tool calls when the events carry none (servers that send only the
final answer, as trpc's ADK and LangGraph reference services do). Pure functions: no HTTP here.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ...errors import AgentError
from ...model import ExecutedAgent, Message, TokenUsage, Tool, new_tool_id
from .._types import AgentOutput

__all__ = ["RUNNER_COMPLETION", "executed_agents", "run_output"]

RUNNER_COMPLETION = "runner.completion"
"""The ``object`` of the event that ends a run."""

_NOT_AGENTS = frozenset({"", "user", "graph-node", "graph-pregel"})  # authors that name no agent (trpc's list)


def _get(mapping: Any, *names: str) -> Any:
    """The first of ``names`` present in ``mapping`` (trpc's events are camelCase, its trace Go's PascalCase)."""
    if not isinstance(mapping, Mapping):
        return None
    for name in names:
        if name in mapping:
            return mapping[name]
    return None


def _text(value: Any) -> str:
    return value if isinstance(value, str) else ""


def _choices(event: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    choices = event.get("choices")
    return [c for c in choices if isinstance(c, Mapping)] if isinstance(choices, list) else []


def _message(choice: Mapping[str, Any]) -> Mapping[str, Any]:
    message = choice.get("message")
    return message if isinstance(message, Mapping) else {}


def _is_tool_call(event: Mapping[str, Any]) -> bool:
    choices = _choices(event)
    if not choices:
        return False
    first = choices[0]
    return bool(_message(first).get("tool_calls") or _get(first.get("delta"), "tool_calls"))


def _is_tool_result(event: Mapping[str, Any]) -> bool:
    choices = _choices(event)
    return bool(choices) and bool(_message(choices[0]).get("tool_id"))


def _is_final(event: Mapping[str, Any]) -> bool:
    """trpc's ``IsFinalResponse``: done, not partial, no tool call, with choices or an error."""
    if event.get("is_partial") or _is_tool_call(event):
        return False
    return bool(event.get("done")) and (bool(_choices(event)) or event.get("error") is not None)


def _is_completion(event: Mapping[str, Any]) -> bool:
    return bool(event.get("done")) and event.get("object") == RUNNER_COMPLETION


def _json_or_text(text: str) -> Any:
    """A tool's arguments or result: the JSON value the text holds, else the text itself."""
    with contextlib.suppress(ValueError):
        return json.loads(text)
    return text


def _arguments(raw: Any) -> Any:
    if isinstance(raw, str):
        return {} if not raw.strip() else _json_or_text(raw.strip())
    return {} if raw is None else raw


def _tool_calls(event: Mapping[str, Any]) -> list[Tool]:
    tools: list[Tool] = []
    for choice in _choices(event):
        for call in _message(choice).get("tool_calls") or ():
            if not isinstance(call, Mapping):
                continue
            function = call.get("function")
            tool_id = _text(call.get("id")) or new_tool_id()
            name, arguments = _text(_get(function, "name")), _arguments(_get(function, "arguments"))
            tools.append(Tool(id=tool_id, name=name, arguments=arguments))
    return tools


def _error_text(error: Any) -> str | None:
    if error is None:
        return None
    if isinstance(error, Mapping):
        kind, text = _text(error.get("type")), _text(error.get("message"))
        return f"{kind}: {text}" if kind and text else text or kind or json.dumps(error)[:200]
    return str(error)


@dataclass
class _Reading:
    """What the events of one run add up to, in the order they came."""

    tools: list[Tool] = field(default_factory=list)
    by_id: dict[str, int] = field(default_factory=dict)
    # Every assistant text in order: (invocation id, message, whether it is a final response of its invocation).
    answers: list[tuple[str, Message, bool]] = field(default_factory=list)
    completion_final: Message | None = None
    root: str = ""
    first: str = ""
    usage: list[Mapping[str, Any]] = field(default_factory=list)
    model: str | None = None

    def take(self, event: Mapping[str, Any]) -> None:
        invocation = _text(event.get("invocationId"))
        if _is_completion(event):
            self.root = invocation or self.root
        elif not self.first:
            self.first = invocation
        if _is_final(event) and _choices(event):
            answer = _message(_choices(event)[0])
            message = Message(role="assistant", content=_text(answer.get("content")))
            if _is_completion(event):
                self.completion_final = message
            else:
                self.answers.append((invocation, message, True))
        if event.get("is_partial") or _is_final(event):
            return
        if isinstance(event.get("usage"), Mapping):
            self.usage.append(event["usage"])
            self.model = _text(event.get("model")) or self.model
        if _is_tool_call(event):
            for choice in _choices(event):
                text = _text(_message(choice).get("content"))
                if text.strip():
                    self.answers.append((invocation, Message(role="assistant", content=text), False))
            for tool in _tool_calls(event):
                self.by_id[tool.id] = len(self.tools)
                self.tools.append(tool)
        if _is_tool_result(event):
            for choice in _choices(event):
                sent = _message(choice)
                tool_id = _text(sent.get("tool_id"))
                index = self.by_id.get(tool_id)
                if index is None:
                    raise AgentError(f"a tool result names tool call id {tool_id!r}, which no tool call had")
                self.tools[index].result = _json_or_text(_text(sent.get("content")))

    def final(self) -> Message | None:
        """The run's answer: the completion's, else the root invocation's last, else the last without an id."""
        if self.completion_final is not None:
            return self.completion_final
        root = self.root or self.first
        for wanted in (root, ""):
            found = next((m for inv, m, final in reversed(self.answers) if final and inv == wanted), None)
            if found is not None:
                return found
        return None


def _usage(readings: Sequence[Mapping[str, Any]], model: str | None, trace: Any) -> TokenUsage | None:
    """The run's token usage: the model responses' summed, else the trace's total."""
    items = list(readings)
    if not items:
        whole = _get(trace, "Usage", "usage")
        if not isinstance(whole, Mapping):
            return None
        items = [whole]

    def total(key: str, detail: str = "", inner: str = "") -> int | None:
        values = [(_get(u.get(detail), inner) if detail else u.get(key)) for u in items]
        numbers = [v for v in values if isinstance(v, int) and not isinstance(v, bool)]
        return sum(numbers) if numbers else None

    cached = total("", "prompt_tokens_details", "cached_tokens")
    reasoning = total("", "completion_tokens_details", "reasoning_tokens")
    return TokenUsage(
        input_tokens=total("prompt_tokens"),
        output_tokens=total("completion_tokens"),
        total_tokens=total("total_tokens"),
        cached_tokens=cached or None,
        reasoning_tokens=reasoning or None,
        model_calls=len(readings) or None,
        model=model,
    )


def _trace_tools(trace: Any) -> list[Tool]:
    """The tool records of the trace's steps, in step order (what ran, when the events do not say)."""
    tools: list[Tool] = []
    steps = _get(trace, "Steps", "steps")
    for step in steps if isinstance(steps, list) else ():
        records = _get(step, "Tools", "tools")
        for record in records if isinstance(records, list) else ():
            if not isinstance(record, Mapping):
                continue
            result = _get(record, "Result", "result")
            error = _text(_get(record, "Error", "error"))
            tools.append(
                Tool(
                    id=_text(_get(record, "ID", "id")) or new_tool_id(),
                    name=_text(_get(record, "Name", "name")),
                    arguments=_arguments(_get(record, "Arguments", "arguments")),
                    result=result if result is not None else (error or None),
                )
            )
    return tools


@dataclass
class _Run:
    invocation_id: str
    parent: str = ""
    branch: str = ""
    author: str = ""
    seen: int = 0

    def observe(self, parent: str, branch: str, author: str) -> None:
        self.parent = self.parent or parent
        self.branch = self.branch or branch
        self.author = self.author or author

    def record(self) -> ExecutedAgent:
        name = next((p for p in reversed(self.branch.split("/")) if p), "") if self.branch else ""
        if not name and self.author not in _NOT_AGENTS:
            name = self.author
        return ExecutedAgent(
            invocation_id=self.invocation_id, parent_invocation_id=self.parent, name=name, branch=self.branch
        )


def executed_agents(observed: Iterable[tuple[str, str, str, str]], root: str = "") -> list[ExecutedAgent]:
    """The executed-agent records of ``(invocation id, parent invocation id, branch, agent name)`` observations
    (events, then trace steps), one per invocation id (its first non-empty parent, branch and name): the runs whose
    parent is not among them are roots, ``root`` first, then in order of first appearance; each run is followed
    by the runs it started, depth first (trpc-agent-go's order). Parent links from outside may form a cycle: every
    run is listed once all the same."""
    runs: dict[str, _Run] = {}
    for invocation, parent, branch, author in observed:
        if not invocation:
            continue
        run = runs.get(invocation)
        if run is None:
            run = runs[invocation] = _Run(invocation, seen=len(runs))
        run.observe(parent if parent != invocation else "", branch, author)
    children: dict[str, list[str]] = {}
    for run in runs.values():
        if run.parent in runs:
            children.setdefault(run.parent, []).append(run.invocation_id)  # in first-seen order
    roots = [r.invocation_id for r in runs.values() if r.parent not in runs]
    roots.sort(key=lambda i: (i != root, runs[i].seen))
    order: list[ExecutedAgent] = []
    visited: set[str] = set()
    # Roots, then whatever a cycle left unreached (in first-seen order); iterative, so no chain is too deep.
    for start in [*roots, *runs]:
        stack = [start]
        while stack:
            current = stack.pop()
            if current in visited:
                continue
            visited.add(current)
            order.append(runs[current].record())
            stack.extend(reversed(children.get(current, ())))
    return order


def _step_observations(trace: Any) -> list[tuple[str, str, str, str]]:
    steps = _get(trace, "Steps", "steps")
    return [
        (
            _text(_get(s, "InvocationID", "invocationId")),
            _text(_get(s, "ParentInvocationID", "parentInvocationId")),
            _text(_get(s, "Branch", "branch")),
            _text(_get(s, "AgentName", "agentName")),
        )
        for s in (steps if isinstance(steps, list) else ())
        if isinstance(s, Mapping)
    ]


def run_output(answer: Mapping[str, Any], request_id: str) -> AgentOutput:
    """The turn a run answer describes; :class:`AgentError` saying why when it is not a complete, successful run
    of this request (no events, another request's events, no final runner completion, an event's error, a failed
    status)."""
    events = answer.get("events")
    if not isinstance(events, list) or not events or not all(isinstance(e, Mapping) for e in events):
        problem = _text(answer.get("errorMessage")) or "the answer has no events"
        raise AgentError(problem if answer.get("events") is None else "the answer's events are not a list of objects")
    for index, event in enumerate(events):
        if _text(event.get("requestID")) != request_id:
            raise AgentError(f"event {index} belongs to request {event.get('requestID')!r}, not to {request_id!r}")
    for event in events:
        error = _error_text(event.get("error"))
        if error:
            raise AgentError(f"agent error: {error}")
    status = _text(answer.get("status"))
    if status in ("failed", "incomplete"):
        raise AgentError(f"the run is {status}: {_text(answer.get('errorMessage')) or 'no error message'}")
    if not _is_completion(events[-1]):
        raise AgentError("the last event is not the runner completion (the run did not end)")
    reading = _Reading()
    for event in events:
        reading.take(event)
    root = reading.root or reading.first
    final = reading.final()
    trace = answer.get("executionTrace")
    trace = dict(trace) if isinstance(trace, Mapping) else None
    intermediate = [m for _, m, _ in reading.answers if m is not final and m.content.strip()]
    observed = [
        (
            _text(e.get("invocationId")),
            _text(e.get("parentInvocationId")),
            _text(e.get("branch")),
            _text(e.get("author")),
        )
        for e in events
    ]
    return AgentOutput(
        final_response=final,
        tools=reading.tools or _trace_tools(trace),
        intermediate_responses=intermediate,
        usage=_usage(reading.usage, reading.model, trace),
        invocation_id=root or None,
        agents=executed_agents([*observed, *_step_observations(trace)], root),
        execution_trace=trace,
    )
