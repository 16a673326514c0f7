"""Joining near-identical clusters: the same first failing metric, divergence and tool, and reason templates at
least this similar (the wording of free-text reasons, such as a judge's, varies where the cause does not).

The similarity is rapidfuzz's token-set ratio when rapidfuzz is installed (``pip install 'agentgauge[triage]'``),
else the standard library's :class:`difflib.SequenceMatcher` ratio; both in 0..1. Groups are visited heaviest
first and each joins the first earlier group it is similar enough to, so the result does not depend on the order
of the input. Comparisons are bounded: a group is compared with at most :data:`MAX_COMPARED` earlier groups.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ._cluster import _Group

__all__ = ["MAX_COMPARED", "merge_groups", "similarity_function"]

MAX_COMPARED = 500
"""The most earlier clusters one cluster is compared with when merging."""


def similarity_function() -> tuple[Callable[[str, str], float], str]:
    """The text similarity in use (0..1) and its name."""
    try:
        from rapidfuzz import fuzz
    except ImportError:
        return (lambda a, b: difflib.SequenceMatcher(None, a, b, autojunk=False).ratio()), "difflib ratio"
    return (lambda a, b: fuzz.token_set_ratio(a, b) / 100.0), "rapidfuzz token-set ratio"


def merge_groups(groups: list[_Group], threshold: float) -> list[_Group]:
    """``groups`` with each joined into the first heavier group of the same metric, divergence and tool whose
    template is at least ``threshold`` similar (0..1)."""
    if not 0.0 <= threshold <= 1.0:
        raise ValueError(f"merge similarity must be between 0 and 1, got {threshold:g}")
    similar, _ = similarity_function()
    ordered = sorted(groups, key=lambda g: (-len(g.members), g.signature.text()))
    kept: list[_Group] = []
    for group in ordered:
        sig = group.signature
        same = [
            k
            for k in kept
            if (k.signature.metric, k.signature.divergence, k.signature.tool) == (sig.metric, sig.divergence, sig.tool)
        ]
        candidates = same[:MAX_COMPARED]
        template = group.signature.template
        target = next((k for k in candidates if similar(k.signature.template, template) >= threshold), None)
        if target is None:
            kept.append(group)
            continue
        target.members += group.members
        target.steps += group.steps
        target.divergences += group.divergences
        target.merged += [group.signature.text(), *group.merged]
    return kept
