"""Run-level judge settings that travel explicitly from the evaluator/CLI to the LLM metrics."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ._retry import RetryPolicy

__all__ = ["JudgeSettings"]


@dataclass(frozen=True, slots=True)
class JudgeSettings:
    """How LLM-judge metrics reach their model during one run.

    - ``cache_dir``: where judge answers are cached on disk (``None`` disables the cache).
    - ``judge``: an injected judge (a ``JudgeModel`` or a Python callable) used instead of the configured
      ``judgeModel`` endpoint, for custom models and tests.
    - ``max_concurrency``: concurrent judge calls per judge model.
    - ``retry``: backoff, attempt and time budgets for judge calls (see :class:`RetryPolicy`).
    - ``default_judge_model``: a trpc ``judgeModel`` block (``{"modelName": ..., "baseURL": ...}``) for trpc
      judge metrics whose ``llmJudge`` has none; without it ``AGENTGAUGE_JUDGE_MODEL`` /
      ``AGENTGAUGE_JUDGE_BASE_URL`` / ``AGENTGAUGE_JUDGE_PROVIDER`` are used.
    """

    cache_dir: Path | None = None
    judge: Any = None
    max_concurrency: int = 4
    retry: RetryPolicy = field(default_factory=RetryPolicy)
    default_judge_model: Mapping[str, Any] | None = None
