"""Agreement between two raters: observed agreement and Cohen's kappa over a confusion matrix."""

from __future__ import annotations

from collections.abc import Sequence

__all__ = ["cohen_kappa", "observed_agreement"]


def _checked(matrix: Sequence[Sequence[int]]) -> int:
    size = len(matrix)
    if size == 0 or any(len(row) != size for row in matrix):
        raise ValueError(f"a confusion matrix is square and not empty, got {[len(row) for row in matrix]} columns")
    if any(cell < 0 for row in matrix for cell in row):
        raise ValueError("a confusion matrix holds counts, got a negative one")
    return sum(sum(row) for row in matrix)


def observed_agreement(matrix: Sequence[Sequence[int]]) -> float | None:
    """The share of items both raters put in the same category (the diagonal over the total); ``None`` without
    items. ``matrix[i][j]`` counts the items rater A put in category i and rater B in category j."""
    total = _checked(matrix)
    if total == 0:
        return None
    return sum(matrix[i][i] for i in range(len(matrix))) / total


def cohen_kappa(matrix: Sequence[Sequence[int]]) -> float | None:
    """Cohen's kappa, ``(p_o - p_e) / (1 - p_e)``: agreement beyond what the raters' own category rates give by
    chance (1 perfect, 0 chance level, below 0 worse than chance).

    ``p_e`` is the sum over categories of the product of both raters' marginal shares. ``None`` when it is
    undefined: no items, or ``p_e == 1`` (both raters used one and the same category for every item, so agreement
    says nothing about the judge)."""
    total = _checked(matrix)
    if total == 0:
        return None
    size = len(matrix)
    rows = [sum(matrix[i]) / total for i in range(size)]
    cols = [sum(matrix[i][j] for i in range(size)) / total for j in range(size)]
    expected = sum(r * c for r, c in zip(rows, cols, strict=True))
    observed = sum(matrix[i][i] for i in range(size)) / total
    if expected >= 1.0 - 1e-12:
        return None
    return (observed - expected) / (1.0 - expected)
