"""Conversation extraction for each convention: ADK 1.x / 2.x, GenAI parts- and content-based, OpenLLMetry
flattened keys, event-carried messages; sub-agent folding; missing content."""

from __future__ import annotations

import contextlib
import json
from pathlib import Path
from typing import Any

import pytest
from _otlp_spans import otlp_export, otlp_span
from hypothesis import given, settings
from hypothesis import strategies as st

from agentgauge.errors import InputError
from agentgauge.model import Invocation
from agentgauge.traces import (
    CAPTURE_HINT,
    TraceConversation,
    extract_conversation,
    load_traces,
    parse_traces,
    read_conversations,
)

DATA = Path(__file__).parent / "data"
AE = DATA / "agentevals"
HAND = DATA / "handmade"
RECORDED = DATA / "recorded"
EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "traces"
_KEYS = ["role", "content", "parts", "type", "text", "tool_calls", "function", "name", "arguments", "id", "message",
         "response", "contents", "function_call", "function_response", "args", "tool_call_id", "messages"]  # fmt: skip
_ATTRS = ["gen_ai.input.messages", "gen_ai.output.messages", "gcp.vertex.agent.llm_request",
          "gcp.vertex.agent.llm_response", "gen_ai.prompt.0.role", "gen_ai.prompt.0.content",
          "gen_ai.completion.0.tool_calls.0.arguments", "gen_ai.tool.call.arguments", "gen_ai.tool.call.result",
          "gen_ai.tool.name", "gcp.vertex.agent.tool_response"]  # fmt: skip


def _one(path: Path) -> TraceConversation:
    [conversation] = read_conversations(path).conversations
    return conversation


def _tools(invocation: Invocation) -> list[tuple[str, Any, Any]]:
    return [(t.name, t.arguments, t.result) for t in invocation.tools]


# What agentevals' converter extracts from its own samples (user text, tool names and arguments, final answer start).
AGENTEVALS_EXTRACTION = {
    "helm.json": ("list all Helm releases", [("helm_list_releases", {})], "There are two Helm releases installed"),
    "k8s.json": ("list all Helm releases", [], "To list all Helm releases, I would typically use"),
    "helm_2.json": ("get me all the Helm releases", [], "To help you effectively, could you please specify"),
    "helm_3.json": (
        "I need all the Helm releases right now!!",
        [("helm_list_releases", {"all_namespaces": "true", "output": "json"})],
        "Got it — I listed all releases across all namespaces.",
    ),
    "tempo_export_with_batches.json": (
        "list all helm releases\n",
        [("helm_list_releases", {})],
        "There are two Helm releases currently deployed:",
    ),
}


@pytest.mark.parametrize("name", sorted(AGENTEVALS_EXTRACTION))
def test_agentevals_samples_extract_like_agentevals(name: str) -> None:
    user, tools, answer = AGENTEVALS_EXTRACTION[name]
    conversation = _one(AE / name)
    [invocation] = conversation.invocations
    assert invocation.user_content.content == user
    assert [(t.name, t.arguments) for t in invocation.tools] == tools
    assert invocation.final_response is not None
    assert invocation.final_response.content.startswith(answer)
    assert conversation.warnings == []


def test_helm_tool_result_and_ids() -> None:
    conversation = _one(AE / "helm.json")
    [invocation] = conversation.invocations
    [tool] = invocation.tools
    assert tool.id == "call_P09kjRKHTTJA02oB9HIe4u5t"
    assert tool.result["isError"] is False and tool.result["content"][0]["type"] == "text"
    assert invocation.invocation_id == "e-a2daf27e-1b11-43b9-ac66-527df687a5fd"
    assert invocation.creation_timestamp == pytest.approx(1771237534.578946)
    assert conversation.session_id == "ctx-7ed9780f-3688-4fc0-b10b-2e4df2f83cf0"
    assert conversation.app_name == "helm_agent"


