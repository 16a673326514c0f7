"""Run metadata recorded by a run: git state (temp repositories), agent source hash, judge and agent models,
labels; saved with the streamed result file byte for byte as ``save_result`` writes it."""

from __future__ import annotations

import asyncio
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parents[1] / "service"))

from svc_fakes import ExactAnswer, RecordingAgent, case, inv

from agentgauge._util.version import VERSION
from agentgauge.agents import AgentOutput, AgentRequest
from agentgauge.evaluators import Registry
from agentgauge.formats import load_result, save_result
from agentgauge.model import EvalMetric, EvalSet, TokenUsage
from agentgauge.run._evaluator import AgentEvaluator
from agentgauge.run._metadata import agent_source, checked_labels, git_state, judge_models
from agentgauge.storage import InMemoryEvalSetManager, InMemoryMetricManager, LocalEvalResultManager

GIT = shutil.which("git")
needs_git = pytest.mark.skipif(GIT is None, reason="git is not installed")


def _git(repo: Path, *args: str) -> str:
    env = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@e", "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@e"}
    done = subprocess.run(["git", *args], cwd=repo, capture_output=True, text=True, check=True, env=env)
    return done.stdout.strip()


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    root.mkdir()
    _git(root, "init", "-q", "-b", "feature/x")
    (root / "agent.py").write_text("def agent(request):\n    return 'hi'\n")
    _git(root, "add", "agent.py")
    _git(root, "commit", "-q", "-m", "one")
    return root


@needs_git
def test_clean_repository_from_a_subdirectory(repo: Path) -> None:
    sub = repo / "deep" / "er"
    sub.mkdir(parents=True)
    (sub / "untracked.txt").write_text("untracked files do not make it dirty")
    assert git_state(sub) == {
        "git_commit": _git(repo, "rev-parse", "HEAD"),
        "git_branch": "feature/x",
        "git_dirty": False,
    }


@needs_git
def test_changed_tracked_file_is_dirty_and_detached_head_has_no_branch(repo: Path) -> None:
    (repo / "agent.py").write_text("def agent(request):\n    return 'changed'\n")
    assert git_state(repo)["git_dirty"] is True
    _git(repo, "stash", "-q")
    _git(repo, "checkout", "-q", "--detach")
    state = git_state(repo)
    assert state["git_dirty"] is False and "git_branch" not in state and len(state["git_commit"]) == 40


@needs_git
def test_repository_without_commits_has_only_the_branch_and_flag(tmp_path: Path) -> None:
    _git(tmp_path, "init", "-q", "-b", "main")
    assert git_state(tmp_path) == {"git_branch": "main", "git_dirty": False}


