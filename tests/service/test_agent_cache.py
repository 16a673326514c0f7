"""The agent response cache: a second run is answered from the cache, keyed by agent source, request and run;
failures are not cached; entries are atomic and free of registered secrets; --cache-agent re-scores without the
agent."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

from agentgauge._util.redact import clear_secrets, register_secret
from agentgauge.model import EvalMetric, EvalSet
from agentgauge.run._evaluator import AgentEvaluator
from agentgauge.service import AgentResponseCache, LoadedEvalSet, agent_identity
from agentgauge.storage import InMemoryEvalResultManager, InMemoryMetricManager

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"

SET = EvalSet.model_validate(
    {
        "evalSetId": "echo",
        "evalCases": [
            {
                "evalId": name,
                "conversation": [
                    {"userContent": {"role": "user", "content": text}, "finalResponse": {"content": f"echo: {text}"}}
                ],
                "sessionInput": {"appName": "echo", "userId": "u", "state": {"lang": "en"}},
            }
            for name, text in (("a", "hello"), ("b", "world"), ("boom", "fail please"))
        ],
    }
)


class Counting:
    """An agent that counts its calls, echoes, and fails on request; ``salt`` changes its answers."""

    def __init__(self, salt: str = "") -> None:
        self.calls: list[str] = []
        self.salt = salt

    def __call__(self, request: object) -> str:
        text = request.user_content.content  # type: ignore[attr-defined]
        self.calls.append(text)
        if "fail" in text:
            raise RuntimeError("agent down")
        return f"echo: {text}{self.salt}"


def _evaluate(
    agent: Counting, cache: AgentResponseCache | None, *, num_runs: int = 1, threshold: float = 0.5
) -> list[str]:
    metrics = InMemoryMetricManager()
    metrics.put_all("echo", "echo", [EvalMetric(metric_name="response_match_score", threshold=threshold)])
    evaluator = AgentEvaluator(
        "echo",
        agent,
        eval_set_manager=LoadedEvalSet(SET),
        metric_manager=metrics,
        result_manager=InMemoryEvalResultManager(),
        num_runs=num_runs,
        agent_cache=cache,
    )
    outcome = evaluator.evaluate_sync("echo")
    return [
        f"{r.eval_id}/{r.run_id}:{r.final_eval_status.value}:"
        + (
            r.eval_metric_result_per_invocation[0].actual_invocation.final_response.content
            if r.eval_metric_result_per_invocation
            else "-"
        )  # type: ignore[union-attr]
        for r in outcome.eval_set_result.eval_case_results
    ]


def test_second_run_is_answered_from_the_cache_and_failures_are_asked_again(tmp_path: Path) -> None:
    cache = AgentResponseCache(tmp_path / "cache", "agent-v1")
    first = Counting()
    assert _evaluate(first, cache) == ["a/1:passed:echo: hello", "b/1:passed:echo: world", "boom/1:error:-"]
    assert sorted(first.calls) == ["fail please", "hello", "world"]
    assert (cache.hits, cache.stored) == (0, 2)
    assert len(list((tmp_path / "cache").rglob("*.json"))) == 2
    assert not list((tmp_path / "cache").rglob("*.tmp"))

    second = Counting(salt=" (live)")  # would answer differently: the cached answers must win
    again = AgentResponseCache(tmp_path / "cache", "agent-v1")
    assert _evaluate(second, again, threshold=0.9) == [
        "a/1:passed:echo: hello",
        "b/1:passed:echo: world",
        "boom/1:error:-",
    ]
    assert second.calls == ["fail please"]  # only the failed case reached the agent
    assert (again.hits, again.misses) == (2, 1)


def test_key_covers_agent_identity_request_and_run(tmp_path: Path) -> None:
    cache = AgentResponseCache(tmp_path, "agent-v1")
    a, b = SET.eval_cases[0], SET.eval_cases[1]
    assert cache.key(a, 1) == AgentResponseCache(tmp_path, "agent-v1").key(a, 1)
    assert cache.key(a, 1) != cache.key(a, 2)
    assert cache.key(a, 1) != cache.key(b, 1)
    assert cache.key(a, 1) != AgentResponseCache(tmp_path, "agent-v2").key(a, 1)
    other_state = a.model_copy(deep=True)
    assert other_state.session_input is not None
    other_state.session_input.state["lang"] = "fr"
    assert cache.key(a, 1) != cache.key(other_state, 1)
    renamed = a.model_copy(update={"eval_id": "renamed"})
    assert cache.key(a, 1) == cache.key(renamed, 1)  # the request, not the case's name, decides


def test_runs_get_their_own_answers(tmp_path: Path) -> None:
    agent = Counting()
    cache = AgentResponseCache(tmp_path, "x")
    _evaluate(agent, cache, num_runs=2)
    assert len(agent.calls) == 6 and cache.stored == 4
    replay = Counting()
    _evaluate(replay, AgentResponseCache(tmp_path, "x"), num_runs=2)
    assert replay.calls == ["fail please", "fail please"]


def test_unreadable_entry_is_a_miss_and_secrets_are_masked(tmp_path: Path) -> None:
    secret = "sk-cache-secret-abcdef123456"
    register_secret(secret)
    try:
        cache = AgentResponseCache(tmp_path, "x")
        case = SET.eval_cases[0]
        from agentgauge.model import Invocation, Message

        cache.put(
            case,
            1,
            [Invocation(user_content=Message(role="user", content="q"), final_response=Message(content=secret))],
        )
        (entry,) = tmp_path.rglob("*.json")
        assert secret not in entry.read_text() and "***" in entry.read_text()
        assert "hello" not in entry.read_text()  # the request is hashed, never written
        entry.write_text("{broken")
        assert cache.get(case, 1) is None and cache.misses == 1
    finally:
        clear_secrets()


def test_agent_identity_follows_the_source(tmp_path: Path) -> None:
    agent = tmp_path / "agent.py"
    agent.write_text("def agent(r):\n    return 'a'\n")
    first = agent_identity(str(agent))
    (tmp_path / "helper.py").write_text("X = 1\n")
    second = agent_identity(str(agent))
    agent.write_text("def agent(r):\n    return 'b'\n")
    third = agent_identity(str(agent))
    assert len({first, second, third}) == 3 and first.startswith(str(agent) + "#")
    assert agent_identity(str(agent)) == third
    assert agent_identity("json:loads").startswith("json:loads#")


def test_cli_cache_agent_rescoring_with_other_metrics_needs_no_agent_call(tmp_path: Path) -> None:
    shutil.copytree(EXAMPLES / "calculator", tmp_path / "calculator")
    agent = tmp_path / "calculator" / "agent.py"
    agent.write_text(
        agent.read_text()
        + "\n\n_plain = root_agent\n\n\ndef root_agent(request):  # noqa: F811\n"
        + "    open(__file__ + '.calls', 'a').write('x\\n')\n    return _plain(request)\n"
    )
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path), "COLUMNS": "200"}
    base = [sys.executable, "-c", "from agentgauge.cli import main; main()", "eval", "calculator/agent.py"]
    evalset = "calculator/calculator.evalset.json"
    first = subprocess.run([*base, evalset, "--cache-agent"], cwd=tmp_path, env=env, capture_output=True, text=True)
    assert first.returncode == 0, first.stdout + first.stderr
    assert "Agent cache: 0 case run(s) answered from the cache, 6 new answer(s) stored" in first.stdout
    calls = Path(str(agent) + ".calls")
    assert len(calls.read_text().splitlines()) == 7  # six cases, one with two turns
    (tmp_path / "strict.metrics.json").write_text(
        json.dumps([{"metricName": "response_match_score", "threshold": 1.0}])
    )
    second = subprocess.run(
        [*base, evalset, "--cache-agent", "--metrics", "strict.metrics.json"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
    )
    assert "Agent cache: 6 case run(s) answered from the cache, 0 new answer(s) stored" in second.stdout, (
        second.stdout + second.stderr
    )
    assert "response_match_score" in second.stdout
    assert len(calls.read_text().splitlines()) == 7  # the agent was not called again
    refused = subprocess.run(
        [
            sys.executable,
            "-c",
            "from agentgauge.cli import main; main()",
            "eval",
            "--traces",
            "x.json",
            "--cache-agent",
        ],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
    )
    assert refused.returncode == 2 and "apply to agent runs, not to --traces" in refused.stderr
