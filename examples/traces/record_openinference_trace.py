"""Record a real OpenInference-instrumented agent trace (no API key): the tool-calling loop of
``record_openai_trace.py`` on the ``openai`` client, instrumented by ``openinference-instrumentation-openai``
(Arize Phoenix's instrumentation) instead of the OpenTelemetry GenAI one, against the same scripted in-process
chat-completions endpoint; the spans are written as OTLP JSONL.

    pip install openinference-instrumentation-openai
    python examples/traces/record_openinference_trace.py weather.openinference.otlp.jsonl
    agentgauge eval --traces weather.openinference.otlp.jsonl --eval-set examples/traces/weather.evalset.json

OpenInference records message content unless hidden (``OPENINFERENCE_HIDE_INPUTS`` / ``_OUTPUTS`` /
``_INPUT_MESSAGES`` / ``_OUTPUT_MESSAGES``): every LLM span carries ``llm.input_messages.N.message.*`` and
``llm.output_messages.N.message.*`` attributes and ``llm.token_count.*`` usage.
"""

from __future__ import annotations

import json
import sys
from typing import Any

from record_openai_trace import TOOLS, _scripted_endpoint, get_weather, write_recording  # beside this script


def record(questions: list[str]) -> list[Any]:
    """The finished spans of one conversation: a session span around the model calls and the app's tool runs."""
    import httpx
    import openai
    from openinference.instrumentation.openai import OpenAIInstrumentor
    from opentelemetry.sdk.resources import Resource
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    exporter = InMemorySpanExporter()
    provider = TracerProvider(resource=Resource.create({"service.name": "weather_assistant"}))
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    instrumentor = OpenAIInstrumentor()
    instrumentor.instrument(tracer_provider=provider)
    try:
        client = openai.OpenAI(
            api_key="not-needed",
            base_url="http://scripted.local/v1",
            http_client=httpx.Client(transport=httpx.MockTransport(_scripted_endpoint)),
        )
        history: list[dict[str, Any]] = [{"role": "system", "content": "Answer weather questions."}]
        tracer = provider.get_tracer("weather_assistant")
        # The app's own spans: a CHAIN span groups the conversation in one trace, an AGENT span per user turn.
        session = {"openinference.span.kind": "CHAIN", "session.id": "weather-session-1"}
        with tracer.start_as_current_span("conversation", attributes=session):
            for question in questions:
                history.append({"role": "user", "content": question})
                turn = {"openinference.span.kind": "AGENT", "agent.name": "weather_assistant", "input.value": question}
                with tracer.start_as_current_span("weather_assistant", attributes=turn):
                    _answer(client, history)
    finally:
        instrumentor.uninstrument()
    provider.force_flush()
    return list(exporter.get_finished_spans())


def _answer(client: Any, history: list[dict[str, Any]]) -> None:
    """Call the model until it answers, running the tools it asks for (the history grows in place)."""
    while True:
        reply = client.chat.completions.create(model="gpt-4o-mini", messages=history, tools=TOOLS)
        message = reply.choices[0].message
        history.append(message.model_dump(exclude_none=True))
        if not message.tool_calls:
            return
        for call in message.tool_calls:
            result = get_weather(**json.loads(call.function.arguments))
            history.append({"role": "tool", "tool_call_id": call.id, "content": json.dumps(result)})


def main(argv: list[str]) -> None:
    """Record the conversation and write the file named on the command line."""
    write_recording(record, argv, "record_openinference_trace.py")


if __name__ == "__main__":
    main(sys.argv[1:])
