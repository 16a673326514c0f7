"""A tool-calling agent on any OpenAI-compatible chat-completions endpoint (OpenAI, vLLM, Ollama, LiteLLM, ...)."""

from __future__ import annotations

import asyncio
import copy
import dataclasses
import json
import os
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, cast

from .._util.redact import register_secret
from ..errors import AgentError
from ..model import Invocation, Message, TokenUsage, Tool
from ._safety import describe_exception
from ._timing import measures, time_model
from ._tools import FunctionTool
from ._types import AgentOutput, AgentRequest

if TYPE_CHECKING:  # pragma: no cover
    from openai import AsyncOpenAI

__all__ = ["OpenAIAgent"]


def _json_text(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)


def _add(total: int | None, count: Any) -> int | None:
    # "Not reported" stays None; a reported count (zero included) is summed.
    if not isinstance(count, int) or isinstance(count, bool):
        return total
    return (total or 0) + count


def add_usage(usage: TokenUsage, reported: Any) -> None:
    """Fold one chat-completions ``response.usage`` into the turn's usage (in place).

    ``prompt_tokens`` / ``completion_tokens`` are the input / output; their ``*_details`` give the cached and
    reasoning parts. The total is input + output, as ADK derives it.
    """
    if reported is None:
        return
    prompt = getattr(reported, "prompt_tokens", None)
    completion = getattr(reported, "completion_tokens", None)
    usage.input_tokens = _add(usage.input_tokens, prompt)
    usage.prompt_tokens = _add(usage.prompt_tokens, prompt)
    usage.output_tokens = _add(usage.output_tokens, completion)
    details = getattr(reported, "prompt_tokens_details", None)
    usage.cached_tokens = _add(usage.cached_tokens, getattr(details, "cached_tokens", None))
    details = getattr(reported, "completion_tokens_details", None)
    reasoning = getattr(details, "reasoning_tokens", None)
    usage.reasoning_tokens = _add(usage.reasoning_tokens, reasoning)
    if isinstance(completion, int):
        candidates = completion - reasoning if isinstance(reasoning, int) else completion
        usage.candidates_tokens = _add(usage.candidates_tokens, candidates)
    if usage.input_tokens is not None or usage.output_tokens is not None:
        usage.total_tokens = (usage.input_tokens or 0) + (usage.output_tokens or 0)


def _history_messages(history: Sequence[Invocation]) -> list[dict[str, Any]]:
    messages: list[dict[str, Any]] = []
    for inv in history:
        messages.append({"role": "user", "content": inv.user_content.content})
        if inv.tools:
            calls = [
                {"id": t.id, "type": "function", "function": {"name": t.name, "arguments": _json_text(t.arguments)}}
                for t in inv.tools
            ]
            messages.append({"role": "assistant", "content": None, "tool_calls": calls})
            messages.extend({"role": "tool", "tool_call_id": t.id, "content": _json_text(t.result)} for t in inv.tools)
        if inv.final_response is not None:
            messages.append({"role": "assistant", "content": inv.final_response.content})
    return messages


