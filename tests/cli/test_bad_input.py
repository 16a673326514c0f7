"""Bad input in every command: one ``error:`` line naming the file and the JSON path, exit code 2, nothing written.

One test per defect found by ``benchmarks/fuzz_cli.py``: nesting beyond the depth limit, ADK ids that are not
strings, an empty evalSetId, FIFOs and unreadable files, huge values echoed in messages, result names too long for the
file system, an unbounded ``--num-runs``, and a UTF-8 byte order mark.
"""

from __future__ import annotations

import copy
import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from agentgauge.cli import app
from agentgauge.formats._jsonio import MAX_DEPTH

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"
CALC_AGENT = str(EXAMPLES / "calculator" / "agent.py")
CALC_SET = EXAMPLES / "calculator" / "calculator.evalset.json"
CALC_METRICS = EXAMPLES / "calculator" / "calculator.metrics.json"
RESULT = EXAMPLES / "math_basic" / "math-eval-app_math-basic_538cdf6e-925d-41cf-943b-2849982b195e.evalset_result.json"
LEGACY = EXAMPLES / "legacy" / "home_automation.test.json"
SESSION = EXAMPLES / "legacy" / "initial.session.json"
DICE = EXAMPLES / "dice_prime" / "multi_turn_eval.evalset.json"
runner = CliRunner()


def _run(*args: str | Path) -> Any:
    return runner.invoke(app, [str(a) for a in args])


def _load(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


def _write(path: Path, doc: Any) -> Path:
    text = re.sub(r'"<nest (\d+)>"', lambda m: "[" * int(m[1]) + "1" + "]" * int(m[1]), json.dumps(doc))
    path.write_text(text, encoding="utf-8")
    return path


def _nest(levels: int) -> str:
    """A placeholder that :func:`_write` replaces with ``levels`` nested arrays (json.dumps would recurse)."""
    return f"<nest {levels}>"


def _only_error_line(res: Any) -> str:
    assert res.exit_code == 2, res.output
    assert "Traceback" not in res.output and "Usage:" not in res.output
    lines = res.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), res.stderr
    return str(lines[0])


def _trace_set(tmp_path: Path, name: str = "calc.evalset.json") -> tuple[Path, dict[str, Any]]:
    doc = _load(CALC_SET)
    for case in doc["evalCases"]:
        case["evalMode"] = "trace"
        case["actualConversation"] = case["conversation"]
    return tmp_path / name, doc


# --- depth limit ------------------------------------------------------------------------------------------------


def _deep_calc_set(tmp_path: Path, levels: int) -> Path:
    """The calculator set (trace mode) with tool arguments making the document ``levels`` deep in all."""
    path, doc = _trace_set(tmp_path)
    # {"evalCases": [{"conversation": [{"tools": [{"arguments": {"x": <value>}}]}]}]}: 8 containers around value
    doc["evalCases"][0]["conversation"][0]["tools"][0]["arguments"]["x"] = _nest(levels - 8)
    return _write(path, doc)


def test_the_depth_limit_is_exact_and_every_command_names_file_and_path(tmp_path: Path) -> None:
    at_limit = _deep_calc_set(tmp_path, MAX_DEPTH)
    assert _run("validate", at_limit).exit_code == 0
    res = _run("eval", at_limit, "--config", CALC_METRICS, "--output-dir", tmp_path / "ok")
    assert res.exit_code == 0, res.output
    over = _deep_calc_set(tmp_path, MAX_DEPTH + 1)
    out = tmp_path / "out"
    for args in (
        ["validate", over],
        ["convert", over, out / "x.json"],
        ["convert", over, out / "x.json", "--to", "adk"],
        ["eval", over, "--output-dir", out],
        ["eval", CALC_AGENT, over, "--output-dir", out],
    ):
        line = _only_error_line(_run(*args))
        assert line.startswith(f"error: {over}: evalCases[0].conversation[0].tools[0].arguments.x[0][0]"), line
        assert line.endswith(f": nested deeper than {MAX_DEPTH} levels of arrays and objects")
        assert len(line) < 400
    assert not out.exists()


