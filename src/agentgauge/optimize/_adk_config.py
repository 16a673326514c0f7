"""Google ADK's optimisation config files, read as ``adk optimize`` reads them (google-adk is not needed).

- The sampler config (``--sampler_config_file_path``): ADK's ``LocalEvalSamplerConfig`` --
  ``eval_config`` (an ADK ``EvalConfig``: ``criteria``, ``custom_metrics``, ``user_simulator_config``), ``app_name``,
  ``train_eval_set``, ``train_eval_case_ids``, ``validation_eval_set``, ``validation_eval_case_ids``. Eval sets are
  ADK's: ``<agent dir>/<eval set id>.evalset.json``. No validation set: the train set validates too; no validation
  case ids with a validation set: all its cases; no validation set nor ids: the train cases.
- The optimizer config (``--optimizer_config_file_path``): ``GEPARootAgentPromptOptimizerConfig`` /
  ``GEPARootAgentOptimizerConfig`` (``optimizer_model``, ``model_configuration``, ``max_metric_calls``,
  ``reflection_minibatch_size``, ``run_dir``) or ``SimplePromptOptimizerConfig`` (``optimizer_model``,
  ``model_configuration``, ``num_iterations``, ``batch_size``). ADK's defaults apply to what a file leaves out.

Field names are ADK's (snake_case, as ``model_validate_json`` reads them). Keys ADK does not know are ignored, as
ADK ignores them, and reported in :attr:`OptimizerConfig.unknown_keys` so a typo is not silent.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from ..errors import InputError
from ..model import EvalMetric

__all__ = [
    "ADK_GEPA_DEFAULTS",
    "OptimizerConfig",
    "SamplerConfig",
    "generation_settings",
    "load_optimizer_config",
    "load_sampler_config",
]


class _AdkFile(BaseModel):
    model_config = ConfigDict(extra="allow")

    @property
    def unknown_keys(self) -> list[str]:
        """Top-level keys ADK would ignore."""
        return sorted(self.model_extra or {})


class SamplerConfig(_AdkFile):
    """ADK's ``LocalEvalSamplerConfig`` (see the module's description)."""

    eval_config: dict[str, Any]
    app_name: str
    train_eval_set: str
    train_eval_case_ids: list[str] | None = None
    validation_eval_set: str | None = None
    validation_eval_case_ids: list[str] | None = None

    def metrics(self, source: str) -> list[EvalMetric]:
        """The metrics of ``eval_config`` (ADK's criteria rules); problems name ``source`` and ``eval_config.*``."""
        import json

        from ..formats import parse_metrics

        try:
            return parse_metrics(json.dumps(self.eval_config), source=source)
        except InputError as exc:
            location = f"eval_config.{exc.location}" if exc.location else "eval_config"
            raise InputError(exc.message, file=source, location=location) from None


ADK_GEPA_DEFAULTS: dict[str, Any] = {"optimizer_model": "gemini-2.5-flash", "max_metric_calls": 100, "minibatch": 3}
"""What ``adk optimize`` uses when its optimizer config says nothing (``GEPARootAgentPromptOptimizerConfig``)."""


class OptimizerConfig(_AdkFile):
    """The fields of ADK's GEPA and simple optimizer configs (``None``: not given, the default applies)."""

    optimizer_model: str | None = None
    model_configuration: dict[str, Any] = Field(default_factory=dict)
    max_metric_calls: int | None = Field(default=None, ge=1)
    reflection_minibatch_size: int | None = Field(default=None, ge=1)
    run_dir: str | None = None
    num_iterations: int | None = Field(default=None, ge=0)
    batch_size: int | None = Field(default=None, ge=1)


def load_sampler_config(path: Path) -> SamplerConfig:
    """Read a sampler config file; problems raise :class:`InputError` naming the file and the field."""
    from ..formats import load_json_model

    config = load_json_model(path, SamplerConfig, camel=False)
    if config.train_eval_case_ids == []:
        message = "must not be empty (leave it out to use every case)"
        raise InputError(message, file=str(path), location="train_eval_case_ids")
    return config


def load_optimizer_config(path: Path) -> OptimizerConfig:
    """Read an optimizer config file (GEPA's or the simple optimizer's)."""
    from ..formats import load_json_model

    return load_json_model(path, OptimizerConfig, camel=False)


# genai GenerateContentConfig fields (snake or camel case) that have a chat-completions counterpart.
_GENERATION = {
    "temperature": "temperature",
    "top_p": "top_p",
    "topP": "top_p",
    "max_output_tokens": "max_tokens",
    "maxOutputTokens": "max_tokens",
    "seed": "seed",
    "stop_sequences": "stop",
    "stopSequences": "stop",
    "presence_penalty": "presence_penalty",
    "presencePenalty": "presence_penalty",
    "frequency_penalty": "frequency_penalty",
    "frequencyPenalty": "frequency_penalty",
}


def generation_settings(model_configuration: dict[str, Any]) -> dict[str, Any]:
    """The chat-completions parameters of an ADK ``model_configuration`` (Gemini's thinking settings and the other
    Gemini-only fields have none and are dropped)."""
    return {_GENERATION[k]: v for k, v in model_configuration.items() if k in _GENERATION and v is not None}