class OpenAIAgent:
    """A real agent loop over an OpenAI-compatible chat-completions API.

    Each turn sends the system prompt, the request's context messages, the session history and the user message;
    while the model answers with tool calls, the matching Python functions are executed and their results sent
    back; the first answer without tool calls is the final response. Every call is recorded with its id, name,
    arguments and result.

    - ``model``: model name; ``base_url``: endpoint (default: ``OPENAI_BASE_URL`` or OpenAI's);
    - ``api_key_env``: environment variable holding the API key (read when the agent first runs);
    - ``tools``: Python functions; their JSON schemas come from type hints, defaults and docstrings;
    - ``max_steps``: maximum model calls per turn before the turn fails;
    - ``model_settings``: extra chat-completions parameters (``temperature``, ``max_tokens``, ...);
    - ``client``: an ``openai.AsyncOpenAI`` to use instead of building one.

    A tool that raises does not end the turn: the model receives ``{"error": "..."}`` as the tool result. Eval-set
    tool mocks (``toolMock``) replace tool executions; a mocked tool without a matching rule fails the turn.

    Each turn's output carries its token usage (summed over the turn's model calls, from ``response.usage``) and
    the run engine records the time spent in model requests and in tools.

    Its texts are :class:`~agentgauge.agents.TextFields` (what ``agentgauge optimize`` rewrites): ``system_prompt``
    and each tool's description as ``tool:<name>``.
    """

    agentgauge_native = True
    """Marks agents built by this package, which :func:`as_agent` returns unchanged."""

    def __init__(
        self,
        model: str,
        *,
        base_url: str | None = None,
        api_key_env: str = "OPENAI_API_KEY",
        system_prompt: str = "",
        tools: Sequence[Callable[..., Any]] = (),
        max_steps: int = 10,
        model_settings: dict[str, Any] | None = None,
        client: AsyncOpenAI | None = None,
    ) -> None:
        if max_steps < 1:
            raise ValueError(f"max_steps must be at least 1, got {max_steps}")
        self.model = model
        self.base_url = base_url
        self.api_key_env = api_key_env
        self.system_prompt = system_prompt
        self.max_steps = max_steps
        self.model_settings = dict(model_settings or {})
        self.tools = {t.name: t for t in map(FunctionTool.from_function, tools)}
        self._client = client
        self._clients: dict[int, AsyncOpenAI] = {}

    def __repr__(self) -> str:
        return f"OpenAIAgent(model={self.model!r}, tools={sorted(self.tools)})"

    def text_fields(self) -> dict[str, str]:
        """The system prompt (``system_prompt``) and the tools' descriptions (``tool:<name>``)."""
        return {"system_prompt": self.system_prompt, **{f"tool:{n}": t.description for n, t in self.tools.items()}}

    def with_text_fields(self, texts: Mapping[str, str]) -> OpenAIAgent:
        """A copy with the system prompt and tool descriptions of ``texts`` (names as :meth:`text_fields`); an
        unknown name raises ``KeyError``."""
        known = self.text_fields()
        unknown = [name for name in texts if name not in known]
        if unknown:
            raise KeyError(f"OpenAIAgent has no text field {unknown[0]!r}; it has {', '.join(known)}")
        clone = copy.copy(self)
        clone.system_prompt = texts.get("system_prompt", self.system_prompt)
        clone.tools = {
            name: dataclasses.replace(tool, description=texts.get(f"tool:{name}", tool.description))
            for name, tool in self.tools.items()
        }
        clone.model_settings = dict(self.model_settings)
        # The copies share the clients (one per event loop): a client holds no text, and making one costs tens of
        # milliseconds (its TLS context), a cost every candidate of an optimisation would pay again.
        clone._clients = self._clients
        return clone

    def _get_client(self) -> AsyncOpenAI:
        if self._client is not None:
            return self._client
        # One client per event loop: an httpx pool cannot outlive the loop it was created on.
        loop_id = id(asyncio.get_running_loop())
        client = self._clients.get(loop_id)
        if client is None:
            from openai import AsyncOpenAI

            api_key = os.environ.get(self.api_key_env)
            if not api_key:
                raise AgentError(f"environment variable {self.api_key_env} is not set (the API key for {self.model})")
            register_secret(api_key)  # masked in every result, report and message from now on
            client = AsyncOpenAI(api_key=api_key, base_url=self.base_url, max_retries=2)
            self._clients.clear()  # in place: the copies of with_text_fields share this table
            self._clients[loop_id] = client
        return client

    def _initial_messages(self, request: AgentRequest) -> list[dict[str, Any]]:
        messages: list[dict[str, Any]] = []
        if self.system_prompt:
            messages.append({"role": "system", "content": self.system_prompt})
        messages.extend({"role": m.role, "content": m.content} for m in request.context_messages)
        messages.extend(_history_messages(request.history))
        messages.append({"role": "user", "content": request.user_content.content})
        return messages

    async def _execute(self, name: str, raw_arguments: str) -> tuple[Any, Any]:
        try:
            arguments = json.loads(raw_arguments) if raw_arguments.strip() else {}
        except ValueError as exc:
            return raw_arguments, {"error": f"arguments are not valid JSON: {exc}"}
        tool = self.tools.get(name)
        if tool is None:
            return arguments, {"error": f"unknown tool {name!r}; available: {sorted(self.tools)}"}
        if not isinstance(arguments, dict):
            return arguments, {"error": "arguments must be a JSON object"}
        from ..mocks import ToolMockError

        try:
            return arguments, await tool.call(arguments)
        except ToolMockError:
            raise  # a mocked tool without a matching rule fails the turn
        except Exception as exc:  # the model sees the failure and may recover
            return arguments, {"error": describe_exception(exc)}

    async def run(self, request: AgentRequest) -> AgentOutput:
        """Run the model/tool loop for one user turn."""
        client = self._get_client()
        messages = self._initial_messages(request)
        schemas = [tool.openai_schema() for tool in self.tools.values()]
        extra: dict[str, Any] = {"tools": schemas} if schemas else {}
        recorded: list[Tool] = []
        intermediate: list[Message] = []
        usage = TokenUsage(model_calls=0, model=self.model)
        measures(models=True, tools=True)
        for _ in range(self.max_steps):
            with time_model():
                response = await client.chat.completions.create(
                    model=self.model, messages=cast(Any, messages), **extra, **self.model_settings
                )
            usage.model_calls = (usage.model_calls or 0) + 1
            add_usage(usage, getattr(response, "usage", None))
            if not response.choices:
                raise AgentError(f"model {self.model} returned no choices")
            reply = response.choices[0].message
            calls = [c for c in (reply.tool_calls or []) if getattr(c, "function", None) is not None]
            if not calls:
                return AgentOutput(
                    final_response=Message(role="assistant", content=reply.content or ""),
                    tools=recorded,
                    intermediate_responses=intermediate,
                    usage=usage,
                )
            if reply.content:
                intermediate.append(Message(role="assistant", content=reply.content))
            messages.append(
                {
                    "role": "assistant",
                    "content": reply.content,
                    "tool_calls": [
                        {
                            "id": c.id,
                            "type": "function",
                            "function": {"name": c.function.name, "arguments": c.function.arguments},
                        }
                        for c in calls
                    ],
                }
            )
            for call in calls:
                fn = call.function
                arguments, result = await self._execute(fn.name, fn.arguments or "")
                recorded.append(Tool(id=call.id, name=fn.name, arguments=arguments, result=result))
                messages.append({"role": "tool", "tool_call_id": call.id, "content": _json_text(result)})
        raise AgentError(f"no final answer from {self.model} after {self.max_steps} model calls")