def test_convert_never_writes_a_file_too_deep_to_read_back(tmp_path: Path) -> None:
    at_limit = _deep_calc_set(tmp_path, MAX_DEPTH)  # the ADK form wraps tool arguments one level deeper
    res = _run("convert", at_limit, tmp_path / "adk.json", "--to", "adk")
    line = _only_error_line(res)
    assert line.startswith(
        f"error: {at_limit}: cannot write the adk form: it would be nested deeper than {MAX_DEPTH} levels of arrays "
        "and objects at eval_cases[0].conversation[0].intermediate_data.tool_uses[0].args.x[0]"
    ), line
    assert line.endswith("nothing written")
    assert not (tmp_path / "adk.json").exists()
    assert _run("convert", at_limit, tmp_path / "native.json").exit_code == 0
    assert _run("validate", tmp_path / "native.json").exit_code == 0
    below = _deep_calc_set(tmp_path, MAX_DEPTH - 1)
    assert _run("convert", below, tmp_path / "adk.json", "--to", "adk").exit_code == 0
    assert _run("validate", tmp_path / "adk.json").exit_code == 0


@pytest.mark.parametrize("levels", [250, 300, 1100])
def test_deep_extension_in_metrics_is_refused_by_validate_convert_and_eval(tmp_path: Path, levels: int) -> None:
    metrics = _load(CALC_METRICS)
    metrics[0]["extension"] = {"deep": _nest(levels)}
    path = _write(tmp_path / "m.metrics.json", metrics)
    trace, doc = _trace_set(tmp_path)
    _write(trace, doc)
    out = tmp_path / "out"
    for args in (
        ["validate", path],
        ["convert", path, out / "m.json", "--to", "adk"],
        ["eval", trace, "--config", path, "--output-dir", out],
    ):
        line = _only_error_line(_run(*args))
        assert f"error: {path}: " in line and "nested deeper than 200 levels" in line, line
    assert not out.exists()


def test_deep_results_are_refused_by_show_and_convert(tmp_path: Path) -> None:
    doc = _load(RESULT)
    doc["evalCaseResults"][0]["evalMetricResultPerInvocation"][0]["actualInvocation"]["tools"][0]["result"] = {
        "r": _nest(260)
    }
    path = _write(tmp_path / "r.evalset_result.json", doc)
    for args in (["show", path], ["show", path, "--json"], ["convert", path, tmp_path / "o.json", "--to", "adk"]):
        line = _only_error_line(_run(*args))
        assert line.startswith(
            f"error: {path}: evalCaseResults[0].evalMetricResultPerInvocation[0].actualInvocation.tools[0].result.r[0]"
        ), line
    assert not (tmp_path / "o.json").exists()


def test_migrate_refuses_deep_legacy_rows_and_sessions(tmp_path: Path) -> None:
    rows = _load(LEGACY)
    rows[0]["expected_tool_use"][0]["tool_input"]["deep"] = _nest(250)
    legacy = _write(tmp_path / "home.test.json", rows)
    line = _only_error_line(_run("migrate", legacy, tmp_path / "a.json"))
    assert line.startswith(f"error: {legacy}: [0].expected_tool_use[0].tool_input.deep[0]"), line
    session = _load(SESSION)
    session["state"]["deep"] = _nest(250)
    session_file = _write(tmp_path / "s.session.json", session)
    line = _only_error_line(_run("migrate", LEGACY, tmp_path / "b.json", "--initial-session", session_file))
    assert line.startswith(f"error: {session_file}: state.deep[0]"), line
    assert list(tmp_path.glob("*.json")) == sorted([legacy, session_file]) or set(tmp_path.glob("*.json")) == {
        legacy,
        session_file,
    }


# --- ADK ids, empty evalSetId, long names --------------------------------------------------------------------------


@pytest.mark.parametrize("bad_id", [{"a": 1}, [1, 2], 7])
@pytest.mark.parametrize("field", ["tool_responses", "tool_uses"])
def test_adk_tool_ids_that_are_not_strings_are_input_errors(tmp_path: Path, bad_id: Any, field: str) -> None:
    doc = _load(DICE)
    doc["eval_cases"][0]["conversation"][0]["intermediate_data"][field][0]["id"] = bad_id
    path = _write(tmp_path / "dice.evalset.json", doc)
    for args in (["validate", path], ["convert", path, tmp_path / "o.json"]):
        line = _only_error_line(_run(*args))
        where = f"evalCases[0].conversation[0].intermediateData.{field}[0].id"
        assert line.startswith(f"error: {path}: {where}: expected the id as a string (got "), line
    assert not (tmp_path / "o.json").exists()


