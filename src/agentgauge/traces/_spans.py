"""The neutral span model every trace reader produces: spans with decoded attributes, grouped into traces."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

__all__ = ["Span", "SpanEvent", "Trace", "TreeRepairs", "ancestor_test", "build_traces"]


@dataclass(slots=True)
class SpanEvent:
    """A span event (OTLP ``events``, Jaeger ``logs``): a name, a time and attributes."""

    name: str
    time_ns: int = 0
    attributes: dict[str, Any] = field(default_factory=dict)


@dataclass(slots=True, eq=False)
class Span:
    """One span in a format-neutral form.

    ``attributes`` hold the span's own attributes with OTLP values decoded to plain JSON values (arrays as lists,
    key/value lists as dicts); ``resource`` the attributes of the process or resource that emitted it (Jaeger
    ``processes``, OTLP ``resource``); ``scope`` the instrumentation scope name. ``source`` names its file and
    ``location`` where it sits in it (a JSON path or a line number), for messages.
    """

    trace_id: str
    span_id: str
    parent_id: str
    name: str
    start_ns: int = 0
    end_ns: int = 0
    attributes: dict[str, Any] = field(default_factory=dict)
    resource: dict[str, Any] = field(default_factory=dict)
    scope: str = ""
    events: list[SpanEvent] = field(default_factory=list)
    location: str = ""
    source: str = ""
    parent: Span | None = field(default=None, repr=False)
    children: list[Span] = field(default_factory=list, repr=False)

    def attr(self, key: str, default: Any = None) -> Any:
        """The attribute ``key`` of the span, else of its resource, else ``default``.

        The span's own value wins over the resource's (a resource attribute describes the process, not the call).
        """
        if key in self.attributes:
            return self.attributes[key]
        return self.resource.get(key, default)

    @property
    def operation(self) -> str:
        """``gen_ai.operation.name`` when the span has one, else ``""``."""
        value = self.attributes.get("gen_ai.operation.name")
        return value if isinstance(value, str) else ""

    def descendants(self) -> Iterator[Span]:
        """Every span below this one, depth first, children in start order."""
        stack = list(reversed(self.children))
        while stack:
            span = stack.pop()
            yield span
            stack.extend(reversed(span.children))

    def ancestors(self) -> Iterator[Span]:
        """The parent, its parent, ... up to the root."""
        span = self.parent
        while span is not None:
            yield span
            span = span.parent


@dataclass(slots=True)
class TreeRepairs:
    """What linking a trace's spans had to mend (a malformed or hostile export): spans naming themselves as their
    parent (made roots), loops of parents cut (their first span made a root), and spans whose id was already taken
    (left out, the first kept: exporters retry batches, so repeated spans happen)."""

    self_parents: int = 0
    loops: int = 0
    duplicates: int = 0

    def __bool__(self) -> bool:
        return bool(self.self_parents or self.loops or self.duplicates)

    def add(self, other: TreeRepairs) -> None:
        """Count ``other``'s repairs too (summing over traces)."""
        self.self_parents += other.self_parents
        self.loops += other.loops
        self.duplicates += other.duplicates

    def describe(self) -> str:
        """The repairs in words (``""`` when there were none)."""
        parts = []
        if self.self_parents:
            parts.append(f"{self.self_parents} span(s) named as their own parent (made roots)")
        if self.loops:
            parts.append(f"{self.loops} loop(s) of parent links cut")
        if self.duplicates:
            parts.append(f"{self.duplicates} span(s) with an id seen before left out (the first kept)")
        return "; ".join(parts)


@dataclass(slots=True)
class Trace:
    """All spans sharing one trace id, linked into a tree (a span whose parent is absent is a root).

    One trace is one conversation: one eval case's actual conversation.
    """

    trace_id: str
    source: str
    spans: list[Span]
    roots: list[Span]
    repairs: TreeRepairs = field(default_factory=TreeRepairs)
    """What linking its spans had to mend: the tree is always a tree (every walk over it ends)."""

    def walk(self) -> Iterator[Span]:
        """Every span, depth first from each root in start order (parents before their children)."""
        for root in self.roots:
            yield root
            yield from root.descendants()