def test_adk1_subagents_are_folded_into_the_turn() -> None:
    conversation = _one(HAND / "adk1_subagents.jaeger.json")
    # agentevals makes every invoke_agent span a turn (3 here); one user message is one invocation.
    [invocation] = conversation.invocations
    assert invocation.user_content.content == "Book a flight to Rome for tomorrow"
    assert _tools(invocation) == [
        ("weather_expert", {"request": "Rome tomorrow"}, {"result": "Sunny"}),
        ("transfer_to_agent", {"agent_name": "booking_agent"}, None),
        ("book_flight", {"destination": "FCO", "date": "tomorrow"}, {"confirmation": "AZ123"}),
    ]  # the agent-as-tool's inner internal_forecast call belongs to weather_expert, not to the trajectory
    assert [m.content for m in invocation.intermediate_responses] == ["Let me check the weather there first."]
    assert invocation.final_response is not None
    assert invocation.final_response.content == "Booked flight AZ123 to Rome, departing 09:10."  # thought left out
    assert invocation.invocation_id == "e-travel-1"
    assert conversation.session_id == "session-travel-1"
    assert conversation.app_name == "travel_agent"
    assert conversation.warnings == []


def test_genai_parts_two_turns_and_eval_id_from_resource() -> None:
    conversation = _one(HAND / "genai_parts.otlp.json")
    assert conversation.eval_id == "fx_two_turns"
    assert [i.user_content.content for i in conversation.invocations] == ["Convert 100 USD to EUR", "And to JPY?"]
    assert [_tools(i) for i in conversation.invocations] == [
        [("convert", {"amount": 100, "from": "USD", "to": "EUR"}, {"amount": 92.5})],
        [("convert", {"amount": 100, "from": "USD", "to": "JPY"}, {"result": 15000})],
    ]
    assert [i.final_response.content for i in conversation.invocations if i.final_response] == [
        "100 USD is 92.50 EUR.",
        "100 USD is 15000 JPY.",
    ]


def test_genai_content_based_without_agent_or_tool_spans() -> None:
    [invocation] = _one(HAND / "genai_content.tempo.json").invocations
    assert invocation.user_content.content == "Where is order 42?"
    assert _tools(invocation) == [("get_order", {"order_id": 42}, {"status": "shipped"})]
    assert invocation.tools[0].id == "call_x"
    assert invocation.final_response is not None and invocation.final_response.content == "Order 42 has shipped."


def test_openllmetry_flattened_keys_and_event_messages() -> None:
    flat, events = read_conversations(HAND / "openllmetry_and_events.spans.jsonl").conversations
    [calc] = flat.invocations  # two chat calls with the same user message: one turn
    assert calc.user_content.content == "What is 6 times 7?"
    assert _tools(calc) == [("multiply", {"a": 6, "b": 7}, {"result": 42})]
    assert calc.final_response is not None and calc.final_response.content == "6 times 7 is 42."
    [hello] = events.invocations
    assert (hello.user_content.content, hello.final_response.content if hello.final_response else None) == (
        "Say hi",
        "Hi!",
    )


def test_real_adk2_trace_multi_turn_with_captured_content() -> None:
    conversation = _one(EXAMPLES / "adk_weather.otlp.jsonl")
    assert conversation.eval_id == "weather_two_cities"
    assert [i.user_content.content for i in conversation.invocations] == [
        "What is the weather in Paris?",
        "And in Tokyo?",
    ]
    assert _tools(conversation.invocations[1]) == [
        ("get_weather", {"city": "Tokyo"}, {"city": "Tokyo", "forecast": "sunny", "temperature_c": 21})
    ]
    assert conversation.invocations[1].final_response is not None
    assert conversation.invocations[1].final_response.content == "It is sunny in Tokyo, 21 °C."


def test_real_adk_legacy_schema_trace() -> None:
    conversation = _one(RECORDED / "adk_legacy.otlp.json")
    assert [i.user_content.content for i in conversation.invocations] == [
        "What is the weather in Paris?",
        "And in Tokyo?",
    ]
    assert [t.name for i in conversation.invocations for t in i.tools] == ["get_weather", "get_weather"]


