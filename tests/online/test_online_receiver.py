"""``serve --otlp --online rules.yaml`` with real OpenTelemetry SDK exporters: the seeded sample, the judge budget,
a session that cannot be scored, the results per period, OTLP evaluation events and the webhook."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import httpx
from _online import TOOL_METRICS, Collector, handled, online_server, send_sessions, wait_for

from agentgauge.online import result_id_for, sampled

FAST_END = "session_end: {settle_seconds: 0.1, idle_seconds: 300}\nconcurrency: 1\nniceness: 0\n"


def test_a_half_sample_of_200_sessions_scores_the_seeds_share(tmp_path: Path) -> None:
    keys = [f"s-{i:03d}" for i in range(200)]
    chosen = [k for k in keys if sampled(7, "half", k, 0.5)]
    # the seeded sampler is a fair coin: within three standard deviations of 100 (sqrt(200 / 4) ~ 7.1)
    assert abs(len(chosen) - 100) <= 3 * math.sqrt(200 * 0.25)
    rules = FAST_END + "rules:\n  - name: half\n    sample_rate: 0.5\n    seed: 7\n" + TOOL_METRICS
    with online_server(tmp_path / "data", rules) as url:
        send_sessions(url, keys)
        status = wait_for(url, lambda s: s["rules"][0]["counts"]["ended"] == 200 and handled(s) == len(chosen))
    counts = status["rules"][0]["counts"]
    assert (counts["sampled"], counts["scored"], counts["errors"], counts["dropped"]) == (
        len(chosen),
        len(chosen),
        0,
        0,
    )
    assert {r["key"] for r in status["rules"][0]["recent"]} <= set(chosen)
    [period] = status["rules"][0]["trend"]
    assert period["scored"] == period["passed"] == len(chosen), [
        r for r in status["rules"][0]["recent"] if r["status"] != "passed"
    ]
    assert period["means"] == {"trajectory_tool_used": 1.0, "tool_call_count_v1": 1.0}
    [saved] = (tmp_path / "data" / "results" / "weather").glob("online_half_*.evalset_result.json")
    result = json.loads(saved.read_text())
    assert sorted(c["evalId"] for c in result["evalCaseResults"]) == sorted(chosen)
    assert result["evalSetId"] == "online_half" and result["summary"]["caseStatusCounts"]["passed"] == len(chosen)


def test_the_judge_budget_stops_judge_calls(tmp_path: Path, chat_server: Any) -> None:
    from chat_server import ok

    chat_server.responder = lambda body: ok('{"reasoning": "harmless", "verdict": "safe"}')
    judge = {"judge_model": "judge-model", "base_url": chat_server.base_url, "api_key": "sk-test"}
    metrics = {"criteria": {"safety_v1": {"threshold": 0.5, "judge_model_options": judge}}}
    rules = FAST_END + (
        f"rules:\n  - name: judged\n    judge_budget: {{calls: 3, per: day}}\n    metrics: {json.dumps(metrics)}\n"
    )
    with online_server(tmp_path / "data", rules) as url:
        send_sessions(url, [f"j-{i}" for i in range(6)])
        status = wait_for(url, lambda s: handled(s) == 6)
    assert len(chat_server.requests) == 3  # the stub counted every judge call that reached it
    rule = status["rules"][0]
    assert rule["judgeBudget"] == {"calls": 3, "per": "day", "used": 3, "refused": 3}
    scores = sorted((r["metrics"]["safety_v1"] is not None) for r in rule["recent"])
    assert scores == [False, False, False, True, True, True]


def test_a_session_without_content_errors_alone(tmp_path: Path) -> None:
    rules = FAST_END + "rules:\n  - name: all\n" + TOOL_METRICS
    keys = ["ok-1", "bare", "ok-2", "ok-3"]
    with online_server(tmp_path / "data", rules) as url:
        send_sessions(url, keys, content=lambda key: key != "bare")
        status = wait_for(url, lambda s: handled(s) == 4)
    rule = status["rules"][0]
    assert (rule["counts"]["scored"], rule["counts"]["errors"]) == (3, 1)
    by_key = {r["key"]: r for r in rule["recent"]}
    assert by_key["bare"]["status"] == "error" and by_key["bare"]["error"]
    assert all(by_key[k]["status"] == "passed" for k in ("ok-1", "ok-2", "ok-3"))


def test_filters_take_only_the_named_service_and_attributes(tmp_path: Path) -> None:
    other = "  - name: other\n    match: {service: [another_service]}\n" + TOOL_METRICS
    wanted = "{service: [weather_loop], agent: [weather], attributes: {gen_ai.operation.name: chat}}"
    mine = f"  - name: mine\n    match: {wanted}\n"
    rules = FAST_END + "rules:\n" + other + mine + TOOL_METRICS
    with online_server(tmp_path / "data", rules) as url:
        send_sessions(url, ["f-1", "f-2"])
        status = wait_for(url, lambda s: handled(s, 1) == 2 and s["rules"][0]["counts"]["filtered"] == 2)
    assert status["rules"][0]["counts"]["scored"] == 0


def test_scores_are_exported_as_evaluation_events_and_posted_to_the_webhook(
    tmp_path: Path, collector: Collector
) -> None:
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    sinks = f"    sinks: {{otlp: '{collector.url}', webhook: {{url: '{collector.url}/hook'}}}}\n"
    rules = FAST_END + "rules:\n  - name: sent\n" + sinks + TOOL_METRICS
    spans = InMemorySpanExporter()
    with online_server(tmp_path / "data", rules) as url:
        send_sessions(url, ["e-1", "e-2"], spans=spans)
        wait_for(url, lambda s: handled(s) == 2 and len(collector.posts) == 4)
    roots = {
        s.attributes["gen_ai.conversation.id"]: (f"{s.context.trace_id:032x}", f"{s.context.span_id:016x}")
        for s in spans.get_finished_spans()
        if s.parent is None
    }
    logs = [body for path, body in collector.posts if path == "/v1/logs"]
    records = [r for doc in logs for r in doc["resourceLogs"][0]["scopeLogs"][0]["logRecords"]]
    assert len(records) == 4  # two metrics of two sessions
    for record in records:
        attributes = {a["key"]: next(iter(a["value"].values())) for a in record["attributes"]}
        assert record["eventName"] == attributes["event.name"] == "gen_ai.evaluation.result"
        session = attributes["gen_ai.conversation.id"]
        assert (record["traceId"], record["spanId"]) == roots[session]  # parented to the evaluated root span
        assert attributes["gen_ai.evaluation.name"] in ("trajectory_tool_used", "tool_call_count_v1")
        assert attributes["agentgauge.online.rule"] == "sent"
    hooks = sorted((body for path, body in collector.posts if path == "/hook"), key=lambda b: b["session"])
    assert [h["session"] for h in hooks] == ["e-1", "e-2"]
    assert hooks[0]["rule"] == "sent" and hooks[0]["status"] == "passed"
    assert hooks[0]["resultId"].startswith("online_sent_")
    assert {m["name"]: m["score"] for m in hooks[0]["metrics"]} == {
        "trajectory_tool_used": 1.0,
        "tool_call_count_v1": 1.0,
    }


def test_the_rules_are_read_and_replaced_through_the_api(tmp_path: Path) -> None:
    rules = FAST_END + "rules:\n  - name: first\n" + TOOL_METRICS
    with online_server(tmp_path / "data", rules) as url:
        assert httpx.get(f"{url}/api/live/online/rules").json() == {"file": "rules.yaml", "text": rules}
        bad = httpx.put(f"{url}/api/live/online/rules", json={"text": "rules:\n  - name: x\n    sample_rate: 2\n"})
        assert bad.status_code == 400
        assert "rules.yaml: rules[0].sample_rate: Input should be less than or equal to 1" in bad.json()["detail"]
        replaced = FAST_END + "rules:\n  - name: second\n    sample_rate: 0.25\n" + TOOL_METRICS
        answer = httpx.put(f"{url}/api/live/online/rules", json={"text": replaced})
        assert answer.status_code == 200 and answer.json()["rules"] == ["second"]
        assert (tmp_path / "rules.yaml").read_text() == replaced
        assert [r["name"] for r in httpx.get(f"{url}/api/live/online").json()["rules"]] == ["second"]


def test_period_results_are_ids_of_their_hour() -> None:
    assert result_id_for("r", 1_796_169_000, "hour") == "online_r_20261201T23"
    assert result_id_for("r", 1_796_169_000, "day") == "online_r_20261201"
