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
from typing import Literal

from ..criteria import canonical_json, json_difference
from ..model import Invocation
from ._model import Divergence, DivergenceKind, Step, StepRef

__all__ = ["MAX_CELLS", "first_divergence", "invocation_steps", "run_divergence"]

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
    # Keys differ but the values may still be equal as the trajectory criterion compares them (1 vs 1.0).
    return (
        json_difference(b.step.arguments, a.step.arguments) is None
        and json_difference(b.step.result, a.step.result) is None
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


def first_divergence(base: Sequence[Step], new: Sequence[Step]) -> Divergence | None:
    """The first divergence of ``new`` from ``base`` (``None``: the runs take the same steps)."""
    a = [_Keyed(s, _key(s)) for s in base]
    b = [_Keyed(s, _key(s)) for s in new]
    prefix = 0
    while prefix < len(a) and prefix < len(b) and _same(a[prefix], b[prefix]):
        prefix += 1
    if prefix == len(a) == len(b):
        return None
    suffix = 0
    while suffix < min(len(a), len(b)) - prefix and _same(a[-1 - suffix], b[-1 - suffix]):
        suffix += 1
    mid_a, mid_b = a[prefix : len(a) - suffix], b[prefix : len(b) - suffix]
    if len(mid_a) * len(mid_b) > MAX_CELLS:
        return _unaligned(a, b, prefix)
    ops = _walk(mid_a, mid_b, _costs(mid_a, mid_b))
    op, i, j = ops[0]
    base_step = mid_a[i].step if op != "insert" else None
    new_step = mid_b[j].step if op != "delete" else None
    kind, detail = _kind_of(op, base_step, new_step)
    where = base_step if base_step is not None else new_step
    assert where is not None
    stretches = sum(1 for k, (o, _, _) in enumerate(ops) if o != "match" and (k == 0 or ops[k - 1][0] == "match"))
    return Divergence(
        kind=kind,
        index=prefix + 1,
        turn=where.turn,
        step=where.step,
        base=base_step,
        new=new_step,
        detail=detail,
        reconverges=_reconverges(ops, a, b, prefix, suffix),
        distance=sum(1 for o, _, _ in ops if o != "match"),
        stretches=stretches,
        base_steps=len(a),
        new_steps=len(b),
    )


def _reconverges(
    ops: list[tuple[_Op, int, int]], a: list[_Keyed], b: list[_Keyed], prefix: int, suffix: int
) -> StepRef | None:
    for op, i, j in ops:
        if op == "match":
            return _ref(a[prefix + i].step, b[prefix + j].step)
    if suffix:
        return _ref(a[len(a) - suffix].step, b[len(b) - suffix].step)
    return None


def _ref(base: Step, new: Step) -> StepRef:
    return StepRef(base_turn=base.turn, base_step=base.step, new_turn=new.turn, new_step=new.step)


def _unaligned(a: list[_Keyed], b: list[_Keyed], prefix: int) -> Divergence:
    """The first difference of two runs too long to align: its kind read from the two steps at that place."""
    base_step = a[prefix].step if prefix < len(a) else None
    new_step = b[prefix].step if prefix < len(b) else None
    if base_step is not None and new_step is not None and base_step.kind == new_step.kind:
        kind, detail = _replace_kind(base_step, new_step)
    else:
        op: _Op = "insert" if base_step is None else "delete"
        kind, detail = _kind_of(op, base_step, new_step)
    where = base_step if base_step is not None else new_step
    assert where is not None
    return Divergence(
        kind=kind,
        index=prefix + 1,
        turn=where.turn,
        step=where.step,
        base=base_step,
        new=new_step,
        detail=detail,
        distance=abs(len(a) - len(b)),
        base_steps=len(a),
        new_steps=len(b),
        aligned=False,
    )


def run_divergence(base: Sequence[Invocation], new: Sequence[Invocation]) -> Divergence | None:
    """The first divergence between two runs given as their invocations (see :func:`first_divergence`)."""
    return first_divergence(invocation_steps(base), invocation_steps(new))
