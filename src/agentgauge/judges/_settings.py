"""Run-level judge settings that travel explicitly from the evaluator/CLI to the LLM metrics."""

from __future__ import annotations

from collections.abc import Mapping
from contextvars import ContextVar
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ._retry import RetryPolicy

__all__ = ["DEFAULT_JUDGE_CONCURRENCY", "RUN_PARALLELISM", "JudgeSettings"]

DEFAULT_JUDGE_CONCURRENCY = 4
"""Concurrent calls per judge when neither the settings nor a run say how many."""

RUN_PARALLELISM: ContextVar[int] = ContextVar("agentgauge_run_parallelism", default=DEFAULT_JUDGE_CONCURRENCY)
"""The parallelism of the evaluation running in this context (set by ``AgentEvaluator.evaluate``): judges whose
settings leave ``max_concurrency`` unset allow that many calls at once, so judging keeps pace with the cases."""


@dataclass(frozen=True, slots=True)
class JudgeSettings:
    """How LLM-judge metrics reach their model during one run.

    - ``cache_dir``: where judge answers are cached on disk (``None`` disables the cache).
    - ``judge``: an injected judge (a ``JudgeModel`` or a Python callable) used instead of the configured
      ``judgeModel`` endpoint, for custom models and tests.
    - ``max_concurrency``: concurrent judge calls per judge model; ``None`` (the default): as many as the run's
      parallelism (``AgentEvaluator(parallelism=...)``, ``eval --parallelism``; see :data:`RUN_PARALLELISM`),
      :data:`DEFAULT_JUDGE_CONCURRENCY` outside a run.
    - ``retry``: backoff, attempt and time budgets for judge calls (see :class:`RetryPolicy`).
    - ``default_judge_model``: a trpc ``judgeModel`` block (``{"modelName": ..., "baseURL": ...}``) for trpc
      judge metrics whose ``llmJudge`` has none; without it ``AGENTGAUGE_JUDGE_MODEL`` /
      ``AGENTGAUGE_JUDGE_BASE_URL`` / ``AGENTGAUGE_JUDGE_PROVIDER`` are used.
    """

    cache_dir: Path | None = None
    judge: Any = None
    max_concurrency: int | None = None
    retry: RetryPolicy = field(default_factory=RetryPolicy)
    default_judge_model: Mapping[str, Any] | None = None
