"""Which sessions a rule takes (:class:`~._rules.SessionFilter`), read from the session's spans."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # pragma: no cover
    from ..traces import Span, TraceConversation
    from ._rules import SessionFilter

__all__ = ["session_matches"]

_AGENT_ATTRIBUTES = ("gen_ai.agent.name", "gcp.vertex.agent.agent_name", "agent.name")


def _scalar(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _wanted(value: Any) -> set[str]:
    return {_scalar(v) for v in value} if isinstance(value, list) else {_scalar(value)}


def session_matches(
    rule_filter: SessionFilter, spans: Iterable[Span], conversations: Iterable[TraceConversation] = ()
) -> bool:
    """Whether a session with ``spans`` (and the ``conversations`` read from them) passes ``rule_filter``: one
    pass over the spans, whatever the filter names."""
    services = set(rule_filter.service)
    agents = set(rule_filter.agent)
    wanted = {name: _wanted(value) for name, value in rule_filter.attributes.items()}
    found_service, found_agent = not services, not agents
    if agents and any(c.app_name in agents for c in conversations):
        found_agent = True
    missing = set(wanted)
    for span in spans:
        if not found_service and span.resource.get("service.name") in services:
            found_service = True
        if not found_agent and any(span.attributes.get(a) in agents for a in _AGENT_ATTRIBUTES):
            found_agent = True
        for name in list(missing):
            value = span.attributes.get(name, span.resource.get(name))
            if value is not None and not isinstance(value, dict | list) and _scalar(value) in wanted[name]:
                missing.discard(name)
        if found_service and found_agent and not missing:
            return True
    return found_service and found_agent and not missing
