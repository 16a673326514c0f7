"""Trace-mode eval sets scored by a deterministic metric and an LLM judge on a loopback chat server, for the
tests of judge errors, report counts, metric selection and judge parallelism."""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any

from chat_server import Reply, ok

TRAJECTORY = "tool_trajectory_avg_score"
JUDGE = "llm_final_response"


def _inv(question: str, answer: str, tools: list[tuple[str, dict[str, Any]]]) -> dict[str, Any]:
    return {
        "userContent": {"role": "user", "content": question},
        "finalResponse": {"role": "assistant", "content": answer},
        "tools": [{"name": name, "arguments": args} for name, args in tools],
    }


def trace_case(
    eval_id: str, question: str, answer: str = "done", *, tool: str = "lookup", actual_tool: str | None = None
) -> dict[str, Any]:
    """A recorded conversation of one turn: the expected call is ``tool``, the recorded one ``actual_tool``."""
    return {
        "evalId": eval_id,
        "evalMode": "trace",
        "conversation": [_inv(question, answer, [(tool, {"q": question})])],
        "actualConversation": [_inv(question, answer, [(actual_tool or tool, {"q": question})])],
    }


def judge_metric(base_url: str | None, *, api_key: str | None = "sk-loopback-test") -> dict[str, Any]:
    """trpc's ``llm_final_response`` against the loopback server (no ``baseURL``: OpenAI's own; no ``apiKey``:
    the provider's variable)."""
    model: dict[str, Any] = {"providerName": "openai", "modelName": "judge-model"}
    if base_url is not None:
        model["baseURL"] = base_url
    if api_key is not None:
        model["apiKey"] = api_key
    return {"metricName": JUDGE, "threshold": 0.5, "criterion": {"llmJudge": {"judgeModel": model}}}


def write_set(root: Path, cases: list[dict[str, Any]], metrics: list[dict[str, Any]], set_id: str = "basic") -> Path:
    """``<set_id>.evalset.json`` and its ``<set_id>.metrics.json`` under ``root``; returns the eval set's path."""
    root.mkdir(parents=True, exist_ok=True)
    path = root / f"{set_id}.evalset.json"
    path.write_text(json.dumps({"evalSetId": set_id, "evalCases": cases}), encoding="utf-8")
    (root / f"{set_id}.metrics.json").write_text(json.dumps(metrics), encoding="utf-8")
    return path


def valid_verdict() -> Reply:
    """A judge answer in the format ``llm_final_response`` expects."""
    return ok(json.dumps({"reasoning": "matches", "is_the_agent_response_valid": "valid"}))


def judge_refusing(word: str) -> Any:
    """A responder answering in a bad format (no JSON, no verdict) for prompts holding ``word``."""

    def respond(body: dict[str, Any]) -> Reply:
        prompt = "\n".join(m.get("content", "") for m in body.get("messages", []))
        if word in prompt:
            return ok("I refuse to follow the format.")
        return valid_verdict()

    return respond


class ConcurrencyGate:
    """A responder that holds each judge call until ``target`` calls are in flight at once (or ``patience``
    seconds passed), then lets every call through; ``peak`` is the most calls ever in flight together.

    Holding the calls makes the peak independent of timing: a client that allows ``target`` calls at once
    reaches it every time, and one that allows fewer can never exceed its own limit."""

    def __init__(self, target: int, patience: float = 2.0) -> None:
        self.target = target
        self.patience = patience
        self.in_flight = 0
        self.peak = 0
        self.calls = 0
        self._open = False
        self._cond = threading.Condition()

    def __call__(self, body: dict[str, Any]) -> Reply:
        with self._cond:
            self.calls += 1
            self.in_flight += 1
            self.peak = max(self.peak, self.in_flight)
            if self.in_flight >= self.target:
                self._open = True
                self._cond.notify_all()
            self._cond.wait_for(lambda: self._open, timeout=self.patience)
            self.in_flight -= 1
        return valid_verdict()