def test_an_empty_eval_set_id_without_app_name_is_an_input_error(tmp_path: Path) -> None:
    path, doc = _trace_set(tmp_path)
    doc["evalSetId"] = ""
    for case in doc["evalCases"]:
        case.pop("sessionInput", None)
    _write(path, doc)
    res = _run("eval", path, "--config", CALC_METRICS, "--output-dir", tmp_path / "out")
    line = _only_error_line(res)
    assert line.startswith(f"error: {path}: evalSetId: must not be empty"), line
    res = _run("eval", path, "--config", CALC_METRICS, "--output-dir", tmp_path / "out", "--app-name", "calc")
    assert _only_error_line(res).startswith(f"error: {path}: evalSetId: must not be empty")
    assert not (tmp_path / "out").exists()


def test_a_result_name_too_long_for_the_file_system_fails_before_the_run(tmp_path: Path) -> None:
    doc = _load(CALC_SET)
    doc["evalSetId"] = "i" * 240
    path = _write(tmp_path / "long.evalset.json", doc)
    out = tmp_path / "out"
    line = _only_error_line(_run("eval", CALC_AGENT, path, "--output-dir", out))
    assert line.startswith(f"error: {path}: evalSetId: too long: the result file name 'calculator_iii"), line
    assert "over the file system's limit of 255" in line and ".tmp" not in line
    assert not out.exists()


# --- files that are not regular or not readable ----------------------------------------------------------------


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
@pytest.mark.parametrize("command", ["validate", "eval", "show", "convert", "migrate"])
def test_a_fifo_is_refused_at_once(tmp_path: Path, command: str) -> None:
    fifo = tmp_path / "in.evalset.json"
    os.mkfifo(fifo)
    args = [command, str(fifo)] + ([str(tmp_path / "o.json")] if command in ("convert", "migrate") else [])
    code = "from agentgauge.cli import main; import sys; sys.argv[0] = 'agentgauge'; main()"
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    done = subprocess.run(
        [sys.executable, "-c", code, *args], capture_output=True, text=True, timeout=60, env=env, cwd=tmp_path
    )
    assert done.returncode == 2, done.stderr
    assert done.stderr.splitlines() == [f"error: {fifo}: a FIFO, expected a regular JSON file"]
    assert not (tmp_path / "o.json").exists()