def _start_key(span: Span) -> tuple[int, str]:
    return (span.start_ns, span.span_id)


def build_traces(spans: list[Span], source: str = "") -> list[Trace]:
    """Group spans by trace id (traces in order of first appearance) and link parents and children.

    A trace's ``source`` is the file of its first span (else ``source``): spans of one trace may come from
    several files (rotated exporter output).

    A span whose parent id is missing from the trace becomes a root; children and roots are sorted by start time.
    A span id seen twice keeps its first occurrence (exporters retry batches, so duplicates happen). A span naming
    itself as its parent is a root, and a loop of parents is cut: the result is always a forest, which every walk
    over it (:meth:`Span.ancestors`, :meth:`Span.descendants`, :meth:`Trace.walk`) relies on to end. What had to be
    mended is counted in :attr:`Trace.repairs`.
    """
    by_trace: dict[str, dict[str, Span]] = {}
    repairs: dict[str, TreeRepairs] = {}
    for span in spans:
        bucket = by_trace.setdefault(span.trace_id, {})
        if bucket.setdefault(span.span_id, span) is not span:
            repairs.setdefault(span.trace_id, TreeRepairs()).duplicates += 1
    traces: list[Trace] = []
    for trace_id, bucket in by_trace.items():
        mended = repairs.get(trace_id) or TreeRepairs()
        roots: list[Span] = []
        for span in bucket.values():
            span.parent, span.children = None, []  # a span linked before (by an earlier call) starts afresh
        for span in bucket.values():
            if span.parent_id == span.span_id:
                mended.self_parents += 1
            parent = bucket.get(span.parent_id) if span.parent_id and span.parent_id != span.span_id else None
            if parent is None:
                roots.append(span)
            else:
                span.parent = parent
                parent.children.append(span)
        mended.loops += _break_cycles(bucket, roots)
        for span in bucket.values():
            span.children.sort(key=_start_key)
        roots.sort(key=_start_key)
        first = next(iter(bucket.values()))
        spans_of = sorted(bucket.values(), key=_start_key)
        traces.append(Trace(trace_id, first.source or source, spans_of, roots, mended))
    return traces


def _break_cycles(bucket: dict[str, Span], roots: list[Span]) -> int:
    """A malformed file can make spans their own ancestors; such a loop is cut and its first span made a root.
    Returns how many loops were cut."""
    cut = 0
    reachable: set[int] = set()
    for root in roots:
        reachable.add(id(root))
        reachable.update(id(span) for span in root.descendants())
    for span in bucket.values():
        if id(span) in reachable:
            continue
        # Walk up until a span repeats: that span is on the loop; detach it from its parent.
        seen: set[int] = set()
        node = span
        while node.parent is not None and id(node) not in seen:
            seen.add(id(node))
            node = node.parent
        if node.parent is not None:
            node.parent.children.remove(node)
            node.parent = None
            cut += 1
        roots.append(node)
        reachable.add(id(node))
        reachable.update(id(s) for s in node.descendants())
    return cut


def ancestor_test(predicate: Callable[[Span], bool]) -> Callable[[Span], bool]:
    """A test of whether a span has an ancestor for which ``predicate`` holds, remembering the answer for every span
    on the way up: asking it of all the spans of a trace costs O(spans), where walking each span's ancestors would
    cost O(spans × depth) (a chain of 8,000 nested spans: 32 million steps)."""
    known: dict[int, bool] = {}

    def has_ancestor(span: Span) -> bool:
        chain: list[Span] = []
        node = span
        while node.parent is not None and id(node) not in known:
            chain.append(node)
            node = node.parent
        found = known.get(id(node), False)  # a root has no ancestor
        for below in reversed(chain):
            found = found or predicate(below.parent)  # type: ignore[arg-type]
            known[id(below)] = found
        return known.get(id(span), False)

    return has_ancestor
