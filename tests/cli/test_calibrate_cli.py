"""``agentgauge calibrate`` end to end: a result judged by a loopback judge, people's labels from a LABELS.jsonl, from
the sidecar beside the result and from the SQL store."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from chat_server import ChatServer, Reply, ok
from typer.testing import CliRunner

from agentgauge.cli import app
from agentgauge.model import HumanLabel
from agentgauge.storage import LabelFile

runner = CliRunner()

# case id -> the recorded answer to "What is the capital of France?"
ANSWERS = {"plain": "Paris", "sentence": "It is Paris.", "wrong": "Lyon", "hedged": "Lyon or Paris", "none": "No idea"}
# The person's verdicts: only "plain" and "sentence" are right.
HUMAN = {"plain": "pass", "sentence": "pass", "wrong": "fail", "hedged": "fail", "none": "fail"}


def _judge(request: dict[str, object]) -> Reply:
    """A judge that accepts any answer mentioning Paris: it passes "hedged", which a person fails."""
    prompt = "\n".join(str(m["content"]) for m in request["messages"])  # type: ignore[attr-defined]
    answer = prompt.split("Agent response:\n", 1)[1].split("\n\nReference response:", 1)[0]
    return ok(f"reasoning: checked\nis_the_agent_response_valid: {'valid' if 'Paris' in answer else 'invalid'}")


def _inv(text: str) -> dict[str, object]:
    return {
        "userContent": {"role": "user", "content": "What is the capital of France?"},
        "finalResponse": {"role": "assistant", "content": text},
    }


def _inputs(tmp_path: Path, base_url: str) -> tuple[Path, Path]:
    cases = [
        {"evalId": cid, "evalMode": "trace", "conversation": [_inv("Paris")], "actualConversation": [_inv(text)]}
        for cid, text in ANSWERS.items()
    ]
    evalset = tmp_path / "geo.evalset.json"
    evalset.write_text(json.dumps({"evalSetId": "geo", "evalCases": cases}))
    judge = {"providerName": "openai", "modelName": "loop-judge", "baseURL": base_url, "apiKey": "sk-loopback-key"}
    metric = {"metricName": "llm_final_response", "threshold": 1, "criterion": {"llmJudge": {"judgeModel": judge}}}
    metrics = tmp_path / "geo.metrics.json"
    metrics.write_text(json.dumps([metric]))
    return evalset, metrics


@pytest.fixture
def judged(tmp_path: Path, chat_server: ChatServer) -> Path:
    """The results folder of one run of the eval set, judged by the loopback judge."""
    chat_server.responder = _judge
    evalset, metrics = _inputs(tmp_path, chat_server.base_url)
    done = runner.invoke(app, ["eval", str(evalset), "--metrics", str(metrics), "--output-dir", str(tmp_path / "out")])
    assert done.exit_code == 1, done.output  # three answers fail the judge
    assert len(chat_server.requests) == len(ANSWERS)
    return tmp_path / "out"


def _labels_file(tmp_path: Path) -> Path:
    path = tmp_path / "LABELS.jsonl"
    lines = [{"evalId": cid, "metricName": "llm_final_response", "verdict": v} for cid, v in HUMAN.items()]
    lines[3]["note"] = "hedges between two cities"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return path


TABLE = [
    "Judge calibration: 1 result, 5 labels",
    "metric             judge model level    n accuracy  kappa  TP  FP  FN  TN",
    "llm_final_response loop-judge  case     5    0.800  0.615   2   1   0   2",
    "Disagreements: llm_final_response judged by loop-judge (per case):",
    "  geo/hedged: judge pass (score 1), human fail",
    "    note: hedges between two cities",
]


def test_table_from_a_labels_file(judged: Path, tmp_path: Path) -> None:
    done = runner.invoke(app, ["calibrate", str(judged), "--labels", str(_labels_file(tmp_path))])
    assert done.exit_code == 0, done.output
    lines = [line for line in done.stdout.splitlines() if line.strip()]
    assert [line for line in lines if line in TABLE] == TABLE
    assert max(len(line) for line in lines) <= 80
    assert "sk-loopback-key" not in done.stdout


def test_json_and_markdown(judged: Path, tmp_path: Path) -> None:
    labels = str(_labels_file(tmp_path))
    data = json.loads(runner.invoke(app, ["calibrate", str(judged), "--labels", labels, "--format", "json"]).stdout)
    (group,) = data["groups"]
    assert (group["judgeModel"], group["labelled"], group["accuracy"]) == ("loop-judge", 5, 0.8)
    assert group["kappa"] == pytest.approx(0.32 / 0.52)  # p_o 0.8, p_e 0.6 * 0.4 + 0.4 * 0.6
    assert group["confusion"] == {
        "judgePassHumanPass": 2,
        "judgePassHumanFail": 1,
        "judgeFailHumanPass": 0,
        "judgeFailHumanFail": 2,
    }
    assert [d["evalId"] for d in group["disagreements"]] == ["hedged"]
    markdown = runner.invoke(app, ["calibrate", str(judged), "--labels", labels, "--format", "markdown"]).stdout
    assert "| `llm_final_response` | loop-judge | case | 5 | 0.800 | 0.615 | 2 | 1 | 0 | 2 |" in markdown


def test_labels_stored_beside_the_result_need_no_labels_file(judged: Path) -> None:
    (result_file,) = judged.rglob("*.evalset_result.json")
    sidecar = LabelFile(result_file)
    result_id = result_file.name.removesuffix(".evalset_result.json")
    for cid, verdict in HUMAN.items():
        # As the web UI stores them: agree / disagree with the verdict shown.
        judge = "pass" if "Paris" in ANSWERS[cid] else "fail"
        said = "agree" if judge == verdict else "disagree"
        sidecar.put(
            HumanLabel(
                eval_id=cid,
                metric_name="llm_final_response",
                verdict=said,
                judge_verdict=judge,
                eval_set_result_id=result_id,
            )
        )
    done = runner.invoke(app, ["calibrate", str(result_file)])
    assert done.exit_code == 0, done.output
    assert TABLE[2] in done.stdout.splitlines()


def test_results_and_labels_in_a_store(tmp_path: Path, chat_server: ChatServer) -> None:
    from agentgauge.sqlstore import open_store

    chat_server.responder = _judge
    evalset, metrics = _inputs(tmp_path, chat_server.base_url)
    url = f"sqlite:///{tmp_path / 'results.db'}"
    done = runner.invoke(app, ["eval", str(evalset), "--metrics", str(metrics), "--store", url, "--app-name", "geo"])
    assert done.exit_code == 1, done.output
    store = open_store(url)
    (result_id,) = store.results().list("geo")
    for cid, verdict in HUMAN.items():
        label = HumanLabel(eval_id=cid, metric_name="llm_final_response", verdict=verdict, eval_set_result_id=result_id)
        store.labels().put("geo", label)
    done = runner.invoke(app, ["calibrate", result_id, "--store", url])
    assert done.exit_code == 0, done.output
    assert TABLE[2] in done.stdout.splitlines()


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ('{"evalId": "plain", "metricName": "llm_final_response"}\n', "LABELS.jsonl: line 1.verdict: missing required"),
        ('{"evalId": "plain", "metricName": "x", "verdict": "pass"}\n{oops\n', "LABELS.jsonl: line 2: invalid JSON"),
    ],
)
def test_a_bad_labels_file_exits_2_naming_the_line(tmp_path: Path, content: str, message: str) -> None:
    labels = tmp_path / "LABELS.jsonl"
    labels.write_text(content)
    result = tmp_path / "r.evalset_result.json"
    result.write_text(json.dumps({"evalSetId": "s", "evalCaseResults": []}))
    done = runner.invoke(app, ["calibrate", str(result), "--labels", str(labels)])
    assert done.exit_code == 2
    assert done.stderr.startswith(f"error: {tmp_path}/{message}")


def test_bad_arguments_exit_2(tmp_path: Path) -> None:
    done = runner.invoke(app, ["calibrate", str(tmp_path)])
    assert done.exit_code == 2
    assert done.stderr == f"error: {tmp_path}: no result files (*.evalset_result.json) in this folder\n"
    result = tmp_path / "r.evalset_result.json"
    result.write_text(json.dumps({"evalSetId": "s", "evalCaseResults": []}))
    done = runner.invoke(app, ["calibrate", str(result), "--format", "html"])
    assert done.exit_code == 2
    assert "--format: unknown format 'html'" in done.stderr
    done = runner.invoke(app, ["calibrate", str(result)])
    assert done.exit_code == 0
    assert "No labelled judge verdict" in done.stdout