def test_no_repository_and_no_git_leave_the_fields_out(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    outside = tmp_path / "plain"
    outside.mkdir()
    if not any((p / ".git").exists() for p in (outside, *outside.parents)):
        assert git_state(outside) == {}
    (outside / ".git").mkdir()  # a repository, but no git program to ask: no field, no error
    monkeypatch.setenv("PATH", str(tmp_path / "empty-bin"))
    assert git_state(outside) == {}


def test_agent_source_hash_follows_the_sources(tmp_path: Path) -> None:
    agent = tmp_path / "agent.py"
    agent.write_text("def agent(request):\n    return 'a'\n")
    first = agent_source(str(agent))
    assert first["agent"] == str(agent) and len(first["agent_source_hash"]) == 64
    assert agent_source(str(agent)) == first
    (tmp_path / "helper.py").write_text("X = 1\n")  # a module beside the agent file is part of its source
    second = agent_source(str(agent))
    assert second["agent_source_hash"] != first["agent_source_hash"]


def test_remote_agent_is_its_url_without_credentials() -> None:
    assert agent_source("a2a+https://user:secret@agents.example:8443/app?token=t#x") == {
        "agent": "a2a+https://agents.example:8443/app"
    }
    assert agent_source(None) == {}


def test_agent_objects_hash_their_module(tmp_path: Path) -> None:
    found = agent_source(RecordingAgent)
    assert found["agent"] == "svc_fakes:RecordingAgent" and len(found["agent_source_hash"]) == 64


def test_judge_models_from_trpc_and_adk_blocks_and_the_default() -> None:
    metrics = [
        EvalMetric.model_validate(
            {"metricName": "a", "threshold": 1, "criterion": {"llmJudge": {"judgeModel": {"modelName": "gpt-4o"}}}}
        ),
        EvalMetric.model_validate(
            {
                "metricName": "b",
                "threshold": 1,
                "criterion": {"adk": {"judge_model_options": {"judge_model": "gemini"}}},
            }
        ),
        EvalMetric(metric_name="llm_final_response", threshold=1.0),  # a judge metric naming no model
        EvalMetric(metric_name="exact_answer", threshold=1.0),
    ]
    assert judge_models(metrics) == ["gpt-4o", "gemini"]
    with_default = judge_models(metrics, default="judge-default", registry=Registry())
    assert with_default == ["gpt-4o", "gemini", "judge-default"]


def test_labels_given_as_a_mapping_or_strings_are_checked() -> None:
    assert checked_labels({"env": "prod"}) == checked_labels(["env=prod"]) == {"env": "prod"}
    with pytest.raises(ValueError, match="label key 'a=b' is not valid"):
        checked_labels({"a=b": "c"})


def _evaluator(tmp_path: Path, **kwargs: object) -> AgentEvaluator:
    registry = Registry()
    registry.register(ExactAnswer())
    metrics = InMemoryMetricManager()
    metrics.put_all("app", "s", [EvalMetric(metric_name="exact_answer", threshold=1.0)])
    cases = [case("c1", inv("x", "echo: x")), case("c2", inv("y", "echo: y"))]
    sets = InMemoryEvalSetManager()
    sets.put("app", EvalSet(eval_set_id="s", eval_cases=cases))
    return AgentEvaluator(
        "app",
        RecordingAgent(),
        eval_set_manager=sets,
        metric_manager=metrics,
        result_manager=LocalEvalResultManager(tmp_path / "out"),
        registry=registry,
        **kwargs,  # type: ignore[arg-type]
    )


def test_a_run_saves_its_metadata_in_the_streamed_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    outcome = asyncio.run(_evaluator(tmp_path, labels=["env=prod", "team=core"]).evaluate("s"))
    assert outcome.result_path is not None
    saved = load_result(outcome.result_path)
    metadata = saved.run_metadata
    assert metadata is not None
    assert metadata.labels == {"env": "prod", "team": "core"}
    assert metadata.agent == "svc_fakes:RecordingAgent" and metadata.agent_source_hash
    assert metadata.agentgauge_version == VERSION
    assert metadata.started_at is not None and metadata.finished_at == saved.creation_timestamp
    assert metadata.started_at <= metadata.finished_at
    copy = tmp_path / "copy.json"
    save_result(saved, copy)  # the streamed bytes are exactly those of a whole-document save
    assert copy.read_bytes() == outcome.result_path.read_bytes()
    assert outcome.eval_set_result is not None and outcome.eval_set_result.run_metadata == metadata


def test_record_metadata_false_and_bad_labels(tmp_path: Path) -> None:
    outcome = asyncio.run(_evaluator(tmp_path, record_metadata=False).evaluate("s"))
    assert outcome.result_path is not None
    assert '"runMetadata"' not in outcome.result_path.read_text()
    with pytest.raises(ValueError, match="label 'nope' is not KEY=VALUE"):
        _evaluator(tmp_path, labels=["nope"])


class _ModelAgent:
    """Answers like RecordingAgent and reports the model of each turn (alternating, to see each name once)."""

    def __init__(self) -> None:
        self.calls = 0

    async def run(self, request: AgentRequest) -> AgentOutput:
        self.calls += 1
        model = "model-a" if self.calls % 2 else "model-b"
        usage = TokenUsage(input_tokens=3, output_tokens=2, model=model)
        return AgentOutput(final_response=f"echo: {request.user_content.content}", usage=usage)


def test_models_seen_in_the_run_are_recorded(tmp_path: Path) -> None:
    evaluator = _evaluator(tmp_path, parallelism=1)
    evaluator.agent = _ModelAgent()
    outcome = asyncio.run(evaluator.evaluate("s"))
    assert outcome.result_path is not None
    metadata = load_result(outcome.result_path).run_metadata
    assert metadata is not None and metadata.models == ["model-a", "model-b"]
