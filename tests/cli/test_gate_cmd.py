"""``agentgauge gate BASE NEW``: each rule's verdict printed, exit 0 accepted / 1 rejected / 2 bad input, ``--json``,
``--train`` for the overfit rule, ``--alpha`` over the rules file's."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from agentgauge.cli import app

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "compare"
BASE, NEW = str(EXAMPLES / "base.evalset_result.json"), str(EXAMPLES / "new.evalset_result.json")


def _invoke(*args: str) -> tuple[int, str, str]:
    ran = CliRunner().invoke(app, list(args))
    return ran.exit_code, ran.stdout, ran.stderr


def test_a_regression_is_rejected_rule_by_rule() -> None:
    code, out, _ = _invoke("gate", BASE, NEW)
    assert code == 1
    assert out.splitlines() == [
        "Gate: REJECTED (alpha 0.05)",
        "  FAIL  min_gain: the 95% paired-bootstrap interval of the gain in the pass rate of case runs lies above 0",
        "        pass rate (runs) 1.000 -> 0.667 (gain -0.333, 95% interval -0.667 to +0.000, 6 cases): the low end "
        "-0.667 is not above 0 (the gain may be chance)",
        "  FAIL  no_new_failures: no case broke: passed in base, not in new; with several runs on both sides only "
        "when its pass rate dropped significantly (Fisher's exact test, p < 0.05)",
        "        calc_natural_multiply: passed -> failed",
        "        calc_multi_turn: passed -> failed",
        "  SKIP  overfit: not overfit: when the gain on train is positive, the gain on validation is positive too",
        "        no train results to compare",
    ]


def test_json_train_alpha_and_an_accepted_gain(tmp_path: Path) -> None:
    rules = tmp_path / "gate.yaml"
    rules.write_text("no_new_failures: false\nalpha: 0.2\n")
    code, out, err = _invoke("gate", NEW, BASE, "--rules", str(rules), "--json", "--train", NEW, BASE)
    report = json.loads(out)
    assert code == 1 and report["alpha"] == 0.2 and err.startswith("Gate: REJECTED (alpha 0.2)")
    assert [v["name"] for v in report["verdicts"]] == ["min_gain", "overfit"]
    assert report["verdicts"][1]["status"] == "pass" and report["gain"]["delta"] == pytest.approx(1 / 3)
    code, _, err = _invoke("gate", NEW, BASE, "--rules", str(rules), "--alpha", "0.3", "--json")
    assert err.startswith("Gate: REJECTED (alpha 0.3)")
    code, out, _ = _invoke("gate", BASE, BASE)
    assert code == 1 and "the low end +0.000 is not above 0" in out


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ([BASE, "missing.json"], "error: missing.json: no such file"),
        ([BASE, NEW, "--rules", "nope.yaml"], "error: nope.yaml: file not found"),
        ([BASE, NEW, "--alpha", "1.5"], "error: --alpha must be between 0 and 1 (exclusive), got 1.5"),
        ([BASE, NEW, "--train", BASE, "missing.json"], "error: missing.json: no such file"),
    ],
)
def test_bad_input(args: list[str], message: str) -> None:
    code, out, err = _invoke("gate", *args)
    assert code == 2 and message in err and not out, err
