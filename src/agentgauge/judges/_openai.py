"""A judge on any OpenAI-compatible chat-completions endpoint, with our own retries and structured output."""

from __future__ import annotations

import asyncio
import json
import logging
import time
import weakref
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from ._endpoint import JudgeEndpoint
from ._errors import JudgeError, snippet
from ._protocol import JudgeMessage, ResponseSchema
from ._retry import RetryPolicy, parse_retry_after

if TYPE_CHECKING:
    import openai

__all__ = ["LOGPROBS_ENVELOPE", "OpenAIJudge"]

LOGPROBS_ENVELOPE = "agentgauge_logprobs_envelope"
"""Generation-config switch: ask for token logprobs and answer with a JSON envelope
``{"content": str, "logprobs": [{"token", "logprob", "top_logprobs": [{"token", "logprob"}]}] | null}``."""

_log = logging.getLogger("agentgauge.judges")

_REQUEST_PARAMS = frozenset(
    {
        "max_tokens",
        "max_completion_tokens",
        "temperature",
        "top_p",
        "stop",
        "presence_penalty",
        "frequency_penalty",
        "reasoning_effort",
        "seed",
        "logit_bias",
        "logprobs",
        "top_logprobs",
        "n",
        "user",
        "service_tier",
        "verbosity",
    }
)
_RETRY_STATUSES = frozenset({408, 409, 425, 429})
_SCHEMA_REJECTED_STATUSES = frozenset({400, 404, 415, 422, 501})


class _Retryable(Exception):
    def __init__(self, description: str, status: int | None, retry_after: float | None) -> None:
        super().__init__(description)
        self.description = description
        self.status = status
        self.retry_after = retry_after


def _envelope(content: str, logprobs: Any) -> str:
    tokens = getattr(logprobs, "content", None)
    entries = None
    if tokens:
        entries = [
            {
                "token": t.token,
                "logprob": t.logprob,
                "top_logprobs": [{"token": x.token, "logprob": x.logprob} for x in t.top_logprobs or []],
            }
            for t in tokens
        ]
    return json.dumps({"content": content, "logprobs": entries}, ensure_ascii=False)


class OpenAIJudge:
    """:class:`~agentgauge.judges.JudgeModel` over the async ``openai`` SDK (chat completions, ``stream=false``).

    The SDK's own retries are disabled; this class retries 429, 408/409/425, 5xx, timeouts and connection errors
    per :class:`RetryPolicy`, honouring ``Retry-After``. A JSON-schema ``response_format`` is sent when a schema
    is given, and dropped for the rest of the run once the server rejects it.
    """

    def __init__(self, endpoint: JudgeEndpoint, *, retry: RetryPolicy | None = None) -> None:
        self.endpoint = endpoint
        self.retry = retry or RetryPolicy()
        self._structured_ok = True
        # httpx connection pools belong to one event loop; keep one SDK client per loop.
        self._clients: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, openai.AsyncOpenAI] = (
            weakref.WeakKeyDictionary()
        )

    def __repr__(self) -> str:
        return f"OpenAIJudge({self.endpoint.describe()})"

    def _client(self) -> openai.AsyncOpenAI:
        loop = asyncio.get_running_loop()
        client = self._clients.get(loop)
        if client is None:
            import openai

            client = openai.AsyncOpenAI(
                api_key=self.endpoint.api_key,
                base_url=self.endpoint.base_url,
                max_retries=0,
                timeout=self.retry.request_timeout,
            )
            self._clients[loop] = client
        return client

    def _scrub(self, text: str) -> str:
        key = self.endpoint.api_key
        return text.replace(key, "***") if len(key) >= 4 else text

    def _request(
        self, messages: Sequence[JudgeMessage], generation_config: Mapping[str, Any], schema: ResponseSchema | None
    ) -> dict[str, Any]:
        params: dict[str, Any] = {"model": self.endpoint.model, "messages": [dict(m) for m in messages]}
        extra: dict[str, Any] = dict(self.endpoint.extra_fields)
        for key, value in generation_config.items():
            if key in ("stream", LOGPROBS_ENVELOPE) or value is None:
                continue  # judges never stream
            if key in _REQUEST_PARAMS:
                params[key] = value
            else:
                extra[key] = value
        params["stream"] = False
        if generation_config.get(LOGPROBS_ENVELOPE):
            params["logprobs"] = True
            params.setdefault("top_logprobs", 20)
        if extra:
            params["extra_body"] = extra
        if schema is not None and self._structured_ok:
            params["response_format"] = {
                "type": "json_schema",
                "json_schema": {"name": schema.name, "schema": dict(schema.schema), "strict": schema.strict},
            }
        return params

    async def _once(self, params: dict[str, Any], envelope: bool = False) -> str:
        import openai

        try:
            completion = await self._client().chat.completions.create(**params)
        except openai.APIStatusError as exc:
            status = exc.status_code
            detail = f"HTTP {status}: {snippet(self._scrub(exc.message), 200)}"
            if status in _RETRY_STATUSES or status >= 500:
                raise _Retryable(detail, status, parse_retry_after(exc.response.headers)) from exc
            raise JudgeError(f"judge {self.endpoint.describe()} failed with {detail}", status=status) from exc
        except openai.APITimeoutError as exc:
            raise _Retryable(f"timeout after {self.retry.request_timeout:g}s", None, None) from exc
        except openai.APIConnectionError as exc:
            raise _Retryable(f"connection error: {snippet(self._scrub(str(exc)), 200)}", None, None) from exc
        if not completion.choices:
            raise JudgeError(f"judge {self.endpoint.describe()} returned no choices")
        content = completion.choices[0].message.content
        if not isinstance(content, str) or not content.strip():
            raise JudgeError(f"judge {self.endpoint.describe()} returned an empty answer")
        if envelope:
            return _envelope(content, completion.choices[0].logprobs)
        return content

    async def complete(
        self,
        messages: Sequence[JudgeMessage],
        *,
        generation_config: Mapping[str, Any],
        response_schema: ResponseSchema | None = None,
    ) -> str:
        """Ask the endpoint, retrying transient failures; raise :class:`JudgeError` naming the last status."""
        policy = self.retry
        started = time.monotonic()
        attempt = 0
        while True:
            attempt += 1
            params = self._request(messages, generation_config, response_schema)
            try:
                return await self._once(params, bool(generation_config.get(LOGPROBS_ENVELOPE)))
            except JudgeError as exc:
                if "response_format" in params and exc.status in _SCHEMA_REJECTED_STATUSES:
                    # The server does not do JSON-schema output; answers are parsed tolerantly anyway.
                    _log.info("judge %s rejected response_format; retrying without it", self.endpoint.describe())
                    self._structured_ok = False
                    attempt -= 1
                    continue
                raise
            except _Retryable as exc:
                elapsed = time.monotonic() - started
                delay = policy.backoff(attempt, exc.retry_after)
                if attempt >= policy.max_attempts or elapsed + delay > policy.total_budget:
                    raise JudgeError(
                        f"judge {self.endpoint.describe()} failed after {attempt} attempt(s) in {elapsed:.1f}s: "
                        f"{exc.description}",
                        status=exc.status,
                    ) from None
                _log.warning(
                    "judge %s attempt %d failed (%s); retrying in %.2fs",
                    self.endpoint.describe(),
                    attempt,
                    exc.description,
                    delay,
                )
                await asyncio.sleep(delay)

    async def aclose(self) -> None:
        """Close the SDK clients this judge opened."""
        clients = list(self._clients.values())
        self._clients.clear()
        for client in clients:
            await client.close()
