"""LLMCriterion: the judge model and rubrics of an LLM-judge metric (trpc ``llmJudge``, ADK ``judge_model_options``)."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from pydantic import AliasChoices, Field, field_validator, model_validator

from ..model._base import empty_dict, empty_list
from ._base import CriterionError
from ._model import CriterionModel

__all__ = [
    "ADK_DEFAULT_JUDGE_MODEL",
    "ADK_DEFAULT_NUM_SAMPLES",
    "DEFAULT_GENERATION_CONFIG",
    "JudgeModelOptions",
    "LLMCriterion",
    "Rubric",
    "RubricContent",
]

DEFAULT_GENERATION_CONFIG: dict[str, Any] = {"max_tokens": 2000, "temperature": 0.8}
"""trpc's judge generation config when ``generationConfig`` is absent (``stream`` is always false)."""

ADK_DEFAULT_JUDGE_MODEL = "gemini-2.5-flash"
ADK_DEFAULT_NUM_SAMPLES = 5

_CAMEL_BOUNDARY = re.compile(r"(?<=[a-z0-9])([A-Z])")
# Gemini GenerateContentConfig names → chat-completions names; other Gemini-only options have no equivalent.
_ADK_CONFIG_KEYS = {
    "temperature": "temperature",
    "top_p": "top_p",
    "max_output_tokens": "max_tokens",
    "stop_sequences": "stop",
    "presence_penalty": "presence_penalty",
    "frequency_penalty": "frequency_penalty",
    "seed": "seed",
}


def _snake(key: str) -> str:
    return _CAMEL_BOUNDARY.sub(lambda m: "_" + m.group(1).lower(), key)


class RubricContent(CriterionModel):
    """What the judge reads for one rubric."""

    text: str = ""


class Rubric(CriterionModel):
    """One rubric item: ``id``, ``content.text`` (what the judge checks), ``description`` and a free-form ``type``.

    ADK spellings (``rubric_id``, ``rubric_content.text_property``, camelCase variants) are accepted too.
    """

    known_extra_keys = frozenset({"metric_name", "metricName", "source"})  # a case-level rubric's owner and origin

    id: str = ""
    content: RubricContent | None = None
    description: str | None = None
    type: str | None = None

    @model_validator(mode="before")
    @classmethod
    def _adk_spelling(cls, data: Any) -> Any:
        if not isinstance(data, Mapping):
            return data
        out = dict(data)
        for key in ("rubric_id", "rubricId"):
            if key in out and "id" not in out:
                out["id"] = out.pop(key)
        for key in ("rubric_content", "rubricContent"):
            if key in out and "content" not in out:
                content = out.pop(key)
                if isinstance(content, Mapping):
                    text = content.get("text", content.get("text_property", content.get("textProperty")))
                    content = {"text": text} if text is not None else None
                out["content"] = content
        return out

    @field_validator("id", mode="before")
    @classmethod
    def _id_as_text(cls, value: Any) -> Any:
        return str(value) if isinstance(value, int) and not isinstance(value, bool) else value

    @property
    def text(self) -> str:
        """The rubric text shown to the judge (``""`` when there is no content)."""
        return self.content.text if self.content is not None else ""


