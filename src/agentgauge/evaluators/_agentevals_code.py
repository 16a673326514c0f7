"""agentevals' Python code evaluators as agentgauge plug-ins.

An agentevals ``type: code`` evaluator is a script that reads one JSON ``EvalInput`` on stdin (protocol 1.1:
``metric_name``, ``threshold``, ``config``, ``invocations`` and ``expected_invocations``, each invocation with
``user_content``, ``final_response`` and ``intermediate_steps.tool_calls`` / ``tool_responses``) and prints one
JSON ``EvalResult`` (``score`` 0..1, optional ``status``, ``per_invocation_scores``, ``details``). agentgauge runs
it with the current Python (so ``agentevals-evaluator-sdk`` must be installed there when the script uses it), one
process per case and metric, and maps the answer to a metric result: the status is the script's, else score vs
threshold; ``details`` become the reason.
"""

from __future__ import annotations

import asyncio
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ..model import EvalMetric, EvalStatus, Invocation, status_for_score
from ._base import EvaluateResult, EvaluatorError, NamedEvaluator, PerInvocationResult

__all__ = ["PROTOCOL_VERSION", "AgentevalsCodeEvaluator", "invocation_data"]

PROTOCOL_VERSION = "1.1"
"""The agentevals evaluator protocol version written into each input."""

_STATUSES = {"PASSED": EvalStatus.PASSED, "FAILED": EvalStatus.FAILED, "NOT_EVALUATED": EvalStatus.NOT_EVALUATED}


def _json_text(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    return json.dumps(value, sort_keys=True, default=str)


def invocation_data(invocation: Invocation) -> dict[str, Any]:
    """One invocation in agentevals' ``InvocationData`` form."""
    calls = [
        {"name": t.name, "args": t.arguments if isinstance(t.arguments, dict) else {"value": t.arguments}, "id": t.id}
        for t in invocation.tools
    ]
    responses = [
        {"name": t.name, "output": _json_text(t.result), "id": t.id, "response": t.result}
        for t in invocation.tools
        if t.result is not None
    ]
    final = invocation.final_response.content if invocation.final_response is not None else None
    return {
        "invocation_id": invocation.invocation_id,
        "user_content": invocation.user_content.content,
        "final_response": final,
        "intermediate_steps": {"tool_calls": calls, "tool_responses": responses},
    }


class AgentevalsCodeEvaluator(NamedEvaluator):
    """Runs one agentevals code evaluator script (``path``) with its ``config`` and ``timeout`` (seconds)."""

    needs_expected = False
    needs_judge = False

    def __init__(self, name: str, path: Path, *, config: dict[str, Any] | None = None, timeout: float = 30.0) -> None:
        super().__init__(name, f"agentevals code evaluator {path.name}")
        self.path = path
        self.config = dict(config or {})
        self.timeout = timeout

    def _input(self, actuals: Sequence[Invocation], expecteds: Sequence[Invocation], metric: EvalMetric) -> bytes:
        # Expected invocations that carry only the user message (no eval set) are "no expectations" to agentevals.
        has_expected = any(e.final_response is not None or e.tools for e in expecteds)
        document = {
            "protocol_version": PROTOCOL_VERSION,
            "metric_name": metric.metric_name,
            "threshold": metric.threshold,
            "config": self.config,
            "invocations": [invocation_data(a) for a in actuals],
            "expected_invocations": [invocation_data(e) for e in expecteds] if has_expected else None,
        }
        return json.dumps(document, default=str).encode()

    async def _run(self, payload: bytes) -> dict[str, Any]:
        process = await asyncio.create_subprocess_exec(
            sys.executable,
            str(self.path),
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
        )
        try:
            out, err = await asyncio.wait_for(process.communicate(payload), self.timeout)
        except TimeoutError:
            process.kill()
            await process.wait()
            raise EvaluatorError(f"{self.path.name} timed out after {self.timeout:g} s") from None
        if process.returncode != 0:
            tail = err.decode(errors="replace").strip().splitlines()[-1:] or [""]
            raise EvaluatorError(f"{self.path.name} exited with code {process.returncode}: {tail[0]}")
        try:
            answer = json.loads(out.decode(errors="replace").strip())
        except ValueError as exc:
            raise EvaluatorError(f"{self.path.name} printed no JSON result: {exc}") from None
        if not isinstance(answer, dict):
            raise EvaluatorError(f"{self.path.name} printed a JSON {type(answer).__name__}, expected an object")
        return answer

    async def evaluate(
        self, actuals: Sequence[Invocation], expecteds: Sequence[Invocation], metric: EvalMetric
    ) -> EvaluateResult:
        """Run the script on the case and map its ``EvalResult``."""
        answer = await self._run(self._input(actuals, expecteds, metric))
        score = answer.get("score")
        if isinstance(score, bool) or not isinstance(score, int | float) or not 0 <= score <= 1:
            raise EvaluatorError(f"{self.path.name}: score must be a number from 0 to 1 (got {score!r})")
        raw_status = answer.get("status")
        status = _STATUSES.get(str(raw_status).upper()) if raw_status is not None else None
        if raw_status is not None and status is None:
            raise EvaluatorError(f"{self.path.name}: unknown status {raw_status!r}")
        details = answer.get("details")
        reason = json.dumps(details, sort_keys=True, default=str) if details else ""
        scores = answer.get("per_invocation_scores") or []
        per = []
        for index, actual in enumerate(actuals):
            value = scores[index] if index < len(scores) else None
            value = float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None
            expected = expecteds[index] if index < len(expecteds) else None
            per.append(PerInvocationResult(actual, expected, value, status_for_score(value, metric.threshold)))
        overall = status if status is not None else status_for_score(float(score), metric.threshold)
        return EvaluateResult(float(score), overall, per, reason=reason)
