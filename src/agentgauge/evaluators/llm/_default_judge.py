"""The judge for trpc metrics whose ``llmJudge`` names no ``judgeModel`` (trpc gives the judge in code): from
``JudgeSettings.default_judge_model`` (the CLI's ``--judge-model`` / ``--judge-base-url``, or the Python API), else
from the environment."""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

from ...criteria._base import CriterionError
from ...criteria._llm import JudgeModelOptions
from .._base import EvaluatorError

__all__ = [
    "ENV_BASE_URL",
    "ENV_MODEL",
    "ENV_PROVIDER",
    "NO_JUDGE_HINT",
    "NoJudgeModelError",
    "default_judge_options",
]

ENV_MODEL = "AGENTGAUGE_JUDGE_MODEL"
ENV_BASE_URL = "AGENTGAUGE_JUDGE_BASE_URL"
ENV_PROVIDER = "AGENTGAUGE_JUDGE_PROVIDER"
NO_JUDGE_HINT = (
    f"give the judge with --judge-model (and --judge-base-url), {ENV_MODEL} (and {ENV_BASE_URL}), "
    "or JudgeSettings(default_judge_model=... or judge=...)"
)


class NoJudgeModelError(EvaluatorError):
    """A trpc judge metric has no ``judgeModel`` and no judge was given anywhere else."""


def _from_environment() -> dict[str, Any] | None:
    model = os.environ.get(ENV_MODEL, "").strip()
    if not model:
        return None
    raw: dict[str, Any] = {"modelName": model}
    if base_url := os.environ.get(ENV_BASE_URL, "").strip():
        raw["baseURL"] = base_url
    if provider := os.environ.get(ENV_PROVIDER, "").strip():
        raw["providerName"] = provider
    return raw


def default_judge_options(default: Mapping[str, Any] | None, metric_name: str) -> JudgeModelOptions:
    """The run's default judge (``default``, a ``judgeModel`` block), else the environment's; none raises
    :class:`NoJudgeModelError` naming every place a judge can be given."""
    raw = dict(default) if default else _from_environment()
    if not raw or not str(raw.get("modelName", raw.get("model_name", ""))).strip():
        raise NoJudgeModelError(
            f"{metric_name}: llmJudge.judgeModel not configured and no default judge: {NO_JUDGE_HINT}"
        )
    try:
        return JudgeModelOptions.model_validate(raw)
    except CriterionError as exc:
        raise EvaluatorError(f"{metric_name}: default judge model: {exc}") from None
