"""pass@k and pass^k over repeated runs (trpc-agent-go semantics).

With ``n`` runs of which ``c`` passed:

- ``pass_at_k(n, c, k)``: probability that at least one of ``k`` runs drawn without replacement passes,
  ``1 - C(n-c, k) / C(n, k)``;
- ``pass_hat_k(n, c, k)``: probability that ``k`` independent runs all pass, ``(c/n)^k``.
"""

from __future__ import annotations

import math

__all__ = ["pass_at_k", "pass_hat_k"]


def pass_at_k(n: int, c: int, k: int) -> float:
    """``1 - C(n-c, k) / C(n, k)``, computed with ``lgamma`` and ``expm1`` so large ``n`` stays accurate.

    ``c == 0`` gives 0 and ``n - c < k`` gives 1. Raises ``ValueError`` when ``n < 0``, ``k <= 0``, ``c < 0``,
    ``c > n`` or ``k > n``.
    """
    if n < 0:
        raise ValueError(f"pass@k: n must be >= 0, got {n}")
    if k <= 0:
        raise ValueError(f"pass@k: k must be > 0, got {k}")
    if c < 0 or c > n:
        raise ValueError(f"pass@k: c must be between 0 and n={n}, got {c}")
    if k > n:
        raise ValueError(f"pass@k: k must be <= n={n}, got {k}")
    if c == 0:
        return 0.0
    if n - c < k:
        return 1.0
    # log(C(n-c, k) / C(n, k)) = lgamma(n-c+1) - lgamma(n-c-k+1) - lgamma(n+1) + lgamma(n-k+1)
    log_ratio = math.lgamma(n - c + 1) - math.lgamma(n - c - k + 1) - math.lgamma(n + 1) + math.lgamma(n - k + 1)
    return -math.expm1(log_ratio)


def pass_hat_k(n: int, c: int, k: int) -> float:
    """``(c/n)^k``: every one of ``k`` independent runs passes. ``k`` may exceed ``n``.

    ``c == 0`` gives 0 and ``c == n`` gives 1. Raises ``ValueError`` when ``n <= 0``, ``k <= 0``, ``c < 0`` or
    ``c > n``.
    """
    if n <= 0:
        raise ValueError(f"pass^k: n must be > 0, got {n}")
    if k <= 0:
        raise ValueError(f"pass^k: k must be > 0, got {k}")
    if c < 0 or c > n:
        raise ValueError(f"pass^k: c must be between 0 and n={n}, got {c}")
    if c == 0:
        return 0.0
    if c == n:
        return 1.0
    return float((c / n) ** k)
