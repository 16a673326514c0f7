"""Where a judge lives: provider, model, base URL and API key, resolved from config and environment."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from .._util.redact import register_secret
from ._errors import JudgeConfigError

__all__ = ["PROVIDERS", "JudgeEndpoint", "ProviderDefaults"]

NO_KEY_PLACEHOLDER = "agentgauge-no-key"
"""Sent as the bearer token to self-hosted servers (vLLM, Ollama, ...) that need no key; the SDK requires one."""


@dataclass(frozen=True, slots=True)
class ProviderDefaults:
    """A provider's standard API-key variables and its OpenAI-compatible base URL (``None``: SDK default/env)."""

    key_vars: tuple[str, ...]
    base_url: str | None
    hosted: bool


_OPENAI = ProviderDefaults(("OPENAI_API_KEY",), None, True)
_GEMINI = ProviderDefaults(
    ("GEMINI_API_KEY", "GOOGLE_API_KEY"), "https://generativelanguage.googleapis.com/v1beta/openai/", True
)
_ANTHROPIC = ProviderDefaults(("ANTHROPIC_API_KEY",), "https://api.anthropic.com/v1/", True)
_QWEN = ProviderDefaults(("DASHSCOPE_API_KEY",), "https://dashscope.aliyuncs.com/compatible-mode/v1", True)
_LLAMACPP = ProviderDefaults((), "http://127.0.0.1:8080/v1", False)

PROVIDERS: dict[str, ProviderDefaults] = {
    "openai": _OPENAI,
    "azure": ProviderDefaults(("AZURE_OPENAI_API_KEY", "OPENAI_API_KEY"), None, False),
    "deepseek": ProviderDefaults(("DEEPSEEK_API_KEY",), "https://api.deepseek.com/v1", True),
    "gemini": _GEMINI,
    "google": _GEMINI,
    "anthropic": _ANTHROPIC,
    "claude": _ANTHROPIC,
    "openrouter": ProviderDefaults(("OPENROUTER_API_KEY",), "https://openrouter.ai/api/v1", True),
    "groq": ProviderDefaults(("GROQ_API_KEY",), "https://api.groq.com/openai/v1", True),
    "mistral": ProviderDefaults(("MISTRAL_API_KEY",), "https://api.mistral.ai/v1", True),
    "together": ProviderDefaults(("TOGETHER_API_KEY",), "https://api.together.xyz/v1", True),
    "xai": ProviderDefaults(("XAI_API_KEY",), "https://api.x.ai/v1", True),
    "qwen": _QWEN,
    "dashscope": _QWEN,
    "ollama": ProviderDefaults((), "http://127.0.0.1:11434/v1", False),
    "vllm": ProviderDefaults(("VLLM_API_KEY",), None, False),
    "llamacpp": _LLAMACPP,
    "llama.cpp": _LLAMACPP,
    "litellm": ProviderDefaults(("LITELLM_API_KEY",), "http://127.0.0.1:4000", False),
}

_MODEL_PREFIXES = (("gemini", "gemini"), ("claude", "anthropic"), ("deepseek", "deepseek"))


def _infer_provider(model: str) -> tuple[str, str]:
    """Provider and model for a bare or ``provider/model`` name (ADK configs name only the model)."""
    head, sep, tail = model.partition("/")
    if sep and head.lower() in PROVIDERS and head.lower() != "openrouter":
        return head.lower(), tail
    lowered = model.lower()
    for prefix, provider in _MODEL_PREFIXES:
        if lowered.startswith(prefix):
            return provider, model
    return "openai", model


@dataclass(frozen=True, slots=True)
class JudgeEndpoint:
    """A resolved OpenAI-compatible judge endpoint.

    ``api_key`` is excluded from ``repr`` and from :meth:`cache_identity`, so it never reaches logs, cache keys or
    cache entries; creating an endpoint registers the key for masking in every output (see ``agentgauge._util.redact``).
    """

    provider: str
    model: str
    base_url: str | None
    api_key: str = field(repr=False, compare=False)
    extra_fields: Mapping[str, Any] = field(default_factory=dict, compare=False)
    variant: str = ""

    def __post_init__(self) -> None:
        if self.api_key != NO_KEY_PLACEHOLDER:
            register_secret(self.api_key)

    @classmethod
    def resolve(
        cls,
        *,
        model: str,
        provider: str = "",
        variant: str = "",
        base_url: str = "",
        api_key: str = "",
        extra_fields: Mapping[str, Any] | None = None,
        env: Mapping[str, str] | None = None,
    ) -> JudgeEndpoint:
        """Fill the blanks of a judge config from provider defaults and the environment.

        - base URL: the config's, else the provider's known OpenAI-compatible URL, else ``OPENAI_BASE_URL``, else
          the SDK default (``api.openai.com``).
        - API key: the config's (already ``${VAR}``-expanded by the loader), else the provider's standard
          variable (``OPENAI_API_KEY``, ``DEEPSEEK_API_KEY``, ``GEMINI_API_KEY``/``GOOGLE_API_KEY``,
          ``ANTHROPIC_API_KEY``, ...), else ``OPENAI_API_KEY``; self-hosted servers get a placeholder.
        - ``variant`` (trpc) names the OpenAI-compatible flavour of the ``openai`` provider (e.g. ``deepseek``)
          and selects that flavour's defaults.

        Raises :class:`JudgeConfigError` when the model is missing or a hosted provider has no key.
        """
        environ = os.environ if env is None else env
        model = model.strip()
        if not model:
            raise JudgeConfigError("judge model name is empty (set judgeModel.modelName or judge_model)")
        provider = provider.strip().lower()
        if not provider:
            provider, model = _infer_provider(model)
        flavour = variant.strip().lower() if provider == "openai" and variant.strip().lower() in PROVIDERS else provider
        defaults = PROVIDERS.get(flavour, ProviderDefaults((), None, False))
        url = base_url.strip() or defaults.base_url or environ.get("OPENAI_BASE_URL", "").strip() or None
        key = api_key.strip()
        if not key:
            for var in (*defaults.key_vars, "OPENAI_API_KEY"):
                if environ.get(var, "").strip():
                    key = environ[var].strip()
                    break
        if not key:
            official = defaults.hosted and (url is None or url == defaults.base_url)
            if official:
                names = ", ".join(f"${v}" for v in defaults.key_vars or ("OPENAI_API_KEY",))
                raise JudgeConfigError(
                    f"no API key for judge provider {flavour!r} (model {model!r}): set apiKey in the judge config "
                    f"or {names}"
                )
            key = NO_KEY_PLACEHOLDER
        return cls(
            provider=provider,
            model=model,
            base_url=url,
            api_key=key,
            extra_fields=dict(extra_fields or {}),
            variant=variant.strip(),
        )

    def cache_identity(self) -> dict[str, Any]:
        """What identifies this judge in cache keys: model, base URL and extra request fields (never the key)."""
        return {"model": self.model, "base_url": self.base_url or "", "extra_fields": dict(self.extra_fields)}

    def describe(self) -> str:
        """``<model> at <base URL>`` for messages."""
        return f"{self.model} at {self.base_url or 'https://api.openai.com/v1'}"
