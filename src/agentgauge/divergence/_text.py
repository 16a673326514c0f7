"""A first divergence in words, for terminals, Markdown and HTML."""

from __future__ import annotations

import json
from typing import Any

from ._model import Divergence, DivergenceKind, Step

__all__ = ["KIND_LABELS", "divergence_text", "step_text"]

KIND_LABELS: dict[DivergenceKind, str] = {
    DivergenceKind.DIFFERENT_TOOL: "different tool",
    DivergenceKind.DIFFERENT_ARGUMENTS: "different arguments",
    DivergenceKind.DIFFERENT_RESULT: "different tool result",
    DivergenceKind.EXTRA_CALL: "extra call",
    DivergenceKind.MISSING_CALL: "missing call",
    DivergenceKind.DIFFERENT_ANSWER: "different answer",
    DivergenceKind.EXTRA_TURN: "extra turn",
    DivergenceKind.MISSING_TURN: "missing turn",
}


def _json(value: Any, limit: int) -> str:
    text = json.dumps(value, ensure_ascii=False, default=str, sort_keys=True, separators=(",", ":"))
    return text if len(text) <= limit else text[: limit - 1] + "…"


def step_text(step: Step | None, limit: int = 120) -> str:
    """``calculator({"a":42,"b":8}) -> {"result":50}``, ``answer "calc result: 50"`` or ``(nothing)``."""
    if step is None:
        return "(nothing)"
    if step.kind == "answer":
        text = " ".join((step.text or "").split())
        return f"answer {json.dumps(text if len(text) <= limit else text[: limit - 1] + '…', ensure_ascii=False)}"
    result = "" if step.result is None else f" -> {_json(step.result, limit // 2)}"
    return f"{step.name}({_json(step.arguments, limit)}){result}"


def divergence_text(divergence: Divergence | None, *, sides: tuple[str, str] = ("base", "new")) -> str:
    """One line: where the runs first differ, how, both sides, and where they meet again."""
    if divergence is None:
        return "no divergence: both runs take the same steps"
    base, new = sides
    parts = [
        f"first divergence at turn {divergence.turn}, step {divergence.step} (step {divergence.index}): "
        f"{KIND_LABELS[divergence.kind]}",
        f"{base}: {step_text(divergence.base)}",
        f"{new}: {step_text(divergence.new)}",
    ]
    if divergence.detail:
        parts.append(divergence.detail)
    again = divergence.reconverges
    if again is None:
        parts.append("the runs do not re-converge" if divergence.aligned else "too long to align further")
    elif (again.base_turn, again.base_step) == (again.new_turn, again.new_step):
        parts.append(f"re-converge at turn {again.base_turn}, step {again.base_step}")
    else:
        parts.append(
            f"re-converge at {base} turn {again.base_turn}, step {again.base_step} / "
            f"{new} turn {again.new_turn}, step {again.new_step}"
        )
    return "; ".join(parts)