def test_real_openai_instrumented_trace() -> None:
    conversation = _one(EXAMPLES / "openai_weather.otlp.jsonl")
    assert [i.user_content.content for i in conversation.invocations] == [
        "What is the weather in Oslo?",
        "And in Lisbon?",
    ]
    assert _tools(conversation.invocations[0]) == [
        ("get_weather", {"city": "Oslo"}, {"city": "Oslo", "forecast": "rainy", "temperature_c": 12})
    ]
    assert conversation.app_name == "weather_assistant"


def test_adk2_without_captured_content_says_how_to_enable_it() -> None:
    with pytest.raises(InputError) as info:
        read_conversations(RECORDED / "adk_no_content.otlp.json")
    message = str(info.value)
    assert message.startswith(f"{RECORDED / 'adk_no_content.otlp.json'}: trace ")
    assert ", turn 1: " in message
    assert "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=SPAN_ONLY" in message
    assert f"{CAPTURE_HINT} (Google ADK 2.x (default schema)): export " in message


def test_genai_spans_without_content_get_the_advice_of_their_producer(tmp_path: Path) -> None:
    agent = otlp_span("01" * 8, "invoke_agent a", start=1, **{"gen_ai.operation.name": "invoke_agent"})
    chat = otlp_span("02" * 8, "chat m", "01" * 8, start=2, **{"gen_ai.operation.name": "chat"})
    path = tmp_path / "plain.otlp.json"
    path.write_text(otlp_export(agent, chat))
    with pytest.raises(InputError) as info:
        read_conversations(path)
    message = str(info.value)
    assert f"{CAPTURE_HINT} (GenAI semantic conventions): turn on your instrumentation's content capture" in message
    assert "ADK" not in message


def test_http_only_traces_are_skipped_but_listed(tmp_path: Path) -> None:
    http = otlp_span("0000000000000001", "GET /health")
    http["traceId"] = "cd" * 16
    chat = otlp_span(
        "0000000000000002",
        "chat m",
        **{
            "gen_ai.operation.name": "chat",
            "gen_ai.input.messages": json.dumps([{"role": "user", "content": "hi"}]),
            "gen_ai.output.messages": json.dumps([{"role": "assistant", "content": "hello"}]),
        },
    )
    path = tmp_path / "t.json"
    path.write_text(otlp_export(http, chat))
    found = read_conversations(path)
    assert [c.trace_id for c in found.conversations] == ["ab" * 16]
    assert found.skipped == [f"{path}: trace {'cd' * 16}: no agent, LLM or tool spans"]
    path.write_text(otlp_export(http))
    with pytest.raises(InputError, match="no agent conversation found in 1 trace"):
        read_conversations(path)


def test_tool_span_without_llm_content_keeps_name_and_warns_about_user_text() -> None:
    [trace] = parse_traces(
        otlp_export(
            otlp_span("0000000000000001", "invoke_agent a", **{"gen_ai.operation.name": "invoke_agent"}),
            otlp_span(
                "0000000000000002",
                "execute_tool lookup",
                "0000000000000001",
                **{
                    "gen_ai.tool.name": "lookup",
                    "gen_ai.tool.call.arguments": '{"q": 1}',
                    "gen_ai.tool.call.result": "[1]",
                },
            ),
        )
    )
    conversation = extract_conversation(trace)
    [invocation] = conversation.invocations
    assert _tools(invocation) == [("lookup", {"q": 1}, {"result": [1]})]
    assert conversation.warnings == [f"trace {'ab' * 16}, turn 1: no user message recorded"]


