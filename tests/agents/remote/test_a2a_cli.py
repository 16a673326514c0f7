"""``agentgauge eval a2a+http://...`` end to end in a fresh interpreter: ``--agent-header`` with ``${ENV}`` reaches the
A2A server through the SDK client, a failing case has one message with the secret masked, the others go on."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from _a2a_servers import SECRET_IN_BODY, fault_app
from _servers import require, serving


@pytest.fixture(scope="module")
def faults() -> Iterator[str]:
    """``HOST:PORT`` of the A2A fault server."""
    require("a2a.client")
    require("uvicorn")
    with serving(fault_app) as address:
        yield address


def test_eval_over_a2a_with_a_secret_header(faults: str, tmp_path: Path) -> None:
    cases = [
        {"evalId": eval_id, "conversation": [{"userContent": {"role": "user", "content": text},
                                              "finalResponse": {"role": "assistant", "content": "fine"}}]}
        for eval_id, text in (("good", "ok"), ("broken", "status 502"))
    ]  # fmt: skip
    eval_set = tmp_path / "a2a.evalset.json"
    eval_set.write_text(json.dumps({"evalSetId": "a2a", "evalCases": cases}))
    (tmp_path / "a2a.metrics.json").write_text(json.dumps({"criteria": {"response_match_score": 1.0}}))
    command = [sys.executable, "-c", "from agentgauge.cli import main; main()", "eval", f"a2a+http://{faults}",
               str(eval_set), "--agent-header", "X-Api-Key: ${R2_A2A_KEY}", "--json"]  # fmt: skip
    env = {**os.environ, "R2_A2A_KEY": SECRET_IN_BODY}
    done = subprocess.run(command, capture_output=True, text=True, timeout=180, cwd=tmp_path, env=env)
    assert done.returncode == 1, done.stderr  # a case in error fails the run
    result = json.loads(done.stdout)
    outcome = {c["evalId"]: (c["finalEvalStatus"], c.get("errorMessage")) for c in result["evalCaseResults"]}
    assert outcome["good"] == ("passed", None)
    assert outcome["broken"] == (
        "error",
        f"agent failed on invocation 1 of 1: a2a+http agent: POST http://{faults}/: HTTP 502: "
        """body: '{"detail":"failing on purpose, token=***"}'""",
    )
    saved = "".join(path.read_text() for path in tmp_path.rglob("*.evalset_result.json"))
    for text in (done.stdout, done.stderr, saved):
        assert SECRET_IN_BODY not in text
    seen = httpx.get(f"http://{faults}/seen").json()
    assert seen["attempts"]["status 502"] == 3  # retried twice
    assert seen["x-api-key"] == SECRET_IN_BODY  # the header reached the server through the SDK client
