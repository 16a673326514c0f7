"""The first divergences of a comparison, as lines every renderer shows (terminal, Markdown, HTML)."""

from __future__ import annotations

from collections.abc import Sequence

from ..divergence import divergence_text
from ._model import CaseChange

__all__ = ["DIVERGENCES_SHOWN", "divergence_lines"]

DIVERGENCES_SHOWN = 50
"""At most this many cases' first divergences are written out; the rest are counted (all are in ``--json``)."""


def divergence_lines(cases: Sequence[CaseChange]) -> list[str]:
    """``First divergences (base -> new, N case(s)):`` then ``  case: first divergence at turn 2, step 1 ...`` for
    each of ``cases`` (in the order given) whose runs took different steps."""
    diverged = [c for c in cases if c.first_divergence is not None]
    if not diverged:
        return []
    lines = [f"First divergences (base -> new, {len(diverged)} case(s)):"]
    lines += [f"  {c.eval_id}: {divergence_text(c.first_divergence)}" for c in diverged[:DIVERGENCES_SHOWN]]
    if len(diverged) > DIVERGENCES_SHOWN:
        lines.append(f"  ... and {len(diverged) - DIVERGENCES_SHOWN} more (compare --json has them all)")
    return lines
