"""Judge-model clients for LLM-as-a-judge metrics.

- :class:`JudgeModel`: the extension point (``async complete(messages, *, generation_config, response_schema)``).
- :class:`OpenAIJudge`: any OpenAI-compatible chat-completions endpoint (OpenAI, DeepSeek, Gemini/Anthropic
  compatibility endpoints, vLLM, Ollama, llama.cpp server, LiteLLM), with retries and structured output.
- :class:`CallableJudge`: a Python callable ``(messages) -> str``, sync or async.
- :class:`JudgeEndpoint`: provider/model/base URL/API key resolved from config and environment.
- :class:`JudgeCache`, :class:`JudgeClient`, :class:`JudgePool`: answer cache, concurrency limits, per-run clients.
- :func:`extract_json`, :func:`extract_json_object`: tolerant JSON parsing of judge answers.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._util.lazy import lazy_exports

if TYPE_CHECKING:
    from ._cache import JudgeCache, cache_key
    from ._client import JudgeClient, JudgePool
    from ._endpoint import PROVIDERS, JudgeEndpoint, ProviderDefaults
    from ._errors import JudgeAnswerError, JudgeConfigError, JudgeError, JudgeParseError, JudgeTimeoutError, snippet
    from ._json import extract_json, extract_json_object, strip_code_fence
    from ._openai import ChatUsage, OpenAIJudge
    from ._protocol import CallableJudge, JudgeMessage, JudgeModel, ResponseSchema, as_judge_model
    from ._retry import RetryPolicy, parse_retry_after
    from ._settings import DEFAULT_JUDGE_CONCURRENCY, RUN_PARALLELISM, JudgeSettings

__all__ = [
    "DEFAULT_JUDGE_CONCURRENCY",
    "PROVIDERS",
    "RUN_PARALLELISM",
    "CallableJudge",
    "ChatUsage",
    "JudgeAnswerError",
    "JudgeCache",
    "JudgeClient",
    "JudgeConfigError",
    "JudgeEndpoint",
    "JudgeError",
    "JudgeMessage",
    "JudgeModel",
    "JudgeParseError",
    "JudgePool",
    "JudgeSettings",
    "JudgeTimeoutError",
    "OpenAIJudge",
    "ProviderDefaults",
    "ResponseSchema",
    "RetryPolicy",
    "as_judge_model",
    "cache_key",
    "extract_json",
    "extract_json_object",
    "parse_retry_after",
    "snippet",
    "strip_code_fence",
]

# The names are imported on first use: a run whose metrics need no judge (the usual deterministic run) loads only
# the settings it passes around, not the HTTP client, the cache and the provider tables (~3 ms of start-up).
__getattr__, __dir__ = lazy_exports(
    __name__,
    {
        "CallableJudge": "._protocol",
        "ChatUsage": "._openai",
        "DEFAULT_JUDGE_CONCURRENCY": "._settings",
        "RUN_PARALLELISM": "._settings",
        "JudgeAnswerError": "._errors",
        "JudgeCache": "._cache",
        "JudgeClient": "._client",
        "JudgeConfigError": "._errors",
        "JudgeEndpoint": "._endpoint",
        "JudgeError": "._errors",
        "JudgeMessage": "._protocol",
        "JudgeModel": "._protocol",
        "JudgeParseError": "._errors",
        "JudgePool": "._client",
        "JudgeSettings": "._settings",
        "JudgeTimeoutError": "._errors",
        "OpenAIJudge": "._openai",
        "PROVIDERS": "._endpoint",
        "ProviderDefaults": "._endpoint",
        "ResponseSchema": "._protocol",
        "RetryPolicy": "._retry",
        "as_judge_model": "._protocol",
        "cache_key": "._cache",
        "extract_json": "._json",
        "extract_json_object": "._json",
        "parse_retry_after": "._retry",
        "snippet": "._errors",
        "strip_code_fence": "._json",
    },
    __all__,
)
