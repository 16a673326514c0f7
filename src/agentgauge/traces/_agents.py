"""The executed-agent records of one turn read from its agent spans (``invoke_agent`` ...): one per agent span,
in trpc-agent-go's shape (``evalset.Agent``), the span id standing for the agent run's invocation id, its nearest
agent ancestor for the run that handed over to it, the names from the root down as its branch."""

from __future__ import annotations

from collections.abc import Sequence

from ..model import ExecutedAgent
from ._spans import Span

__all__ = ["OPENINFERENCE_KIND", "agent_records", "is_agent_span"]

OPENINFERENCE_KIND = "openinference.span.kind"
"""OpenInference's span kind attribute (``LLM``, ``TOOL``, ``AGENT``, ``CHAIN``, ...)."""

_PREFIXES = ("invoke_agent", "invoke_workflow")


def is_agent_span(span: Span) -> bool:
    """Whether the span is an agent's run (ADK's and the GenAI conventions' ``invoke_agent``, ``invoke_workflow``;
    OpenInference's ``AGENT`` kind)."""
    return (
        span.name.startswith(_PREFIXES)
        or span.operation in _PREFIXES
        or span.attributes.get(OPENINFERENCE_KIND) == "AGENT"
    )


def _name(span: Span) -> str:
    for key in ("gen_ai.agent.name", "agent.name"):  # the GenAI conventions', OpenInference's
        value = span.attr(key)
        if isinstance(value, str) and value:
            return value
    for prefix in _PREFIXES:
        if span.name.startswith(prefix):
            return span.name[len(prefix) :].strip()
    return span.name


def agent_records(agent_spans: Sequence[Span]) -> list[ExecutedAgent]:
    """The records of a turn's agent spans (in start order), when more than one agent ran: a turn of one agent
    hands over to no one, and its record would only repeat the invocation."""
    spans = sorted(agent_spans, key=lambda s: s.start_ns)
    if len(spans) < 2:
        return []
    ids = {id(s) for s in spans}
    records: list[ExecutedAgent] = []
    for span in spans:
        chain = [a for a in span.ancestors() if id(a) in ids]  # nearest first; the trace's parents are acyclic
        names = [_name(a) for a in reversed(chain)] + [_name(span)]
        records.append(
            ExecutedAgent(
                invocation_id=span.span_id,
                parent_invocation_id=chain[0].span_id if chain else "",
                name=_name(span),
                branch="/".join(n for n in names if n),
            )
        )
    return records
