"""Faults in agent code stay inside their case: the run goes on, the result is saved, the process survives.

Each agent below fails on the case whose user text is ``boom`` and answers ``ok`` otherwise; the run goes through
the command line in a subprocess, since several of these faults (``sys.exit``, ``KeyboardInterrupt``) end the
process when they escape.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

PRELUDE = """
import sys, time

def deep(levels):
    value = 1
    for _ in range(levels):
        value = [value]
    return value

class Unprintable(Exception):
    def __str__(self):
        raise RuntimeError("no message for you")
"""

AGENTS: dict[str, tuple[str, str]] = {
    "sys.exit in a sync agent": (
        """
        def agent(request):
            if request.user_content.content == "boom":
                sys.exit(3)
            return "ok"
        """,
        "agent failed on invocation 1 of 1 (i1): SystemExit: the agent called sys.exit(3)",
    ),
    "sys.exit in an async agent": (
        """
        async def agent(request):
            if request.user_content.content == "boom":
                sys.exit(3)
            return "ok"
        """,
        "agent failed on invocation 1 of 1 (i1): SystemExit: the agent called sys.exit(3)",
    ),
    "SystemExit in a sync generator": (
        """
        def agent(request):
            yield "o"
            if request.user_content.content == "boom":
                raise SystemExit("bye")
            yield "k"
        """,
        "agent failed on invocation 1 of 1 (i1): SystemExit: the agent called sys.exit('bye')",
    ),
    "SystemExit in an async generator": (
        """
        async def agent(request):
            yield "o"
            if request.user_content.content == "boom":
                raise SystemExit(4)
            yield "k"
        """,
        "agent failed on invocation 1 of 1 (i1): SystemExit: the agent called sys.exit(4)",
    ),
    "KeyboardInterrupt in a sync generator": (
        """
        def agent(request):
            yield "o"
            if request.user_content.content == "boom":
                raise KeyboardInterrupt
            yield "k"
        """,
        "agent failed on invocation 1 of 1 (i1): KeyboardInterrupt: raised by the agent",
    ),
    "KeyboardInterrupt in an async generator": (
        """
        async def agent(request):
            yield "o"
            if request.user_content.content == "boom":
                raise KeyboardInterrupt
            yield "k"
        """,
        "agent failed on invocation 1 of 1 (i1): KeyboardInterrupt: raised by the agent",
    ),
    "an exception whose __str__ raises": (
        """
        async def agent(request):
            if request.user_content.content == "boom":
                raise Unprintable()
            return "ok"
        """,
        "agent failed on invocation 1 of 1 (i1): Unprintable: <message unavailable: str() raised RuntimeError: "
        "no message for you>",
    ),
    "a tool result nested 250 deep": (
        """
        async def agent(request):
            if request.user_content.content == "boom":
                return {"final_response": "ok", "tools": [{"name": "t", "arguments": {}, "result": deep(250)}]}
            return "ok"
        """,
        "agent failed on invocation 1 of 1 (i1): agent output tools[0].result is nested more than 100 levels deep; "
        "results are limited to 100 levels of JSON nesting",
    ),
    "an async agent blocking the event loop with time.sleep": (
        """
        async def agent(request):
            if request.user_content.content == "boom":
                time.sleep(60)
            return "ok"
        """,
        "inference timed out after 1 s: the agent blocked the event loop on invocation 1 of 1 (i1)",
    ),
    "an async agent in a busy loop that catches Exception": (
        """
        async def agent(request):
            if request.user_content.content == "boom":
                while True:
                    try:
                        sum(range(1000))
                    except Exception:
                        pass
            return "ok"
        """,
        "inference timed out after 1 s: the agent blocked the event loop on invocation 1 of 1 (i1)",
    ),
}


def _case(eval_id: str, text: str) -> dict[str, Any]:
    return {
        "evalId": eval_id,
        "conversation": [
            {
                "invocationId": "i1",
                "userContent": {"role": "user", "content": text},
                "finalResponse": {"role": "assistant", "content": "ok"},
            }
        ],
    }


def write_project(tmp_path: Path, agent_source: str) -> tuple[Path, Path]:
    """An agent file and a two-case eval set (``bad`` says boom, ``good`` does not) with an exact-match metric."""
    agent = tmp_path / "agent.py"
    agent.write_text(PRELUDE + textwrap.dedent(agent_source))
    eval_set = tmp_path / "faults.evalset.json"
    eval_set.write_text(json.dumps({"evalSetId": "faults", "evalCases": [_case("bad", "boom"), _case("good", "hi")]}))
    (tmp_path / "faults.metrics.json").write_text(json.dumps([{"metricName": "response_match_score", "threshold": 1}]))
    return agent, eval_set


def run_cli(*args: str | Path, cwd: Path | None = None, timeout: float = 30) -> subprocess.CompletedProcess[str]:
    """``agentgauge ARGS`` in a fresh interpreter."""
    command = [sys.executable, "-c", "from agentgauge.cli import main; main()", *map(str, args)]
    return subprocess.run(command, capture_output=True, text=True, timeout=timeout, cwd=cwd)


@pytest.mark.parametrize("kind", list(AGENTS))
def test_fault_fails_only_its_case_and_the_result_is_saved(tmp_path: Path, kind: str) -> None:
    source, message = AGENTS[kind]
    agent, eval_set = write_project(tmp_path, source)
    out = tmp_path / "out"
    done = run_cli("eval", agent, eval_set, "--output-dir", out, "--timeout", "1")
    assert done.returncode == 1, done.stderr
    assert "Traceback" not in done.stderr
    [saved] = sorted(out.rglob("*.evalset_result.json"))
    cases = {c["evalId"]: c for c in json.loads(saved.read_text())["evalCaseResults"]}
    assert cases["good"]["finalEvalStatus"] == "passed"
    assert cases["bad"]["finalEvalStatus"] == "error"
    assert cases["bad"]["errorMessage"] == message
    assert message in done.stdout  # the summary lists the error too


def test_nesting_up_to_the_limit_is_kept(tmp_path: Path) -> None:
    agent, eval_set = write_project(
        tmp_path,
        """
        async def agent(request):
            return {"final_response": "ok", "tools": [{"name": "t", "arguments": deep(99), "result": deep(100)}]}
        """,
    )
    out = tmp_path / "out"
    done = run_cli("eval", agent, eval_set, "--output-dir", out, "--json")
    assert done.returncode == 0, done.stderr
    [saved] = sorted(out.rglob("*.evalset_result.json"))
    result = json.loads(saved.read_text())
    assert result == json.loads(done.stdout)
    tool = result["evalCaseResults"][0]["evalMetricResultPerInvocation"][0]["actualInvocation"]["tools"][0]
    depth, value = 0, tool["result"]
    while isinstance(value, list):
        depth, value = depth + 1, value[0]
    assert depth == 100
