"""A small agent loop instrumented with OpenTelemetry (GenAI semantic conventions) that exports its sessions to an
OTLP/HTTP endpoint: ``python examples/online/weather_loop.py http://127.0.0.1:8000 --sessions 20``.

Each session is one conversation (``gen_ai.conversation.id``) of one turn: a model call asking for the
``get_weather`` tool, the tool, and the model's answer. Every fifth session calls the tool three times (a loop the
``trajectory_step_count`` rule of ``rules.yaml`` catches). The model is scripted: no network but the endpoint.
"""

from __future__ import annotations

import argparse
import json

from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor

CITIES = ["Paris", "Oslo", "Lima", "Kyoto", "Accra"]


def _messages(role: str, parts: list[dict[str, object]]) -> str:
    return json.dumps([{"role": role, "parts": parts}])


def run(endpoint: str, sessions: int) -> None:
    """Run ``sessions`` conversations, exporting their spans to ``endpoint``."""
    provider = TracerProvider(resource=Resource.create({"service.name": "weather_loop"}))
    provider.add_span_processor(BatchSpanProcessor(OTLPSpanExporter(endpoint=f"{endpoint}/v1/traces")))
    tracer = provider.get_tracer("weather_loop")
    for number in range(sessions):
        city = CITIES[number % len(CITIES)]
        question = _messages("user", [{"type": "text", "content": f"What is the weather in {city}?"}])
        with tracer.start_as_current_span("invoke_agent weather") as turn:
            turn.set_attribute("gen_ai.operation.name", "invoke_agent")
            turn.set_attribute("gen_ai.agent.name", "weather")
            turn.set_attribute("gen_ai.conversation.id", f"weather-{number:04d}")
            for call in range(3 if number % 5 == 4 else 1):
                with tracer.start_as_current_span("chat scripted-model") as chat:
                    chat.set_attribute("gen_ai.operation.name", "chat")
                    chat.set_attribute("gen_ai.input.messages", question)
                    arguments = {"city": city}
                    tool = {"type": "tool_call", "id": f"call-{call}", "name": "get_weather", "arguments": arguments}
                    chat.set_attribute("gen_ai.output.messages", _messages("assistant", [tool]))
                    chat.set_attribute("gen_ai.usage.input_tokens", 42)
                    chat.set_attribute("gen_ai.usage.output_tokens", 7)
                with tracer.start_as_current_span("execute_tool get_weather") as span:
                    span.set_attribute("gen_ai.operation.name", "execute_tool")
                    span.set_attribute("gen_ai.tool.name", "get_weather")
                    span.set_attribute("gen_ai.tool.call.id", f"call-{call}")
                    span.set_attribute("gen_ai.tool.call.result", json.dumps({"forecast": "sunny"}))
            with tracer.start_as_current_span("chat scripted-model") as chat:
                chat.set_attribute("gen_ai.operation.name", "chat")
                chat.set_attribute("gen_ai.input.messages", question)
                answer = {"type": "text", "content": f"It is sunny in {city}."}
                chat.set_attribute("gen_ai.output.messages", _messages("assistant", [answer]))
                chat.set_attribute("gen_ai.usage.input_tokens", 60)
                chat.set_attribute("gen_ai.usage.output_tokens", 9)
    provider.shutdown()  # exports what is left


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("endpoint", help="the receiver's base URL, e.g. http://127.0.0.1:8000")
    parser.add_argument("--sessions", type=int, default=20)
    args = parser.parse_args()
    run(args.endpoint.rstrip("/"), args.sessions)
