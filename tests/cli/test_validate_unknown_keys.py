"""``agentgauge validate`` names every unknown key of an eval set with its JSON path and a did-you-mean: an error in
an ADK file (ADK's models refuse unknown keys), a warning in a native one unless ``--strict``."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from agentgauge.cli import app

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
NATIVE = EXAMPLES / "calculator/calculator.evalset.json"
ADK = EXAMPLES / "dice_prime/eval_set_example_with_multiple_sessions.evalset.json"
runner = CliRunner()


def _typo_case(doc: dict[str, Any]) -> None:
    cases = doc.get("evalCases") or doc["eval_cases"]
    cases[0]["conversaton"] = cases[0].pop("conversation")


def _typo_turn(doc: dict[str, Any]) -> None:
    turn = doc["eval_cases"][1]["conversation"][0]
    turn["final_respnse"] = turn.pop("final_response")


def _two_typos(doc: dict[str, Any]) -> None:
    doc["evalCases"][0]["conversation"][0]["finalRespons"] = doc["evalCases"][0]["conversation"][0].pop("finalResponse")
    doc["evalCases"][1]["sesionInput"] = {}


CASES: list[tuple[str, Path, Callable[[dict[str, Any]], None], list[str], int, list[str]]] = [
    # (id, file, edit, extra options, exit code, stderr lines)
    (
        "native warning",
        NATIVE,
        _typo_case,
        [],
        0,
        [
            "warning: {f}: evalCases[0].conversaton: unknown key 'conversaton' (did you mean 'conversation'?); "
            "it has no effect (an error with --strict)"
        ],
    ),
    (
        "native strict",
        NATIVE,
        _typo_case,
        ["--strict"],
        2,
        [
            "error: {f}: evalCases[0].conversaton: unknown key 'conversaton' (did you mean 'conversation'?); "
            "it has no effect (--strict)"
        ],
    ),
    (
        "native two keys",
        NATIVE,
        _two_typos,
        [],
        0,
        [
            "warning: {f}: evalCases[0].conversation[0].finalRespons: unknown key 'finalRespons' (did you mean "
            "'finalResponse'?); it has no effect (an error with --strict)",
            "warning: {f}: evalCases[1].sesionInput: unknown key 'sesionInput' (did you mean 'sessionInput'?); "
            "it has no effect (an error with --strict)",
        ],
    ),
    (
        "adk case",
        ADK,
        _typo_case,
        [],
        2,
        [
            "error: {f}: eval_cases[0].conversaton: unknown key 'conversaton' (did you mean 'conversation'?); "
            "ADK's models allow no unknown keys"
        ],
    ),
    (
        "adk invocation",
        ADK,
        _typo_turn,
        [],
        2,
        [
            "error: {f}: eval_cases[1].conversation[0].final_respnse: unknown key 'final_respnse' (did you mean "
            "'final_response'?); ADK's models allow no unknown keys"
        ],
    ),
    ("native clean", NATIVE, lambda doc: None, ["--strict"], 0, []),
    ("adk clean", ADK, lambda doc: None, [], 0, []),
]


@pytest.mark.parametrize(
    ("source", "edit", "options", "code", "expected"), [c[1:] for c in CASES], ids=[c[0] for c in CASES]
)
def test_validate_names_unknown_keys(
    tmp_path: Path,
    source: Path,
    edit: Callable[[dict[str, Any]], None],
    options: list[str],
    code: int,
    expected: list[str],
) -> None:
    doc = json.loads(source.read_text())
    edit(doc)
    path = tmp_path / source.name
    path.write_text(json.dumps(doc, indent=2))
    res = runner.invoke(app, ["validate", *options, str(path)])
    assert res.exit_code == code, res.output
    assert res.stderr.splitlines() == [line.format(f=path) for line in expected]
    cases = len(doc.get("evalCases") or doc["eval_cases"])
    assert res.stdout.splitlines() == ([f"ok: {path} (eval set, {cases} cases)"] if code == 0 else [])
