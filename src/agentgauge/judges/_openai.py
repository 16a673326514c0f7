"""A judge on any OpenAI-compatible chat-completions endpoint, with our own retries and structured output."""

from __future__ import annotations

import asyncio
import json
import logging
import math
import time
import weakref
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, NoReturn

from .._util.redact import redact
from ._endpoint import JudgeEndpoint
from ._errors import JudgeAnswerError, JudgeError, JudgeTimeoutError, snippet
from ._protocol import JudgeMessage, ResponseSchema
from ._retry import RetryPolicy, parse_retry_after, retryable_status

if TYPE_CHECKING:
    from ._http import ChatTransport

__all__ = ["LOGPROBS_ENVELOPE", "ChatUsage", "OpenAIJudge"]

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
_SCHEMA_REJECTED_STATUSES = frozenset({400, 404, 415, 422, 501})


class _Retryable(Exception):
    def __init__(
        self, description: str, status: int | None, retry_after: float | None, *, invalid: bool = False
    ) -> None:
        super().__init__(description)
        self.description = description
        self.status = status
        self.retry_after = retry_after
        self.invalid = invalid  # the server answered, but not with a chat completion


_KINDS: dict[type, str] = {dict: "an object", list: "a list", str: "a string", bool: "a boolean"}


def _kind(value: Any) -> str:
    if value is None:
        return "null"
    name = type(value).__name__
    return _KINDS.get(type(value), f"{'an' if name[:1] in 'aeiou' else 'a'} {name}")


def _answer_text(body: bytes, content_type: str) -> str:
    """The first choice's message content of a chat-completion body; ``ValueError`` says what is wrong."""
    try:
        data = json.loads(body)
    except ValueError:
        shown = snippet(body.decode("utf-8", "replace"), 80) or "<empty>"
        raise ValueError(f"the body is not JSON ({content_type or 'no content type'}): {shown!r}") from None
    if not isinstance(data, dict):
        raise ValueError(f"the body is {_kind(data)}, not a chat completion object")
    choices = data.get("choices")
    if choices is None and isinstance(data.get("error"), dict | str):
        error = data["error"]
        message = error.get("message", "") if isinstance(error, dict) else error
        raise ValueError(f"the body is an error object: {snippet(str(message), 120)!r}")
    if not isinstance(choices, list):
        raise ValueError("'choices' is missing" if choices is None else f"'choices' is {_kind(choices)}, not a list")
    if not choices:
        raise ValueError("'choices' is empty")
    message = choices[0].get("message") if isinstance(choices[0], dict) else None
    if not isinstance(message, dict):
        where = "'choices[0].message'" if isinstance(choices[0], dict) else "'choices[0]'"
        found = message if isinstance(choices[0], dict) else choices[0]
        raise ValueError(f"{where} is {_kind(found)}, not an object")
    content = message.get("content")
    if not isinstance(content, str):
        raise ValueError(f"'choices[0].message.content' is {_kind(content)}, not a string")
    if not content.strip():
        raise ValueError("the answer is empty")
    return content


def _envelope(content: str, body: bytes) -> str:
    """The answer with the first choice's token logprobs (``null`` when the endpoint gave none), as JSON."""
    choice = json.loads(body)["choices"][0]  # already checked by _answer_text
    logprobs = choice.get("logprobs")
    tokens = logprobs.get("content") if isinstance(logprobs, dict) else None
    entries = None
    if isinstance(tokens, list) and tokens:
        entries = [
            {
                "token": t.get("token"),
                "logprob": t.get("logprob"),
                "top_logprobs": [
                    {"token": x.get("token"), "logprob": x.get("logprob")}
                    for x in t.get("top_logprobs") or []
                    if isinstance(x, dict)
                ],
            }
            for t in tokens
            if isinstance(t, dict)
        ]
    return json.dumps({"content": content, "logprobs": entries}, ensure_ascii=False)


@dataclass
class ChatUsage:
    """What an endpoint's answers said they used: answers received and the ``usage`` token counts they reported
    (``None`` until one reports them)."""

    answers: int = 0
    input_tokens: int | None = None
    output_tokens: int | None = None

    def add(self, body: bytes) -> None:
        """Count one answer and the ``usage.prompt_tokens`` / ``usage.completion_tokens`` of its (valid) body."""
        self.answers += 1
        try:
            usage = json.loads(body).get("usage")
        except (ValueError, AttributeError):
            return
        if not isinstance(usage, dict):
            return
        for attr, key in (("input_tokens", "prompt_tokens"), ("output_tokens", "completion_tokens")):
            count = usage.get(key)
            if isinstance(count, int) and not isinstance(count, bool) and count >= 0:
                setattr(self, attr, (getattr(self, attr) or 0) + count)

    def merge(self, other: ChatUsage) -> None:
        """Add ``other``'s answers and token counts to these."""
        self.answers += other.answers
        for attr in ("input_tokens", "output_tokens"):
            theirs = getattr(other, attr)
            if theirs is not None:
                setattr(self, attr, (getattr(self, attr) or 0) + theirs)


