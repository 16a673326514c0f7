"""Judge-model clients for LLM-as-a-judge metrics.

- :class:`JudgeModel`: the extension point (``async complete(messages, *, generation_config, response_schema)``).
- :class:`OpenAIJudge`: any OpenAI-compatible chat-completions endpoint (OpenAI, DeepSeek, Gemini/Anthropic
  compatibility endpoints, vLLM, Ollama, llama.cpp server, LiteLLM), with retries and structured output.
- :class:`CallableJudge`: a Python callable ``(messages) -> str``, sync or async.
- :class:`JudgeEndpoint`: provider/model/base URL/API key resolved from config and environment.
- :class:`JudgeCache`, :class:`JudgeClient`, :class:`JudgePool`: answer cache, concurrency limits, per-run clients.
- :func:`extract_json`, :func:`extract_json_object`: tolerant JSON parsing of judge answers.
"""

from ._cache import JudgeCache, cache_key
from ._client import JudgeClient, JudgePool
from ._endpoint import PROVIDERS, JudgeEndpoint, ProviderDefaults
from ._errors import JudgeAnswerError, JudgeConfigError, JudgeError, JudgeParseError, JudgeTimeoutError, snippet
from ._json import extract_json, extract_json_object, strip_code_fence
from ._openai import OpenAIJudge
from ._protocol import CallableJudge, JudgeMessage, JudgeModel, ResponseSchema, as_judge_model
from ._retry import RetryPolicy, parse_retry_after
from ._settings import JudgeSettings

__all__ = [
    "PROVIDERS",
    "CallableJudge",
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
