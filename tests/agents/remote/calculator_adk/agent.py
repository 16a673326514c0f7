"""``root_agent``: an ADK ``LlmAgent`` with the calculator tool and a scripted model.

The model reads the conversation as ADK hands it over: when the last content is the calculator's answer it replies
``calc result: <value>`` (or ``calc error: ...``); otherwise it parses the latest user message with the calculator
example's own parser (``that`` is the previous result found in the session's function responses) and calls the
tool, or answers ``calc error: ...`` for anything that is not a calculation. Every response reports token usage.
"""

from __future__ import annotations

import importlib.util
from collections.abc import AsyncGenerator
from pathlib import Path
from typing import Any

from google.adk.agents import LlmAgent
from google.adk.models.base_llm import BaseLlm
from google.adk.models.llm_request import LlmRequest
from google.adk.models.llm_response import LlmResponse
from google.genai import types

_EXAMPLE = Path(__file__).resolve().parents[4] / "examples" / "calculator" / "agent.py"
_spec = importlib.util.spec_from_file_location("_calculator_example_for_adk", _EXAMPLE)
assert _spec is not None and _spec.loader is not None
_calculator = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_calculator)

NOT_A_CALCULATION = "calc error: I can add, subtract, multiply or divide two numbers."


def calculator(operation: str, a: float, b: float) -> dict[str, Any]:
    """Apply ``operation`` (add, sub, mul, div) to ``a`` and ``b``."""
    return _calculator.calculator(operation, a, b)  # type: ignore[no-any-return]


def _responses(request: LlmRequest) -> list[dict[str, Any]]:
    return [
        dict(part.function_response.response or {})
        for content in request.contents
        for part in content.parts or []
        if part.function_response is not None
    ]


def _last_user_text(request: LlmRequest) -> str:
    for content in reversed(request.contents):
        if content.role == "user":
            texts = [part.text for part in content.parts or [] if part.text]
            if texts:
                return "".join(texts)
    return ""


def _reply(request: LlmRequest) -> types.Part:
    last = request.contents[-1] if request.contents else None
    if last is not None and any(part.function_response for part in last.parts or []):
        result = _responses(request)[-1]
        text = f"calc error: {result['error']}" if "error" in result else f"calc result: {result['result']}"
        return types.Part(text=text)
    previous = next((r["result"] for r in reversed(_responses(request)) if "result" in r), None)
    parsed = _calculator.parse(_last_user_text(request), previous)
    if parsed is None:
        return types.Part(text=NOT_A_CALCULATION)
    operation, a, b = parsed
    turn = sum(1 for content in request.contents if content.role == "user" and any(p.text for p in content.parts or []))
    call = types.FunctionCall(id=f"calc_{turn}", name="calculator", args={"operation": operation, "a": a, "b": b})
    return types.Part(function_call=call)


class ScriptedCalculatorLlm(BaseLlm):  # type: ignore[misc]
    """A model that calls the calculator tool for a calculation, then states the tool's result."""

    model: str = "scripted-calculator"

    async def generate_content_async(
        self, llm_request: LlmRequest, stream: bool = False
    ) -> AsyncGenerator[LlmResponse, None]:
        usage = types.GenerateContentResponseUsageMetadata(
            prompt_token_count=50, candidates_token_count=5, total_token_count=55
        )
        yield LlmResponse(
            content=types.Content(role="model", parts=[_reply(llm_request)]),
            usage_metadata=usage,
            model_version="scripted-calculator",
        )


root_agent = LlmAgent(
    name="calculator",
    model=ScriptedCalculatorLlm(),
    instruction="Compute with the calculator tool.",
    description="A calculator: adds, subtracts, multiplies and divides two numbers with its calculator tool.",
    tools=[calculator],
)
