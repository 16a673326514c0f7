"""``agentgauge eval`` with remote agents, end to end in a fresh interpreter: ADK's HTTP API, a plain service with
``--agent-config`` and ``--agent-header``, faults, tool-mock notes and refused option combinations."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from _fault_service import SECRET_IN_BODY
from _plain_service import PLAIN_CONFIG
from _servers import CALCULATOR

CALC_SET = CALCULATOR / "calculator.evalset.json"


def run_cli(*args: str | Path, cwd: Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """``agentgauge ARGS`` in a fresh interpreter."""
    command = [sys.executable, "-c", "from agentgauge.cli import main; main()", *map(str, args)]
    return subprocess.run(
        command, capture_output=True, text=True, timeout=120, cwd=cwd, env={**os.environ, **(env or {})}
    )


def _result_files(folder: Path) -> list[Path]:
    return sorted(folder.rglob("*.evalset_result.json"))


def test_eval_over_adks_http_api(adk_server: str, tmp_path: Path) -> None:
    done = run_cli("eval", f"adk+http://{adk_server}/apps/calculator_adk", CALC_SET, "--json", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    json.loads(done.stdout)  # the --json document
    assert "Cases: 6 passed, 0 failed, 0 error" in done.stderr
    (result,) = _result_files(tmp_path)
    cases = json.loads(result.read_text())["evalCaseResults"]
    assert len(cases) == 6 and not any("errorMessage" in case for case in cases)


def _fault_set(folder: Path, texts: list[str], *, mock: bool = False, replay: bool = False) -> Path:
    cases = []
    for text in texts:
        invocation: dict[str, Any] = {"userContent": {"role": "user", "content": text}}
        if mock:
            invocation["toolMock"] = {"actual": [{"name": "calculator", "result": {"result": 0}}]}
            if replay and text == "ok":
                invocation["toolMock"]["replay"] = "strict"
        cases.append({"evalId": text.replace(" ", "_"), "conversation": [invocation]})
    path = folder / "faults.evalset.json"
    path.write_text(json.dumps({"evalSetId": "faults", "evalCases": cases}))
    (folder / "faults.metrics.json").write_text("[]")
    return path


def test_a_failing_case_has_one_clear_message_and_the_others_go_on(fault_server: str, tmp_path: Path) -> None:
    eval_set = _fault_set(tmp_path, ["ok", "status 500", "truncated"])
    config = tmp_path / "remote.json"
    config.write_text(json.dumps({"retries": 1, "backoff": 0, "headers": {"X-Api-Key": SECRET_IN_BODY}}))
    done = run_cli(
        "eval", f"adk+http://{fault_server}/adk/apps/faulty", eval_set, "--agent-config", config,
        "--print-detailed-results", cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 1, done.stderr
    output = done.stdout + done.stderr
    assert f"adk+http agent: POST http://{fault_server}/adk/run_sse: HTTP 500: body: " in output
    assert "event stream ended in the middle of an event" in output
    (result,) = _result_files(tmp_path)
    saved = result.read_text()
    assert SECRET_IN_BODY not in output and SECRET_IN_BODY not in saved  # the echoed key is masked everywhere
    statuses = {c["evalId"]: c for c in json.loads(saved)["evalCaseResults"]}
    assert statuses["ok"].get("errorMessage") is None
    assert "***" in statuses["status_500"]["errorMessage"]


def test_plain_service_with_config_and_env_header(plain_server: str, tmp_path: Path) -> None:
    config = tmp_path / "agent.json"
    config.write_text(json.dumps(PLAIN_CONFIG))
    done = run_cli(
        "eval", f"http://{plain_server}", CALC_SET, "--agent-config", config,
        "--agent-header", "Authorization: Bearer ${R1_CLI_TOKEN}", cwd=tmp_path,
        env={"R1_CLI_TOKEN": "cli-token-0123456789"},
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    assert "6 passed" in done.stdout + done.stderr


def test_a_missing_header_variable_is_bad_input(plain_server: str, tmp_path: Path) -> None:
    config = tmp_path / "agent.json"
    config.write_text(json.dumps(PLAIN_CONFIG))
    env = {k: v for k, v in os.environ.items() if k != "R1_UNSET"}
    command = [sys.executable, "-c", "from agentgauge.cli import main; main()", "eval", f"http://{plain_server}"]
    args = [str(CALC_SET), "--agent-config", str(config), "--agent-header", "X-Token: ${R1_UNSET}"]
    done = subprocess.run([*command, *args], capture_output=True, text=True, timeout=60, cwd=tmp_path, env=env)
    assert done.returncode == 2
    assert done.stderr.strip() == "error: header 'X-Token': environment variable R1_UNSET is not set"
    assert not _result_files(tmp_path)


@pytest.mark.parametrize(
    ("replay", "note"),
    [
        (False, "note: tool mocks of 1 case(s) do not apply: the remote agent runs its tools on its server"),
        (
            True,
            "note: tool mocks of 2 case(s) do not apply (1 replay case(s) cannot be served from their recording): "
            "the remote agent runs its tools on its server",
        ),
    ],
)
def test_tool_mocks_get_one_note_before_the_run(fault_server: str, tmp_path: Path, replay: bool, note: str) -> None:
    eval_set = _fault_set(tmp_path, ["ok", "ok too"] if replay else ["ok"], mock=True, replay=replay)
    more = ["--replay"] if replay else []
    done = run_cli("eval", f"adk+http://{fault_server}/adk/apps/faulty", eval_set, *more, cwd=tmp_path)
    lines = [line for line in (done.stdout + done.stderr).splitlines() if "tool mocks" in line]
    assert lines == [note]


@pytest.mark.parametrize(
    ("args", "error"),
    [
        (
            [str(CALCULATOR / "agent.py"), str(CALC_SET), "--agent-header", "X: y"],
            "error: --agent-header, --agent-config, --agent-timeout, --agent-max-response-mb and "
            "--agent-follow-redirects apply to remote agents",
        ),
        (["http://127.0.0.1:1/chat", str(CALC_SET)], "needs --agent-config FILE"),
        (
            ["http://127.0.0.1:1/chat", str(CALC_SET), "--agent-config", "nope.json"],
            "nope.json: agent config file not found",
        ),
        (["adk+http://127.0.0.1:1/x", str(CALC_SET)], "adk+http://HOST:PORT[/PREFIX]/apps/APP_NAME"),
        (["--traces", "t.json", "--agent-header", "X: y"], "apply to agent runs, not to --traces"),
    ],
)
def test_refused_combinations(tmp_path: Path, args: list[str], error: str) -> None:
    done = run_cli("eval", *args, cwd=tmp_path)
    assert done.returncode == 2, done.stdout + done.stderr
    assert error in done.stderr


def test_pytest_plugin_with_a_remote_agent(plain_server: str, tmp_path: Path) -> None:
    config = tmp_path / "agent.json"
    config.write_text(json.dumps(PLAIN_CONFIG))
    (tmp_path / "evals").mkdir()
    for name in ("calculator.evalset.json", "calculator.metrics.json"):
        (tmp_path / "evals" / name).write_text((CALCULATOR / name).read_text())
    command = [
        sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "evals",
        "--agentgauge-agent", f"http://{plain_server}", "--agentgauge-agent-config", "agent.json",
        "--agentgauge-agent-header", "Authorization: Bearer ${R1_PYTEST_TOKEN}",
    ]  # fmt: skip
    env = {**os.environ, "R1_PYTEST_TOKEN": "pytest-token-0123456789"}
    done = subprocess.run(command, capture_output=True, text=True, timeout=120, cwd=tmp_path, env=env)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "6 passed" in done.stdout
