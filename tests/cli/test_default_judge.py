"""A trpc metrics file without judgeModel: validate warns, eval takes the judge from --judge-model/--judge-base-url,
the environment or the Python API, and exits 2 only when there is none."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from chat_server import ChatServer, ok
from typer.testing import CliRunner

from agentgauge.cli import app
from agentgauge.errors import InputError
from agentgauge.evaluators import Registry
from agentgauge.judges import JudgeSettings
from agentgauge.model import Criterion, EvalMetric

runner = CliRunner()
VALID = "reasoning: same number\nis_the_agent_response_valid: valid"
RUBRIC_OK = json.dumps({"rubricScores": [{"id": "1", "score": 1, "reason": "says 4"}]})
NO_JUDGE_METRICS = [
    {
        "metricName": "llm_rubric_response",
        "threshold": 1,
        "criterion": {"llmJudge": {"rubrics": [{"id": "1", "content": {"text": "Answers 4."}}]}},
    }
]


@pytest.fixture(autouse=True)
def _no_judge_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("AGENTGAUGE_JUDGE_MODEL", "AGENTGAUGE_JUDGE_BASE_URL", "AGENTGAUGE_JUDGE_PROVIDER"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-key")


def _files(tmp_path: Path) -> tuple[Path, Path]:
    inv = {"userContent": {"role": "user", "content": "2+2?"}, "finalResponse": {"role": "assistant", "content": "4"}}
    evalset = tmp_path / "s.evalset.json"
    evalset.write_text(
        json.dumps({"evalSetId": "s", "evalCases": [{"evalId": "c1", "evalMode": "trace", "conversation": [inv]}]})
    )
    metrics = tmp_path / "s.metrics.json"
    metrics.write_text(json.dumps(NO_JUDGE_METRICS))
    return evalset, metrics


def test_validate_accepts_a_metrics_file_without_judge_model_with_a_warning(tmp_path: Path) -> None:
    _, metrics = _files(tmp_path)
    result = runner.invoke(app, ["validate", str(metrics)])
    assert result.exit_code == 0, result.output
    assert result.stdout == f"ok: {metrics} (metrics, 1 metrics)\n"
    assert result.stderr == (
        f"warning: {metrics}: [0].criterion.llmJudge: llm_rubric_response: judgeModel is not set; give the "
        "judge with --judge-model (and --judge-base-url), AGENTGAUGE_JUDGE_MODEL (and AGENTGAUGE_JUDGE_BASE_URL), "
        "or JudgeSettings(default_judge_model=... or judge=...) when running\n"
    )


def test_eval_without_any_judge_exits_2_and_writes_nothing(tmp_path: Path) -> None:
    evalset, _ = _files(tmp_path)
    result = runner.invoke(app, ["eval", str(evalset), "--output-dir", str(tmp_path / "out")])
    assert result.exit_code == 2, result.output
    assert result.stderr.startswith(
        f"error: {tmp_path / 's.metrics.json'}: [0].criterion.llmJudge: llm_rubric_response: "
        "llmJudge.judgeModel not configured and no default judge: give the judge with --judge-model"
    )
    assert result.stderr.count("\n") == 1
    assert not (tmp_path / "out").exists()


def test_eval_takes_the_judge_from_the_command_line(tmp_path: Path, chat_server: ChatServer) -> None:
    evalset, _ = _files(tmp_path)
    chat_server.queue(ok(RUBRIC_OK))
    args = ["eval", str(evalset), "--output-dir", str(tmp_path / "out"), "--no-cache"]
    result = runner.invoke(app, [*args, "--judge-model", "cli-judge", "--judge-base-url", chat_server.base_url])
    assert result.exit_code == 0, result.output
    assert [r.body["model"] for r in chat_server.requests] == ["cli-judge"]
    bad = runner.invoke(app, [*args, "--judge-base-url", chat_server.base_url])
    assert bad.exit_code == 2 and bad.stderr == "error: --judge-base-url needs --judge-model\n"


def test_eval_takes_the_judge_from_the_environment(
    tmp_path: Path, chat_server: ChatServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    evalset, _ = _files(tmp_path)
    monkeypatch.setenv("AGENTGAUGE_JUDGE_MODEL", "env-judge")
    monkeypatch.setenv("AGENTGAUGE_JUDGE_BASE_URL", chat_server.base_url)
    chat_server.queue(ok(RUBRIC_OK))
    result = runner.invoke(app, ["eval", str(evalset), "--output-dir", str(tmp_path / "out"), "--no-cache"])
    assert result.exit_code == 0, result.output
    assert [r.body["model"] for r in chat_server.requests] == ["env-judge"]


async def test_python_api_default_judge_model(chat_server: ChatServer) -> None:
    from agentgauge.model import Invocation, Message

    chat_server.queue(ok(VALID))
    settings = JudgeSettings(default_judge_model={"modelName": "api-judge", "baseURL": chat_server.base_url})
    metric = EvalMetric(metric_name="llm_final_response", threshold=1, criterion=Criterion(llm_judge={}))
    registry = Registry(judge_settings=settings)
    registry.validate_metrics([metric])
    inv = Invocation(user_content=Message(content="q"), final_response=Message(role="assistant", content="4"))
    result = await registry.resolve(metric).evaluate([inv], [inv], metric)
    assert result.overall_score == 1.0
    assert chat_server.requests[0].body["model"] == "api-judge"
    with pytest.raises(InputError, match=r"metrics\[0\].criterion.llmJudge: llm_final_response: llmJudge.judgeModel"):
        Registry().validate_metrics([metric], file="m.json")