class OpenAIJudge:
    """:class:`~agentgauge.judges.JudgeModel` over an OpenAI-compatible chat-completions endpoint (``stream=false``).

    Requests go out as the ``openai`` SDK would send them (with its retries off), without loading the SDK (see
    ``agentgauge.judges._http``). This class retries what the shared policy retries (429 and transient 5xx, see
    :func:`~agentgauge._util.retry.retryable_status`), timeouts, connection errors and invalid answers (bodies
    that are not chat completions) per :class:`RetryPolicy`, honouring ``Retry-After``, within the call's time
    budget. A JSON-schema ``response_format`` is sent when a schema is given, and dropped for the rest
    of the run once the server rejects it. Answers and error messages never contain a registered secret.
    :attr:`usage` counts the answers and the tokens they reported.
    """

    def __init__(self, endpoint: JudgeEndpoint, *, retry: RetryPolicy | None = None) -> None:
        self.endpoint = endpoint
        self.retry = retry or RetryPolicy()
        self.usage = ChatUsage()
        self._structured_ok = True
        # httpx connection pools belong to one event loop; keep one transport (one pool) per loop.
        self._clients: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, ChatTransport] = weakref.WeakKeyDictionary()

    def __repr__(self) -> str:
        return f"OpenAIJudge({self.endpoint.describe()})"

    def _client(self) -> ChatTransport:
        loop = asyncio.get_running_loop()
        client = self._clients.get(loop)
        if client is None:
            from ._http import ChatTransport

            client = self._clients[loop] = ChatTransport(self.endpoint.base_url, self.endpoint.api_key)
        return client

    def _scrub(self, text: str) -> str:
        key = self.endpoint.api_key
        text = redact(text)
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

    async def _once(self, params: dict[str, Any], timeout: float, envelope: bool = False) -> str:
        from ._http import ConnectionFailed, RequestTimeout, StatusError

        try:
            # The raw body: we check it ourselves and say what is wrong with it, rather than let a parser turn
            # garbage into Python internals ("'str' object has no attribute 'choices'").
            async with asyncio.timeout(timeout):  # a hard bound: httpx's timeouts are per read, not per request
                raw = await self._client().post(params, timeout)
        except StatusError as exc:
            status = exc.status
            detail = f"HTTP {status}: {snippet(self._scrub(exc.message), 200)}"
            if retryable_status(status, conflicts=True):
                raise _Retryable(detail, status, parse_retry_after(exc.headers)) from exc
            raise JudgeError(f"judge {self.endpoint.describe()} failed with {detail}", status=status) from exc
        except (RequestTimeout, TimeoutError) as exc:
            raise _Retryable(f"timeout after {timeout:.3g}s", None, None) from exc
        except ConnectionFailed as exc:
            raise _Retryable(f"connection error: {snippet(self._scrub(str(exc)), 200)}", None, None) from exc
        try:
            content = _answer_text(raw.body, raw.content_type)
        except ValueError as exc:
            raise _Retryable(self._scrub(str(exc)), raw.status, None, invalid=True) from None
        self.usage.add(raw.body)
        if envelope:
            return redact(_envelope(content, raw.body))
        return redact(content)

    async def complete(
        self,
        messages: Sequence[JudgeMessage],
        *,
        generation_config: Mapping[str, Any],
        response_schema: ResponseSchema | None = None,
        time_budget: float | None = None,
    ) -> str:
        """Ask the endpoint, retrying transient failures within ``time_budget`` seconds (default: the policy's
        ``total_budget``).

        Raises :class:`JudgeAnswerError` when the last attempt got an invalid answer, :class:`JudgeTimeoutError`
        when the budget ran out, else :class:`JudgeError` naming the last status.
        """
        policy = self.retry
        budget = policy.total_budget if time_budget is None else time_budget
        loop = asyncio.get_running_loop()
        # Build the transport (and import the HTTP library) first: that one-off set-up blocks the event loop, so no
        # timeout could interrupt it, and it is not the judge's time.
        self._client()
        started = time.monotonic()
        deadline = loop.time() + budget if math.isfinite(budget) else math.inf
        attempt = 0
        last = ""
        while True:
            remaining = deadline - loop.time()
            if remaining <= 0:
                raise JudgeTimeoutError(
                    f"judge {self.endpoint.describe()} did not answer within its {budget:g}s time budget "
                    f"({attempt} attempt(s); last: {last})"
                )
            attempt += 1
            params = self._request(messages, generation_config, response_schema)
            try:
                envelope = bool(generation_config.get(LOGPROBS_ENVELOPE))
                return await self._once(params, min(policy.request_timeout, remaining), envelope)
            except JudgeError as exc:
                if "response_format" in params and exc.status in _SCHEMA_REJECTED_STATUSES:
                    # The server does not do JSON-schema output; answers are parsed tolerantly anyway.
                    _log.info("judge %s rejected response_format; retrying without it", self.endpoint.describe())
                    self._structured_ok = False
                    attempt -= 1
                    continue
                raise
            except _Retryable as exc:
                last = exc.description
                elapsed = time.monotonic() - started
                delay = policy.backoff(attempt, exc.retry_after)
                if attempt >= policy.max_attempts or loop.time() + delay >= deadline:
                    self._give_up(exc, attempt, elapsed, budget, deadline - loop.time() <= 0)
                _log.warning(
                    "judge %s attempt %d failed (%s); retrying in %.2fs",
                    self.endpoint.describe(),
                    attempt,
                    exc.description,
                    delay,
                )
                await asyncio.sleep(delay)

    def _give_up(self, exc: _Retryable, attempt: int, elapsed: float, budget: float, spent: bool) -> NoReturn:
        where = self.endpoint.describe()
        tally = f"{attempt} attempt(s) in {elapsed:.1f}s"
        if exc.invalid:
            raise JudgeAnswerError(where, f"{exc.description} ({tally})", attempts=attempt)
        if spent:
            raise JudgeTimeoutError(
                f"judge {where} did not answer within its {budget:g}s time budget ({tally}; last: {exc.description})",
                status=exc.status,
            )
        raise JudgeError(f"judge {where} failed after {tally}: {exc.description}", status=exc.status)

    async def aclose(self) -> None:
        """Close the connection pools this judge opened."""
        clients = list(self._clients.values())
        self._clients.clear()
        for client in clients:
            await client.aclose()
