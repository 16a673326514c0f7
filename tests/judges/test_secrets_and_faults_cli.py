"""``agentgauge eval`` end to end against a loopback judge that echoes the API keys back: no key appears in any
output (result file, judge cache, HTML/JUnit/Markdown, ``--json``, stdout, stderr). Also: judge configuration is
checked before anything runs (exit 2), and a judge that never answers costs at most ``--judge-timeout``."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from chat_server import HANG, ChatServer, Reply, error, ok
from typer.testing import CliRunner

import agentgauge
from agentgauge.cli import app

CONFIG_KEY = "sk-config-ECHO-1f2e3d4c5b6a7980"  # judgeModel.apiKey, given as ${AG_TEST_JUDGE_KEY}
PROVIDER_KEY = "sk-provider-ECHO-0a9b8c7d6e5f4321"  # found in $OPENAI_API_KEY by the ADK metric
KEYS = (CONFIG_KEY, PROVIDER_KEY)
ECHO = f"config key {CONFIG_KEY}, provider key {PROVIDER_KEY}"
SRC = Path(agentgauge.__file__).resolve().parents[1]


def echoing_judge(body: dict[str, Any]) -> Reply:
    """Every kind of answer a judge can give, each carrying both keys."""
    prompt = body["messages"][0]["content"]
    if "case-500" in prompt:
        return error(500, f"upstream failed for {ECHO}")
    if "case-html" in prompt:
        return Reply(200, f"<html><body>proxy login for {ECHO}</body></html>", content_type="text/html")
    if "case-garbage" in prompt:
        return ok(f"I refuse to follow the format. {ECHO}")
    if "is_the_agent_response_valid: <valid or invalid>" in prompt:  # trpc llm_final_response
        return ok(f"reasoning: {ECHO}\nis_the_agent_response_valid: valid")
    return ok(json.dumps({"reasoning": ECHO, "is_the_agent_response_valid": "valid"}))


def _inv(text: str, answer: str) -> dict[str, Any]:
    return {
        "userContent": {"role": "user", "content": text},
        "finalResponse": {"role": "assistant", "content": answer},
    }


def trace(name: str, question: str, answer: str, expected: str = "Paris") -> dict[str, Any]:
    return {
        "evalId": name,
        "evalMode": "trace",
        "conversation": [_inv(question, expected)],
        "actualConversation": [_inv(question, answer)],
    }


def write_inputs(root: Path, base_url: str) -> Path:
    cases = [
        trace(name, f"{name}: capital of France?", "Paris")
        for name in ("case-reason", "case-500", "case-html", "case-garbage")
    ]
    # The agent's own recorded answer carries a key too: the final net catches what no judge produced.
    cases.append(trace("case-agent", "case-agent: your key?", CONFIG_KEY))
    evalset = root / "echo.evalset.json"
    evalset.write_text(json.dumps({"evalSetId": "echo", "evalCases": cases}))
    metrics = [
        {
            "metricName": "llm_final_response",
            "threshold": 0.5,
            "criterion": {
                "llmJudge": {
                    "judgeModel": {
                        "providerName": "openai",
                        "modelName": "judge-model",
                        "baseURL": base_url,
                        "apiKey": "${AG_TEST_JUDGE_KEY}",
                    }
                }
            },
        },
        {
            "metricName": "final_response_match_v2",
            "threshold": 0.5,
            "criterion": {
                "adk": {
                    "threshold": 0.5,
                    "judge_model_options": {"judge_model": "judge-model", "base_url": base_url, "num_samples": 1},
                }
            },
        },
    ]
    (root / "echo.metrics.json").write_text(json.dumps(metrics))
    return evalset


def run_cli(root: Path, evalset: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    env = {
        **os.environ,
        "PYTHONPATH": str(SRC),
        "AG_TEST_JUDGE_KEY": CONFIG_KEY,
        "OPENAI_API_KEY": PROVIDER_KEY,
        "COLUMNS": "200",
    }
    command = [
        *("eval", str(evalset), "--output-dir", str(root / "out"), "--json", "--print-detailed-results"),
        *("--html", str(root / "report.html"), "--junit", str(root / "report.xml")),
        *("--markdown", str(root / "report.md"), "--judge-timeout", "2.5", "--parallelism", "8", *extra),
    ]
    code = "import sys; from agentgauge.cli import main; sys.argv[0] = 'agentgauge'; main()"
    return subprocess.run(
        [sys.executable, "-c", code, *command], env=env, capture_output=True, text=True, timeout=120, check=False
    )


def count_secrets(texts: dict[str, str]) -> dict[str, int]:
    return {name: sum(text.count(k) for k in KEYS) for name, text in texts.items() if any(k in text for k in KEYS)}


def test_no_key_in_any_output_when_the_judge_echoes_it(chat_server: ChatServer, tmp_path: Path) -> None:
    chat_server.responder = echoing_judge
    evalset = write_inputs(tmp_path, chat_server.base_url)
    for run in (1, 2):  # the second run answers from the judge cache
        done = run_cli(tmp_path, evalset)
        assert done.returncode == 1, done.stderr
        outputs = {"stdout": done.stdout, "stderr": done.stderr}
        inputs = {evalset, tmp_path / "echo.metrics.json"}
        written = [p for p in tmp_path.rglob("*") if p.is_file() and p not in inputs]
        outputs |= {str(p.relative_to(tmp_path)): p.read_text(encoding="utf-8") for p in written}
        assert any(".judge_cache" in name for name in outputs) and any(
            name.endswith("evalset_result.json") for name in outputs
        )
        assert {"report.html", "report.xml", "report.md"} <= set(outputs)
        assert count_secrets(outputs) == {}, f"secrets found in outputs (run {run})"
        # The keys were echoed, and masked where they appeared.
        result = json.loads(done.stdout)
        text = json.dumps(result)
        assert "config key ***, provider key ***" in text
        assert "***" in outputs["report.html"] and "***" in outputs["report.md"] and "***" in outputs["report.xml"]
        reasons = {c["evalId"]: c.get("errorMessage") or "" for c in result["evalCaseResults"]}
        assert "returned an invalid answer for invocation 1: the body is not JSON (text/html)" in reasons["case-html"]
        assert "HTTP 500" in reasons["case-500"]
        assert "config key ***" in reasons["case-garbage"]
    # Every request carried the real keys (masking is on output only).
    auth = {r.headers["authorization"] for r in chat_server.requests}
    assert auth == {f"Bearer {CONFIG_KEY}", f"Bearer {PROVIDER_KEY}"}


runner = CliRunner()


def test_a_missing_judge_key_is_a_configuration_error_before_anything_runs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for var in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "AG_TEST_JUDGE_KEY"):
        monkeypatch.delenv(var, raising=False)
    evalset = tmp_path / "k.evalset.json"
    evalset.write_text(
        json.dumps(
            {"evalSetId": "k", "evalCases": [{"evalId": "c", "evalMode": "trace", "conversation": [_inv("q", "a")]}]}
        )
    )
    judge = {"providerName": "openai", "modelName": "gpt-4o-mini", "apiKey": "${AG_TEST_JUDGE_KEY}"}
    metrics = [
        {"metricName": "final_response_avg_score", "threshold": 1, "criterion": {"finalResponse": {"text": {}}}},
        {"metricName": "llm_final_response", "threshold": 0.5, "criterion": {"llmJudge": {"judgeModel": judge}}},
    ]
    config = tmp_path / "k.metrics.json"
    config.write_text(json.dumps(metrics))
    out = tmp_path / "out"
    result = runner.invoke(app, ["eval", str(evalset), "--output-dir", str(out)])
    assert result.exit_code == 2, result.output
    assert result.stdout == ""
    assert result.stderr == (
        f"error: {config}: [1].criterion: llm_final_response: no API key for judge provider 'openai' "
        "(model 'gpt-4o-mini'): set apiKey in the judge config or $OPENAI_API_KEY\n"
    )
    assert not out.exists()  # nothing written


@pytest.mark.parametrize("value", ["0", "-3", "nan", "inf"])
def test_judge_timeout_must_be_positive(tmp_path: Path, value: str) -> None:
    evalset = tmp_path / "t.evalset.json"
    evalset.write_text(json.dumps({"evalSetId": "t", "evalCases": []}))
    result = runner.invoke(app, ["eval", str(evalset), "--judge-timeout", value, "--output-dir", str(tmp_path / "o")])
    assert result.exit_code == 2
    assert result.stderr.startswith("error: --judge-timeout must be a positive number of seconds")


def test_a_judge_that_never_answers_costs_at_most_the_judge_timeout(chat_server: ChatServer, tmp_path: Path) -> None:
    chat_server.responder = lambda body: HANG
    evalset = tmp_path / "h.evalset.json"
    cases = [trace(f"c{i}", f"q{i}", "a") for i in range(3)]
    evalset.write_text(json.dumps({"evalSetId": "h", "evalCases": cases}))
    judge = {
        "providerName": "openai",
        "modelName": "judge-model",
        "baseURL": chat_server.base_url,
        "apiKey": "sk-hang-0123456789",
    }
    (tmp_path / "h.metrics.json").write_text(
        json.dumps(
            [{"metricName": "llm_final_response", "threshold": 0.5, "criterion": {"llmJudge": {"judgeModel": judge}}}]
        )
    )
    result = runner.invoke(
        app, ["eval", str(evalset), "--judge-timeout", "1", "--output-dir", str(tmp_path / "out"), "--json"]
    )
    assert result.exit_code == 1, result.output
    saved = json.loads(result.stdout)
    messages = [c["errorMessage"] for c in saved["evalCaseResults"]]
    assert len(messages) == 3
    for message in messages:
        assert f"judge judge-model at {chat_server.base_url} did not answer within its 1s time budget" in message