def test_user_text_uses_latest_user_message_and_ignores_tool_responses_in_user_role() -> None:
    request = {
        "contents": [
            {"role": "user", "parts": [{"text": "first question"}]},
            {"role": "model", "parts": [{"text": "first answer"}]},
            {"role": "user", "parts": [{"text": "second"}, {"text": "question"}]},
            {"role": "user", "parts": [{"function_response": {"id": "x", "name": "t", "response": {}}}]},
        ]
    }
    response = {"content": {"role": "model", "parts": [{"text": "ok"}]}}
    [trace] = parse_traces(
        otlp_export(
            otlp_span(
                "0000000000000001",
                "call_llm",
                **{
                    "gcp.vertex.agent.llm_request": json.dumps(request),
                    "gcp.vertex.agent.llm_response": json.dumps(response),
                },
            )
        )
    )
    [invocation] = extract_conversation(trace).invocations
    assert invocation.user_content.content == "second\nquestion"


def test_load_traces_then_extract_each() -> None:
    conversations = [extract_conversation(t) for t in load_traces(AE / "helm.json")]
    assert conversations[0].first_user_text == "list all Helm releases"


def test_trpc_otel_keys_win_and_choice_events_are_read() -> None:
    otel_in = json.dumps([{"role": "user", "parts": [{"type": "text", "content": "from otel key"}]}])
    [trace] = parse_traces(
        otlp_export(
            otlp_span(
                "0000000000000001",
                "chat m",
                **{
                    "gen_ai.operation.name": "chat",
                    "gen_ai.input.messages": json.dumps([{"role": "user", "content": "framework shape"}]),
                    "gen_ai.input.messages.otel": otel_in,
                },
            )
            | {
                "events": [
                    {
                        "name": "gen_ai.choice",
                        "attributes": [
                            {"key": "message", "value": {"stringValue": json.dumps({"content": "answer from event"})}}
                        ],
                    }
                ]
            }
        )
    )
    [invocation] = extract_conversation(trace).invocations
    assert invocation.user_content.content == "from otel key"
    assert invocation.final_response is not None and invocation.final_response.content == "answer from event"


_json = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.sampled_from(_KEYS), inner, max_size=4),
    max_leaves=12,
)


@settings(max_examples=150, deadline=None)
@given(
    st.dictionaries(st.sampled_from(_ATTRS), _json, max_size=4),
    st.sampled_from(["call_llm", "chat x", "execute_tool t"]),
)
def test_garbage_attributes_never_crash(attrs: dict[str, Any], name: str) -> None:
    values = {k: (json.dumps(v) if isinstance(v, (list, dict)) else v) for k, v in attrs.items()}
    span = {
        "traceId": "ab" * 16,
        "spanId": "0000000000000001",
        "name": name,
        "attributes": [
            {"key": k, "value": {"stringValue": v} if isinstance(v, str) else {"intValue": 1}}
            for k, v in values.items()
        ],
    }
    [trace] = parse_traces(otlp_export(span))
    with contextlib.suppress(InputError):
        extract_conversation(trace)


def test_adk_event_only_content_comes_from_log_records_read_with_the_spans() -> None:
    folder = RECORDED / "adk_event_only"
    conversation = _one(folder)  # spans.otlp.jsonl + logs.otlp.jsonl
    assert [i.user_content.content for i in conversation.invocations] == [
        "What is the weather in Paris?",
        "And in Tokyo?",
    ]
    assert _tools(conversation.invocations[0]) == [
        ("get_weather", {"city": "Paris"}, {"city": "Paris", "forecast": "sunny", "temperature_c": 21})
    ]
    assert conversation.invocations[1].final_response is not None
    assert conversation.invocations[1].final_response.content == "It is sunny in Tokyo, 21 °C."
    with pytest.raises(InputError, match="with EVENT_ONLY the content is in OpenTelemetry log records"):
        read_conversations(folder / "spans.otlp.jsonl")
    with pytest.raises(InputError, match="only log records found; give the trace file"):
        read_conversations(folder / "logs.otlp.jsonl")


def test_spans_and_log_records_in_one_jsonl_file_are_merged(tmp_path: Path) -> None:
    folder = RECORDED / "adk_event_only"
    both = tmp_path / "both.jsonl"
    both.write_text((folder / "logs.otlp.jsonl").read_text() + (folder / "spans.otlp.jsonl").read_text())
    assert len(_one(both).invocations) == 2
