"""``agentgauge eval URL`` against hostile and absent servers, in a fresh interpreter: an agent that is not there
stops the command before any case (exit 2, nothing saved), a 100 MB answer is refused holding bounded memory, an
endless stream ends at ``--agent-timeout``, and ``--agent-follow-redirects`` follows without the headers."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from _hostile_servers import PLAIN_CONFIG, HostileServer
from _servers import free_port
from test_remote_cli import run_cli
from test_remote_hostile import LABELS, SCHEMES, SECRET, spec


def _one_case_set(folder: Path) -> Path:
    path = folder / "hostile.evalset.json"
    turn = {
        "userContent": {"role": "user", "content": "hello"},
        "finalResponse": {"role": "assistant", "content": "fine"},
    }
    path.write_text(json.dumps({"evalSetId": "hostile", "evalCases": [{"evalId": "hello", "conversation": [turn]}]}))
    (folder / "hostile.metrics.json").write_text(json.dumps([{"metricName": "response_match_score", "threshold": 0.9}]))
    return path


def _results(folder: Path) -> list[Path]:
    return sorted(folder.rglob("*.evalset_result.json"))


def _plain_config(folder: Path) -> Path:
    config = folder / "plain.json"
    config.write_text(json.dumps(PLAIN_CONFIG))
    return config


@pytest.mark.parametrize("scheme", SCHEMES)
def test_an_agent_that_is_not_there_stops_the_command_before_any_case(scheme: str, tmp_path: Path) -> None:
    address = f"127.0.0.1:{free_port()}"
    # a2a keeps the default retries (2 more attempts, 0.5 s then 1 s apart); the others do not retry.
    config = tmp_path / "remote.json"
    config.write_text(json.dumps({**(PLAIN_CONFIG if scheme == "plain" else {}), "retries": 0}))
    options = [] if scheme == "a2a" else ["--agent-config", str(config)]
    done = run_cli("eval", spec(scheme, address), _one_case_set(tmp_path), *options, cwd=tmp_path)
    assert done.returncode == 2, done.stderr
    (line,) = done.stderr.strip().splitlines()
    assert re.match(rf"error: {re.escape(LABELS[scheme])} agent: GET http://{address}/\S*: cannot connect", line)
    assert line.endswith("(checked before the first case; nothing was run)")
    assert ("after 3 attempts" in line) is (scheme == "a2a")
    assert not _results(tmp_path) and "Cases:" not in done.stdout + done.stderr


_PEAK_RSS = (
    "import resource, subprocess, sys; "
    "done = subprocess.run(sys.argv[1:], capture_output=True, text=True, timeout=120); "
    "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, done.returncode); "
    "sys.stderr.write(done.stdout + done.stderr)"
)


def _eval_peak_rss(args: list[str], cwd: Path) -> tuple[float, int, str]:
    """Peak RSS (MB) and exit code of ``agentgauge eval ARGS``, the only child of a fresh interpreter."""
    command = [sys.executable, "-c", "from agentgauge.cli import main; main()", "eval", *args]
    done = subprocess.run(
        [sys.executable, "-c", _PEAK_RSS, *command], capture_output=True, text=True, timeout=180, cwd=cwd
    )
    kilobytes, code = done.stdout.split()
    return int(kilobytes) / 1024, int(code), done.stderr


def test_a_100_mb_answer_is_refused_at_the_limit_with_bounded_memory(
    hostile: tuple[HostileServer, HostileServer], tmp_path: Path
) -> None:
    home, _ = hostile
    common = [str(_one_case_set(tmp_path)), "--agent-config", str(_plain_config(tmp_path)), "--output-dir"]
    small, code, output = _eval_peak_rss([f"http://{home.address}/chat", *common, "small"], tmp_path)
    assert code == 0, output
    url = f"http://{home.address}/huge/100000000/chat"
    peak, code, output = _eval_peak_rss([url, *common, "huge", "--agent-max-response-mb", "32"], tmp_path)
    assert code == 1, output
    (result,) = _results(tmp_path / "huge")
    error = json.loads(result.read_text())["evalCaseResults"][0]["errorMessage"]
    assert error.endswith("the answer is larger than the 32 MB limit (--agent-max-response-mb, maxResponseMb)")
    # Read whole, the answer alone would take 100 MB as bytes and as much again as text; at the limit the client
    # holds at most 32 MB of it. Generous: 3x the limit over the same command's peak with a small answer.
    assert peak < small + 96, (peak, small)


def test_an_endless_stream_ends_at_the_agent_timeout(
    hostile: tuple[HostileServer, HostileServer], tmp_path: Path
) -> None:
    home, _ = hostile
    url = spec("agui", home.address, "/endless/0")
    done = run_cli("eval", url, _one_case_set(tmp_path), "--agent-timeout", "1", cwd=tmp_path)
    assert done.returncode == 1, done.stderr
    (result,) = _results(tmp_path)
    error = json.loads(result.read_text())["evalCaseResults"][0]["errorMessage"]
    assert error.endswith("no complete answer within the 1 s turn limit (--agent-timeout, turnTimeout)")


def test_follow_redirects_on_the_command_line_sends_no_header_away(
    hostile: tuple[HostileServer, HostileServer], tmp_path: Path
) -> None:
    home, away = hostile
    before = len(away.seen)
    url = spec("adk", home.address, "/to-away/307")
    header = ["--agent-header", f"X-Api-Key: {SECRET}"]
    done = run_cli("eval", url, _one_case_set(tmp_path), *header, "--agent-follow-redirects", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    reached = away.headers_seen()[before:]
    assert reached and not [value for headers in reached for value in headers.values() if SECRET in value]


@pytest.mark.parametrize(
    ("option", "value"), [("--agent-timeout", "0"), ("--agent-max-response-mb", "nan"), ("--agent-timeout", "1e9")]
)
def test_limits_out_of_range_exit_2_naming_the_option(option: str, value: str, tmp_path: Path) -> None:
    done = run_cli("eval", "a2a+http://127.0.0.1:9", _one_case_set(tmp_path), option, value, cwd=tmp_path)
    assert done.returncode == 2
    assert done.stderr.strip().startswith(f"error: {option} must be a positive number of at most ")


def test_the_pytest_plugin_takes_the_same_limits(hostile: tuple[HostileServer, HostileServer], tmp_path: Path) -> None:
    home, _ = hostile
    (tmp_path / "evals").mkdir()
    _one_case_set(tmp_path / "evals")
    config = _plain_config(tmp_path)
    command = [
        sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "evals",
        "--agentgauge-agent", f"http://{home.address}/huge/3000000/chat", "--agentgauge-agent-config", str(config),
        "--agentgauge-agent-max-response-mb", "1",
    ]  # fmt: skip
    done = subprocess.run(command, capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "the answer is larger than the 1 MB limit (--agent-max-response-mb, maxResponseMb)" in done.stdout
    refused = subprocess.run(
        [*command[:-2], "--agentgauge-agent-timeout", "0"], capture_output=True, text=True, cwd=tmp_path
    )
    assert (
        "--agentgauge-agent-timeout must be a positive number of at most 86400, got 0"
        in refused.stdout + refused.stderr
    )