class JudgeModelOptions(CriterionModel):
    """Which model judges and how it is sampled (trpc ``judgeModel``; ADK options via :meth:`from_adk`).

    ``api_key`` is never serialised and never shown in ``repr``. ``generation_config`` uses snake_case
    chat-completions keys (``max_tokens``, ``temperature``, ``top_p``, ``stop``, ...); when absent the judge uses
    ``{max_tokens: 2000, temperature: 0.8}``; ``stream`` is always false.
    """

    known_extra_keys = frozenset({"timeout"})  # the judge's time budget, read by the judge metrics

    provider_name: str = ""
    model_name: str = ""
    variant: str = ""
    base_url: str = Field(
        default="", validation_alias=AliasChoices("baseURL", "baseUrl", "base_url"), serialization_alias="baseURL"
    )
    api_key: str = Field(default="", repr=False, exclude=True)
    extra_fields: dict[str, Any] = Field(default_factory=empty_dict)
    num_samples: int | None = Field(default=None, ge=1)
    generation_config: dict[str, Any] | None = None
    parallelism_limit: int | None = Field(default=None, ge=1)

    @field_validator("generation_config", mode="before")
    @classmethod
    def _snake_keys(cls, value: Any) -> Any:
        if isinstance(value, Mapping):
            return {_snake(str(k)): v for k, v in value.items()}
        return value

    @property
    def samples(self) -> int:
        """Samples per invocation (``num_samples``, default 1)."""
        return self.num_samples or 1

    def effective_generation_config(self) -> dict[str, Any]:
        """The generation config sent to the judge: the configured one (or the default), without ``stream``."""
        config = DEFAULT_GENERATION_CONFIG if self.generation_config is None else self.generation_config
        return {k: v for k, v in config.items() if k != "stream"}

    @classmethod
    def from_adk(cls, options: Mapping[str, Any] | None) -> JudgeModelOptions:
        """Options from an ADK ``judge_model_options`` block (snake_case or camelCase keys).

        ``judge_model`` (default ``gemini-2.5-flash``), ``num_samples`` (default 5), ``parallelism_limit``
        (default 1) and ``judge_model_config`` (Gemini ``GenerateContentConfig``: ``temperature``, ``top_p``,
        ``max_output_tokens``, ``stop_sequences``, ``seed``, penalties are mapped; other keys are dropped).
        agentgauge also reads ``provider_name``, ``base_url``, ``api_key`` and ``extra_fields`` there so an ADK
        config can point at any OpenAI-compatible endpoint.
        """
        raw = {_snake(str(k)): v for k, v in (options or {}).items()}
        config_raw = raw.get("judge_model_config") or {}
        if not isinstance(config_raw, Mapping):
            raise CriterionError("judge_model_options.judge_model_config must be an object")
        config = {
            _ADK_CONFIG_KEYS[k]: v
            for k, v in ((_snake(str(k)), v) for k, v in config_raw.items())
            if k in _ADK_CONFIG_KEYS and v is not None
        }
        data: dict[str, Any] = {
            "provider_name": raw.get("provider_name") or "",
            "model_name": raw.get("judge_model") or raw.get("model_name") or ADK_DEFAULT_JUDGE_MODEL,
            "base_url": raw.get("base_url") or raw.get("base_u_r_l") or "",
            "api_key": raw.get("api_key") or "",
            "extra_fields": raw.get("extra_fields") or {},
            "num_samples": raw.get("num_samples") if raw.get("num_samples") is not None else ADK_DEFAULT_NUM_SAMPLES,
            "parallelism_limit": raw.get("parallelism_limit") if raw.get("parallelism_limit") is not None else 1,
            "generation_config": config,
        }
        return cls.model_validate(data)


class LLMCriterion(CriterionModel):
    """trpc's ``criterion.llmJudge``: rubrics plus the judge model.

    - ``rubrics``: only ``id`` and ``content.text`` reach the judge; rubrics without content are dropped.
    - ``judge_model``: see :class:`JudgeModelOptions` (optional when a judge is injected).
    - ``sample_parallelism_enabled`` / ``sample_parallelism``: run samples concurrently (0 = all at once).
    """

    # trpc's judge template and the switches the judge metrics read from the block (as in an ADK criterion)
    known_extra_keys = frozenset(
        {"template", "stop_signal", "stopSignal"}
        | {"include_intermediate_responses_in_final", "includeIntermediateResponsesInFinal"}
        | {"evaluate_intermediate_nl_responses", "evaluateIntermediateNlResponses"}
    )

    rubrics: list[Rubric] = Field(default_factory=empty_list)
    judge_model: JudgeModelOptions | None = None
    sample_parallelism_enabled: bool = False
    sample_parallelism: int = Field(default=0, ge=0)

    def usable_rubrics(self) -> list[Rubric]:
        """Rubrics that have content, in configured order."""
        return [r for r in self.rubrics if r.content is not None]

    @classmethod
    def from_dict(cls, data: Mapping[str, Any] | None) -> LLMCriterion:
        """Parse ``criterion.llmJudge``; ``None`` raises :class:`CriterionError`."""
        if data is None:
            raise CriterionError("llmJudge criterion not configured")
        return cls.model_validate(dict(data))