def test_an_unreadable_file_gives_an_error_line_not_a_usage_box(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "x.evalset.json"
    path.write_bytes(CALC_SET.read_bytes())
    real_open = os.open

    def deny(file: Any, *args: Any, **kwargs: Any) -> int:
        if os.fspath(file) == str(path):
            raise PermissionError(13, "Permission denied", str(path))
        return real_open(file, *args, **kwargs)

    monkeypatch.setattr(os, "access", lambda *a, **k: False)  # what a non-root user sees for a chmod 000 file
    monkeypatch.setattr(os, "open", deny)
    for args in (
        ["validate", path],
        ["convert", path, tmp_path / "o.json"],
        ["show", path],
        ["eval", CALC_AGENT, CALC_SET, "--config", path, "--output-dir", tmp_path / "out"],
    ):
        line = _only_error_line(_run(*args))
        assert line == f"error: {path}: cannot read file: Permission denied", line


# --- messages, --num-runs, BOM -------------------------------------------------------------------------------------


def test_error_lines_cut_huge_values(tmp_path: Path) -> None:
    metrics = _load(CALC_METRICS)
    metrics[0]["metricName"] = "m" * 2_000_000
    path = _write(tmp_path / "big.metrics.json", metrics)
    trace, doc = _trace_set(tmp_path)
    _write(trace, doc)
    for args in (["validate", path], ["eval", trace, "--config", path, "--output-dir", tmp_path / "out"]):
        line = _only_error_line(_run(*args))
        assert line.startswith(f"error: {path}: [0].metricName: unknown metric 'mmm"), line
        assert "m" * 200 + "…'" in line and "m" * 201 not in line
        assert len(line) < 2000


def test_num_runs_has_a_documented_maximum(tmp_path: Path) -> None:
    for value in ("1001", "100000000000000000000"):
        res = _run("eval", CALC_AGENT, CALC_SET, "--num-runs", value, "--output-dir", tmp_path / "out")
        assert _only_error_line(res) == f"error: --num-runs must be between 1 and 1000, got {value}"
    assert not (tmp_path / "out").exists()


def test_a_utf8_bom_is_accepted_in_every_input(tmp_path: Path) -> None:
    def bom(source: Path, name: str) -> Path:
        target = tmp_path / name
        target.write_bytes(b"\xef\xbb\xbf" + source.read_bytes())
        return target

    files = [
        bom(CALC_SET, "calculator.evalset.json"),
        bom(DICE, "dice.evalset.json"),
        bom(CALC_METRICS, "calc.metrics.json"),
        bom(EXAMPLES / "home_automation" / "test_config.json", "test_config.json"),
        bom(RESULT, "r.evalset_result.json"),
        bom(LEGACY, "home.test.json"),
    ]
    res = _run("validate", *files)
    assert res.exit_code == 0, res.output
    assert len(res.stdout.splitlines()) == len(files)
    assert _run("show", files[4]).exit_code == 0
    session = bom(SESSION, "initial.session.json")
    res = _run("migrate", files[5], tmp_path / "m.json", "--initial-session", session)
    assert res.exit_code == 0, res.output
    res = _run("eval", CALC_AGENT, files[0], "--config", files[2], "--output-dir", tmp_path / "out")
    assert res.exit_code == 0, res.output
    res = _run("convert", files[1], tmp_path / "d.json", "--to", "adk")
    assert res.exit_code == 0, res.output
    assert copy.deepcopy(json.loads((tmp_path / "d.json").read_text()))["eval_set_id"] == "multi_turn_eval"


# --- eval_config.yaml, trace numbers, plan and calibrate options, labels ----------------------------------------

TRACE = EXAMPLES / "traces" / "adk_weather.otlp.jsonl"


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ("evaluators:\n  - name: x\n    type: builtin\n".encode("utf-16"), "is UTF-16 text: save it as UTF-8"),
        (b"evaluators:\n  - name: \xff\xfe\n", "line 2: not UTF-8 text: byte 0xff"),
        (("a: " + "[" * 1100 + "]" * 1100).encode(), "line 1: nested deeper than 200 levels"),
    ],
)
def test_an_eval_config_yaml_that_is_not_utf8_or_too_deep_is_one_error_line(
    tmp_path: Path, data: bytes, message: str
) -> None:
    config = tmp_path / "eval_config.yaml"
    config.write_bytes(data)
    line = _only_error_line(_run("eval", "--traces", TRACE, "--metrics", config, "--output-dir", tmp_path / "out"))
    assert line.startswith(f"error: {config}: ") and message in line, line
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("command", [["traces", "doctor"], ["traces", "show"], ["eval", "--traces"]])
def test_a_trace_time_of_1e999_is_one_error_line_naming_its_json_path(tmp_path: Path, command: list[str]) -> None:
    text = TRACE.read_text(encoding="utf-8")
    broken = tmp_path / "t.otlp.jsonl"
    broken.write_text(re.sub(r'"startTimeUnixNano": ?"\d+"', '"startTimeUnixNano": 1e999', text, count=1))
    line = _only_error_line(_run(*command, broken))
    assert line.startswith(f"error: {broken}: line 1.resourceSpans[0].scopeSpans[0].spans[0].startTimeUnixNano: ")
    assert "expected an integer from 0 to 18446744073709551615, found inf" in line


@pytest.mark.parametrize(
    ("option", "value", "valid"),
    [
        ("--delta", "1e-300", "1e-06 to 1"),
        ("--delta", "2", "1e-06 to 1"),
        ("--delta", "abc", "1e-06 to 1"),
        ("--alpha", "1e-300", "1e-06 to 0.5"),
        ("--alpha", "nan", "1e-06 to 0.5"),
        ("--power", "1", "0.01 to 0.999999"),
    ],
)
def test_plan_options_out_of_range_or_not_numbers_are_one_line_naming_the_range(
    option: str, value: str, valid: str
) -> None:
    line = _only_error_line(_run("plan", EXAMPLES / "compare" / "new.evalset_result.json", option, value))
    assert line.startswith(f"error: Invalid value for '{option}': ") and f"(valid: {valid})" in line, line
    assert line.endswith("see 'agentgauge plan --help'")


def test_a_label_nested_a_thousand_deep_is_one_error_line(tmp_path: Path) -> None:
    labels = tmp_path / "LABELS.jsonl"
    verdict = "[" * 1000 + "]" * 1000
    labels.write_text('{"evalSetId": "capitals", "evalId": "france", "metricName": "m", "verdict": ' + verdict + "}\n")
    line = _only_error_line(_run("calibrate", EXAMPLES / "calibration" / "results", "--labels", labels))
    assert line.startswith(f"error: {labels}: line 1.verdict[0][0]") and "nested deeper than 200 levels" in line
