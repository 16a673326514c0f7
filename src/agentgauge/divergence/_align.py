"""Aligning two runs' step sequences with an edit distance and reading the first divergence off the alignment.

The steps before the first difference (the common prefix) and after the last one (the common suffix) are equal and
not aligned; what is left is aligned with unit costs: a tool call may replace a tool call and an answer an answer
(a call never replaces an answer), any step may be inserted or deleted. Among the optimal alignments the one read
is fixed: at each place keep a match, else a replacement, else a deletion (a missing step), else an insertion (an
extra step). Cost is bounded: beyond :data:`MAX_CELLS` cells only the first difference is reported.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

from ..criteria import canonical_json, json_difference
from ..model import Invocation
from ._model import Divergence, DivergenceKind, Step, StepRef

__all__ = [
    "MAX_CELLS",
    "AlignedStep",
    "Alignment",
    "align_steps",
    "alignment_divergence",
    "first_divergence",
    "invocation_steps",
    "run_divergence",
]

MAX_CELLS = 1_000_000
"""The most cells (steps of one run × steps of the other, after the common prefix and suffix) aligned."""

_Op = Literal["match", "replace", "delete", "insert"]


@dataclass(frozen=True, slots=True)
class _Keyed:
    """A step with the canonical text it compares by."""

    step: Step
    key: str


def invocation_steps(invocations: Sequence[Invocation]) -> list[Step]:
    """The steps of a run: per turn, each tool call in order, then the final answer."""
    steps: list[Step] = []
    for turn, invocation in enumerate(invocations, start=1):
        for number, tool in enumerate(invocation.tools, start=1):
            call = Step(turn=turn, step=number, kind="tool", name=tool.name, arguments=tool.arguments)
            call.result = tool.result
            steps.append(call)
        answer = invocation.final_response.content if invocation.final_response is not None else ""
        steps.append(Step(turn=turn, step=len(invocation.tools) + 1, kind="answer", text=answer))
    return steps


def _key(step: Step) -> str:
    if step.kind == "answer":
        return "A" + " ".join((step.text or "").split())
    return f"T{step.name}\0{canonical_json(step.arguments)}\0{canonical_json(step.result)}"


def _same(a: _Keyed, b: _Keyed) -> bool:
    if a.key == b.key:
        return True
    if a.step.kind != "tool" or b.step.kind != "tool" or a.step.name != b.step.name:
        return False
    # Keys differ but the values may still be equal as the trajectory criterion compares them (1 vs 1.0). A result
    # one side did not record (an expected turn written without tool results, as golden sets usually are) is not
    # a different result.
    unrecorded = a.step.result is None or b.step.result is None
    return json_difference(b.step.arguments, a.step.arguments) is None and (
        unrecorded or json_difference(b.step.result, a.step.result) is None
    )


def _replace_kind(base: Step, new: Step) -> tuple[DivergenceKind, str]:
    if base.kind == "answer":
        return DivergenceKind.DIFFERENT_ANSWER, ""
    if base.name != new.name:
        return DivergenceKind.DIFFERENT_TOOL, ""
    difference = json_difference(new.arguments, base.arguments)
    if difference is not None:
        return DivergenceKind.DIFFERENT_ARGUMENTS, difference
    return DivergenceKind.DIFFERENT_RESULT, json_difference(new.result, base.result) or ""


def _costs(a: list[_Keyed], b: list[_Keyed]) -> list[list[int]]:
    """``cost[i][j]``: the edit distance of ``a[i:]`` and ``b[j:]``."""
    n, m = len(a), len(b)
    big = n + m + 1
    cost = [[0] * (m + 1) for _ in range(n + 1)]
    for j in range(m + 1):
        cost[n][j] = m - j
    for i in range(n - 1, -1, -1):
        row, below = cost[i], cost[i + 1]
        row[m] = n - i
        for j in range(m - 1, -1, -1):
            if _same(a[i], b[j]):
                step = below[j + 1]
            elif a[i].step.kind == b[j].step.kind:
                step = below[j + 1] + 1
            else:
                step = big
            row[j] = min(step, below[j] + 1, row[j + 1] + 1)
    return cost


def _walk(a: list[_Keyed], b: list[_Keyed], cost: list[list[int]]) -> list[tuple[_Op, int, int]]:
    """The alignment read forward from the start with the fixed preference (see the module docstring)."""
    ops: list[tuple[_Op, int, int]] = []
    i = j = 0
    while i < len(a) or j < len(b):
        here = cost[i][j]
        if i < len(a) and j < len(b) and _same(a[i], b[j]) and cost[i + 1][j + 1] == here:
            ops.append(("match", i, j))
            i, j = i + 1, j + 1
        elif i < len(a) and j < len(b) and a[i].step.kind == b[j].step.kind and cost[i + 1][j + 1] + 1 == here:
            ops.append(("replace", i, j))
            i, j = i + 1, j + 1
        elif i < len(a) and cost[i + 1][j] + 1 == here:
            ops.append(("delete", i, j))
            i += 1
        else:
            ops.append(("insert", i, j))
            j += 1
    return ops


def _kind_of(op: _Op, base: Step | None, new: Step | None) -> tuple[DivergenceKind, str]:
    if op == "replace":
        assert base is not None and new is not None
        return _replace_kind(base, new)
    if op == "delete":
        assert base is not None
        return (DivergenceKind.MISSING_TURN if base.kind == "answer" else DivergenceKind.MISSING_CALL), ""
    assert new is not None
    return (DivergenceKind.EXTRA_TURN if new.kind == "answer" else DivergenceKind.EXTRA_CALL), ""


@dataclass(frozen=True, slots=True)
class AlignedStep:
    """One place of an alignment: both runs take the same step (``match``), another step (``replace``), only the
    base run takes one (``delete``: missing in the new run) or only the new run (``insert``: extra)."""

    op: _Op
    base: Step | None
    new: Step | None


@dataclass(frozen=True, slots=True)
class Alignment:
    """Two runs' steps side by side; ``aligned`` is false when they were too long to align (:data:`MAX_CELLS`):
    past the first difference, steps are then paired by position."""

    steps: list[AlignedStep]
    aligned: bool = True

    def steps_json(self) -> list[dict[str, Any]]:
        """The places as JSON: ``[{"op", "base", "new"}]`` (``diff --json``, the web UI's side-by-side view)."""
        return [
            {
                "op": s.op,
                "base": s.base.model_dump(mode="json") if s.base else None,
                "new": s.new.model_dump(mode="json") if s.new else None,
            }
            for s in self.steps
        ]


def align_steps(base: Sequence[Step], new: Sequence[Step]) -> Alignment:
    """The two runs' steps side by side (see the module docstring for the rules)."""
    a = [_Keyed(s, _key(s)) for s in base]
    b = [_Keyed(s, _key(s)) for s in new]
    prefix = 0
    while prefix < len(a) and prefix < len(b) and _same(a[prefix], b[prefix]):
        prefix += 1
    suffix = 0
    while suffix < min(len(a), len(b)) - prefix and _same(a[-1 - suffix], b[-1 - suffix]):
        suffix += 1
    head = [AlignedStep("match", a[k].step, b[k].step) for k in range(prefix)]
    tail = [AlignedStep("match", a[len(a) - suffix + k].step, b[len(b) - suffix + k].step) for k in range(suffix)]
    mid_a, mid_b = a[prefix : len(a) - suffix], b[prefix : len(b) - suffix]
    if len(mid_a) * len(mid_b) > MAX_CELLS:
        return Alignment(head + _by_position(mid_a, mid_b) + tail, aligned=False)
    ops = _walk(mid_a, mid_b, _costs(mid_a, mid_b))
    middle = [
        AlignedStep(op, mid_a[i].step if op != "insert" else None, mid_b[j].step if op != "delete" else None)
        for op, i, j in ops
    ]
    return Alignment(head + middle + tail)


def _by_position(a: list[_Keyed], b: list[_Keyed]) -> list[AlignedStep]:
    out = []
    for k in range(max(len(a), len(b))):
        x, y = (a[k] if k < len(a) else None), (b[k] if k < len(b) else None)
        if x is not None and y is not None and x.step.kind == y.step.kind:
            out.append(AlignedStep("match" if _same(x, y) else "replace", x.step, y.step))
            continue
        if x is not None:
            out.append(AlignedStep("delete", x.step, None))
        if y is not None:
            out.append(AlignedStep("insert", None, y.step))
    return out


def first_divergence(base: Sequence[Step], new: Sequence[Step]) -> Divergence | None:
    """The first divergence of ``new`` from ``base`` (``None``: the runs take the same steps)."""
    return alignment_divergence(align_steps(base, new))


def alignment_divergence(alignment: Alignment) -> Divergence | None:
    """The first divergence an alignment shows (``None``: every place is a match)."""
    steps = alignment.steps
    first = next((k for k, s in enumerate(steps) if s.op != "match"), None)
    if first is None:
        return None
    fork = steps[first]
    kind, detail = _kind_of(fork.op, fork.base, fork.new)
    where = fork.base if fork.base is not None else fork.new
    assert where is not None
    again = next((s for s in steps[first:] if s.op == "match"), None)
    changed = [s.op != "match" for s in steps]
    return Divergence(
        kind=kind,
        index=sum(1 for s in steps[:first] if s.base is not None) + 1,
        turn=where.turn,
        step=where.step,
        base=fork.base,
        new=fork.new,
        detail=detail,
        reconverges=_ref(again.base, again.new) if again is not None and again.base and again.new else None,
        distance=sum(changed),
        stretches=sum(1 for k, c in enumerate(changed) if c and (k == 0 or not changed[k - 1])),
        base_steps=sum(1 for s in steps if s.base is not None),
        new_steps=sum(1 for s in steps if s.new is not None),
        aligned=alignment.aligned,
    )


def _ref(base: Step, new: Step) -> StepRef:
    return StepRef(base_turn=base.turn, base_step=base.step, new_turn=new.turn, new_step=new.step)


def run_divergence(base: Sequence[Invocation], new: Sequence[Invocation]) -> Divergence | None:
    """The first divergence between two runs given as their invocations (see :func:`first_divergence`)."""
    return first_divergence(invocation_steps(base), invocation_steps(new))
