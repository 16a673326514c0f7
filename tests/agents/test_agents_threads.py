"""Blocking sync agents run in daemon threads: a hung agent fails its case and never keeps the process alive."""

from __future__ import annotations

import asyncio
import contextvars
import subprocess
import sys
import textwrap
import threading

import pytest

from agentgauge.agents._threads import run_in_daemon_thread

_VAR: contextvars.ContextVar[str] = contextvars.ContextVar("_VAR", default="unset")


async def test_result_exception_and_context_come_back() -> None:
    _VAR.set("from caller")

    def work(x: int) -> tuple[int, str, bool]:
        return x * 2, _VAR.get(), threading.current_thread().daemon

    assert await run_in_daemon_thread(work, 21) == (42, "from caller", True)

    def boom() -> None:
        raise ValueError("agent broke")

    with pytest.raises(ValueError, match="agent broke"):
        await run_in_daemon_thread(boom)


async def test_cancelled_wait_leaves_the_thread_alone() -> None:
    release = threading.Event()
    with pytest.raises(TimeoutError):
        await asyncio.wait_for(run_in_daemon_thread(release.wait), timeout=0.05)
    release.set()  # the late result is dropped without touching the cancelled future


def test_hung_sync_agent_fails_its_case_and_the_process_exits(tmp_path: object) -> None:
    script = textwrap.dedent(
        """
        import threading
        from agentgauge import AgentEvaluator
        from agentgauge.model import EvalCase, EvalMetric, EvalSet, Invocation, Message
        from agentgauge.storage import InMemoryEvalResultManager, InMemoryEvalSetManager, InMemoryMetricManager

        def agent(request):
            if "hang" in request.user_content.content:
                threading.Event().wait()  # never returns
            return "ok"

        def case(eval_id, text):
            return EvalCase(eval_id=eval_id, conversation=[Invocation(
                user_content=Message(role="user", content=text),
                final_response=Message(role="assistant", content="ok"))])

        sets, metrics = InMemoryEvalSetManager(), InMemoryMetricManager()
        sets.put("app", EvalSet(eval_set_id="s", eval_cases=[case("fine", "hi"), case("stuck", "hang")]))
        metrics.put_all("app", "s", [EvalMetric(metric_name="response_match_score", threshold=0.5)])
        result = AgentEvaluator("app", agent, eval_set_manager=sets, metric_manager=metrics,
                                result_manager=InMemoryEvalResultManager(), timeout=0.2).evaluate_sync("s")
        by_id = {c.eval_id: c for c in result.eval_set_result.eval_case_results}
        print(by_id["fine"].final_eval_status.value, by_id["stuck"].final_eval_status.value)
        print(by_id["stuck"].error_message)
        """
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    first, second = done.stdout.splitlines()[:2]
    assert first == "passed error"  # an agent that never answers is an error, not a wrong answer
    assert "timed out" in second
