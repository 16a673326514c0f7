"""User text reaches the terminal with its control characters escaped: an id, an agent's answer or error, or a
file name holding ``ESC[31m`` or ``ESC]0;title BEL`` must not colour, retitle or clear the terminal."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

from rich.console import Console
from typer.testing import CliRunner

from agentgauge.cli import app
from agentgauge.errors import printable
from agentgauge.formats import load_result
from agentgauge.reporting import print_summary

runner = CliRunner()

RED = "\x1b[31m"
TITLE = "\x1b]0;title\x07"
CSI8 = "\x9b1m"  # the 8-bit (C1) form of CSI
CONTROLS = ("\x1b", "\x07", "\x9b")


def _clean(text: str) -> None:
    for char in CONTROLS:
        assert char not in text, repr(text)


def _case(eval_id: str, answer: str) -> dict[str, Any]:
    return {
        "evalId": eval_id,
        "conversation": [{"userContent": {"content": "q"}, "finalResponse": {"content": answer}}],
    }


def _run(*args: str) -> Any:
    result = runner.invoke(app, list(args))
    _clean(result.stdout)
    _clean(result.stderr)
    return result


def test_an_agent_answer_and_error_are_escaped_in_the_summary_and_details(tmp_path: Path) -> None:
    (tmp_path / "agent.py").write_text(
        "def agent(request):\n"
        "    if request.user_content.content == 'boom':\n"
        f"        raise ValueError({'boom ' + RED + 'red'!r})\n"
        f"    return {'echo: ' + TITLE + ' ' + CSI8 + ' done'!r}\n"
    )
    cases = [
        _case("answer", "echo: q"),
        {**_case("error", "x"), "conversation": [{"userContent": {"content": "boom"}}]},
    ]
    (tmp_path / "s.evalset.json").write_text(json.dumps({"evalSetId": "s", "evalCases": cases}))
    (tmp_path / "s.metrics.json").write_text(json.dumps([{"metricName": "response_match_score", "threshold": 0.9}]))
    out = tmp_path / "out"
    result = _run("eval", str(tmp_path / "agent.py"), str(tmp_path / "s.evalset.json"), "--output-dir", str(out),
                  "--print-detailed-results")  # fmt: skip
    assert result.exit_code == 1, result.output
    assert "boom \\x1b[31mred" in result.stdout  # shown, escaped
    assert "\\x9b1m" in result.stdout
    saved = load_result(next(out.rglob("*.evalset_result.json")))  # the result keeps the text as it was
    errors = [case.error_message for case in saved.eval_case_results if case.error_message]
    assert any(RED in error for error in errors)


def _result_file(tmp_path: Path) -> Path:
    metric = {"metricName": "response_match_score", "score": 0.0, "threshold": 0.9, "evalStatus": "failed"}
    invocation = {"userContent": {"content": "q"}, "finalResponse": {"content": "a " + TITLE}}
    case = {
        "evalSetId": RED + "set",
        "evalId": RED + "red",
        "finalEvalStatus": "failed",
        "overallEvalMetricResults": [metric],
        "evalMetricResultPerInvocation": [
            {"actualInvocation": invocation, "expectedInvocation": invocation, "evalMetricResults": [metric]}
        ],
    }
    document = {"evalSetResultId": "r1", "evalSetId": RED + "set", "evalCaseResults": [case]}
    path = tmp_path / "r1.evalset_result.json"
    path.write_text(json.dumps(document))
    return path


def test_ids_and_texts_of_a_result_file_are_escaped_by_show(tmp_path: Path) -> None:
    path = _result_file(tmp_path)
    for extra in ([], ["--print-detailed-results"]):
        result = _run("show", str(path), *extra)
        assert result.exit_code == 1, result.output
        assert "\\x1b[31mred" in result.stdout and "\\x1b[31mset" in result.stdout


def test_an_error_naming_a_file_with_control_characters_is_escaped(tmp_path: Path) -> None:
    missing = tmp_path / f"x{RED}.evalset.json"
    result = _run("eval", str(tmp_path / "agent.py"), str(missing))
    assert result.exit_code == 2
    assert result.stderr.startswith("error: ")


def test_print_summary_escapes_user_text_on_a_console_of_the_caller(tmp_path: Path) -> None:
    buffer = io.StringIO()
    console = Console(file=buffer, force_terminal=True, width=120)  # styled: rich writes its own ESC sequences
    print_summary(load_result(_result_file(tmp_path)), console=console, detailed=True)
    shown = buffer.getvalue()
    assert RED + "red" not in shown and TITLE not in shown and "\x07" not in shown
    assert "\\x1b[31mred" in shown
    assert "\x1b[" in shown  # rich's own styling is still there
    console.print("caller's own " + RED + "text", highlight=False)  # the caller's console is left as it was
    assert ("caller's own " + RED + "text") in buffer.getvalue()


def test_printable_escapes_controls_and_keeps_line_breaks_in_texts() -> None:
    assert printable("a" + RED + "b\x07\n\tc" + CSI8 + "\x7f") == "a\\x1b[31mb\\x07\n\tc\\x9b1m\\x7f"
    assert printable("line\r\nnext") == "line\nnext"
    assert printable("id\nwith\tbreaks", lines=False) == "id\\nwith\\tbreaks"
    assert printable("plain text, é, 漢字") == "plain text, é, 漢字"
