"""Record a real Google ADK trace (no API key): an ADK agent with a scripted model answers two weather questions,
and the spans ADK emits are written as OTLP JSONL (``.jsonl``) or OTLP JSON (``.json``).

    python examples/traces/record_adk_trace.py examples/traces/adk_weather.otlp.jsonl

ADK 2.x telemetry (the default schema) records message content on spans only when
OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=SPAN_ONLY is set, which this script does before importing ADK.
``--no-content`` leaves it unset, to see what agentgauge says about such a trace. ``--logs LOGS.jsonl`` records
with EVENT_ONLY instead: the spans carry no content and the messages go to OpenTelemetry log records, written to
LOGS.jsonl (agentgauge merges them into their spans when both files are read, e.g. from one directory).
``--per-turn`` leaves out the parent span, so each turn is its own trace (as ADK writes them by default; group them
with ``--by-session``). ``--legacy`` records ADK's legacy schema 1 (``call_llm`` spans with
``gcp.vertex.agent.llm_request``), as ADK 1.x does.
Requires google-adk (``pip install 'agentgauge[adk]'``).
"""

from __future__ import annotations

import asyncio
import os
import sys
from collections.abc import AsyncGenerator
from contextlib import nullcontext
from typing import Any


def _configure(argv: list[str]) -> None:
    if "--logs" in argv:
        os.environ["OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT"] = "EVENT_ONLY"
    elif "--no-content" not in argv:
        os.environ["OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT"] = "SPAN_ONLY"
    if "--legacy" in argv:
        os.environ["ADK_TELEMETRY_SCHEMA_VERSION_OPT_IN"] = "1"


def get_weather(city: str) -> dict[str, Any]:
    """Return the current weather for a city."""
    return {"city": city, "forecast": "sunny", "temperature_c": 21}


def _scripted_model() -> Any:
    from google.adk.models.base_llm import BaseLlm
    from google.adk.models.llm_request import LlmRequest
    from google.adk.models.llm_response import LlmResponse
    from google.genai import types

    class ScriptedModel(BaseLlm):
        """Calls get_weather for the city in the latest user message, then answers from the tool result."""

        model: str = "scripted-weather-model"

        async def generate_content_async(
            self, llm_request: LlmRequest, stream: bool = False
        ) -> AsyncGenerator[LlmResponse, None]:
            last = llm_request.contents[-1]
            response = next((p.function_response for p in last.parts or [] if p.function_response), None)
            if response is not None:
                result = response.response or {}
                text = f"It is {result.get('forecast')} in {result.get('city')}, {result.get('temperature_c')} °C."
                yield LlmResponse(content=types.Content(role="model", parts=[types.Part(text=text)]))
                return
            question = " ".join(p.text or "" for p in last.parts or [])
            city = question.rstrip("?").split(" in ")[-1].strip()
            call = types.FunctionCall(name="get_weather", args={"city": city}, id=f"call_{city.lower()}")
            yield LlmResponse(content=types.Content(role="model", parts=[types.Part(function_call=call)]))

    return ScriptedModel()


async def _record(questions: list[str], per_turn: bool = False) -> tuple[list[Any], list[Any]]:
    from google.adk.agents import Agent
    from google.adk.runners import Runner
    from google.adk.sessions import InMemorySessionService
    from google.genai import types
    from opentelemetry import _logs, trace
    from opentelemetry.sdk._logs import LoggerProvider
    from opentelemetry.sdk._logs.export import InMemoryLogRecordExporter, SimpleLogRecordProcessor
    from opentelemetry.sdk.resources import Resource
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    exporter = InMemorySpanExporter()
    provider = TracerProvider(resource=Resource.create({"service.name": "weather_app"}))
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    trace.set_tracer_provider(provider)
    log_exporter = InMemoryLogRecordExporter()
    log_provider = LoggerProvider(resource=provider.resource)
    log_provider.add_log_record_processor(SimpleLogRecordProcessor(log_exporter))
    _logs.set_logger_provider(log_provider)

    agent = Agent(
        name="weather_agent", model=_scripted_model(), instruction="Answer weather questions.", tools=[get_weather]
    )
    sessions = InMemorySessionService()
    runner = Runner(app_name="weather_app", agent=agent, session_service=sessions)
    session = await sessions.create_session(app_name="weather_app", user_id="demo_user")
    tracer = trace.get_tracer("weather_app")
    # One parent span per conversation, so both turns land in one trace (one trace = one eval case).
    parent_span = nullcontext() if per_turn else tracer.start_as_current_span("conversation")
    with parent_span as parent:
        if parent is not None:
            parent.set_attribute("agentgauge.eval_id", "weather_two_cities")
        for question in questions:
            message = types.Content(role="user", parts=[types.Part(text=question)])
            async for _ in runner.run_async(user_id="demo_user", session_id=session.id, new_message=message):
                pass
    provider.force_flush()
    log_provider.force_flush()
    return list(exporter.get_finished_spans()), list(log_exporter.get_finished_logs())


def main(argv: list[str]) -> None:
    """Record the conversation and write the file named on the command line (``.jsonl``: OTLP JSONL, else OTLP
    JSON)."""
    _configure(argv)
    logs_path = argv[argv.index("--logs") + 1] if "--logs" in argv and argv.index("--logs") + 1 < len(argv) else None
    paths = [a for a in argv if not a.startswith("--") and a != logs_path]
    if len(paths) != 1 or ("--logs" in argv and logs_path is None):
        sys.exit(
            "usage: record_adk_trace.py OUT.otlp.jsonl|OUT.otlp.json [--no-content] [--legacy] [--logs LOGS.jsonl]"
        )
    from _otlp_json import logs_to_otlp_json, write_otlp  # beside this script

    questions = ["What is the weather in Paris?", "And in Tokyo?"]
    spans, logs = asyncio.run(_record(questions, per_turn="--per-turn" in argv))
    write_otlp(spans, paths[0])
    print(f"wrote {paths[0]} ({len(spans)} spans)")
    if logs_path is not None:
        import json

        with open(logs_path, "w", encoding="utf-8") as handle:
            handle.write(json.dumps(logs_to_otlp_json(logs), ensure_ascii=False) + "\n")
        print(f"wrote {logs_path} ({len(logs)} log records)")


if __name__ == "__main__":
    main(sys.argv[1:])
