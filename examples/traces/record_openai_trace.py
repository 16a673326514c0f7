"""Record a real OpenAI-instrumented agent trace (no API key): a small tool-calling loop on the ``openai`` client,
instrumented by ``opentelemetry-instrumentation-openai-v2``, talks to a scripted in-process chat-completions
endpoint; the spans are written as OTLP JSONL (one export request per line, like the Collector's file exporter).

    pip install opentelemetry-instrumentation-openai-v2
    python examples/traces/record_openai_trace.py examples/traces/openai_weather.otlp.jsonl

Message content is captured because OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=SPAN_ONLY and
OTEL_SEMCONV_STABILITY_OPT_IN=gen_ai_latest_experimental are set before the instrumentor loads.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable
from typing import Any


def get_weather(city: str) -> dict[str, Any]:
    """Return the current weather for a city."""
    return {"city": city, "forecast": "rainy", "temperature_c": 12}


TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "get_weather",
            "description": "Return the current weather for a city.",
            "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
        },
    }
]


def _scripted_endpoint(request: Any) -> Any:
    """A chat-completions endpoint: asks for get_weather, then answers from the tool result."""
    import httpx

    body = json.loads(request.content)
    last = body["messages"][-1]
    if last["role"] == "tool":
        result = json.loads(last["content"])
        message: dict[str, Any] = {
            "role": "assistant",
            "content": f"It is {result['forecast']} in {result['city']}, {result['temperature_c']} °C.",
        }
        finish = "stop"
    else:
        city = last["content"].rstrip("?").split(" in ")[-1].strip()
        message = {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": f"call_{city.lower()}",
                    "type": "function",
                    "function": {"name": "get_weather", "arguments": json.dumps({"city": city})},
                }
            ],
        }
        finish = "tool_calls"
    return httpx.Response(
        200,
        json={
            "id": "chatcmpl-scripted",
            "object": "chat.completion",
            "created": 0,
            "model": body["model"],
            "choices": [{"index": 0, "message": message, "finish_reason": finish}],
            "usage": {"prompt_tokens": 20, "completion_tokens": 10, "total_tokens": 30},
        },
    )


def _record(questions: list[str]) -> list[Any]:
    import httpx
    import openai
    from opentelemetry import trace
    from opentelemetry.instrumentation.openai_v2 import OpenAIInstrumentor
    from opentelemetry.sdk.resources import Resource
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    exporter = InMemorySpanExporter()
    provider = TracerProvider(resource=Resource.create({"service.name": "weather_assistant"}))
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    trace.set_tracer_provider(provider)
    OpenAIInstrumentor().instrument(tracer_provider=provider)

    client = openai.OpenAI(
        api_key="not-needed",
        base_url="http://scripted.local/v1",
        http_client=httpx.Client(transport=httpx.MockTransport(_scripted_endpoint)),
    )
    history: list[dict[str, Any]] = [{"role": "system", "content": "Answer weather questions."}]
    tracer = trace.get_tracer("weather_assistant")
    # The app's own request span: it groups the model calls of the conversation into one trace.
    with tracer.start_as_current_span("handle_conversation"):
        for question in questions:
            history.append({"role": "user", "content": question})
            while True:
                reply = client.chat.completions.create(model="gpt-4o-mini", messages=history, tools=TOOLS)  # type: ignore[arg-type]
                message = reply.choices[0].message
                history.append(message.model_dump(exclude_none=True))
                if not message.tool_calls:
                    break
                for call in message.tool_calls:
                    result = get_weather(**json.loads(call.function.arguments))
                    history.append({"role": "tool", "tool_call_id": call.id, "content": json.dumps(result)})
    provider.force_flush()
    return list(exporter.get_finished_spans())


QUESTIONS = ["What is the weather in Oslo?", "And in Lisbon?"]
"""The user turns of the recorded conversation (the weather eval set's ``weather_oslo_lisbon``)."""


def write_recording(record: Callable[[list[str]], list[Any]], argv: list[str], script: str) -> None:
    """Record the conversation with ``record`` and write the file named on the command line (``.jsonl``: OTLP
    JSONL, else OTLP JSON)."""
    if len(argv) != 1:
        sys.exit(f"usage: {script} OUT.otlp.jsonl|OUT.otlp.json")
    from _otlp_json import write_otlp  # beside this script

    spans = record(QUESTIONS)
    write_otlp(spans, argv[0])
    print(f"wrote {argv[0]} ({len(spans)} spans)")


def main(argv: list[str]) -> None:
    """Record with content capture on (the settings must be in place before the instrumentor loads)."""
    os.environ.setdefault("OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT", "SPAN_ONLY")
    os.environ.setdefault("OTEL_SEMCONV_STABILITY_OPT_IN", "gen_ai_latest_experimental")
    write_recording(_record, argv, "record_openai_trace.py")


if __name__ == "__main__":
    main(sys.argv[1:])
