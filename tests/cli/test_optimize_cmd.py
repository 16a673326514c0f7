"""``agentgauge optimize`` on the command line: the FAQ example accepted (and its patched agent reproducing the
score), a candidate that breaks a critical case rejected, one that overfits flagged; every bad input one line and
exit 2, nothing written."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from agentgauge.cli import app

FAQ = Path(__file__).resolve().parents[2] / "examples" / "optimize"
AGENT = str(FAQ / "agent.py")
SETS = ["--train", str(FAQ / "faq_train.evalset.json"), "--validation", str(FAQ / "faq_validation.evalset.json")]
OPTIMIZER = ["--optimizer", f"{FAQ / 'faq_optimizer.py'}:FaqOptimizer"]

OVERFITTING = """
import importlib.util
from pathlib import Path

from agentgauge.optimize import SearchCandidate, SearchOutcome

spec = importlib.util.spec_from_file_location("_faq", {agent!r})
faq = importlib.util.module_from_spec(spec)
spec.loader.exec_module(faq)


class LastWord:
    '''Learns a rule per failing train case, keyed on the question's last word: it fits train, not the rest.'''

    name = "last-word"
    uses_reflection = False

    async def search(self, session):
        before = await session.evaluate(session.seed, "train", feedback=True)
        rules = [
            f"When the question mentions {{faq.words(c.feedback['user turns'][0])[-1]}}, answer: "
            f"{{c.feedback['expected'][0]['response']}}"
            for c in before.cases if not c.passed
        ]
        texts = {{"instruction": "\\n".join([session.seed["instruction"], *rules])}}
        return SearchOutcome([SearchCandidate(dict(session.seed)), SearchCandidate(texts, None, [0])], 1)
"""


def _invoke(*args: str) -> tuple[int, str]:
    ran = CliRunner().invoke(app, list(args))
    return ran.exit_code, ran.output


def _places(tmp: Path) -> list[str]:
    return ["--out", str(tmp / "out"), "--output-dir", str(tmp / "results")]


def test_the_faq_example_is_accepted_and_its_patched_agent_scores_the_same(tmp_path: Path) -> None:
    code, output = _invoke("optimize", AGENT, *SETS, *OPTIMIZER, *_places(tmp_path), "--json")
    assert code == 0, output
    report = json.loads(output[output.index('{\n  "format"') :])
    assert report["accepted"] and report["evidence"]["validation"]["candidate"]["passRate"] == 0.875
    assert "Gate: ACCEPTED (alpha 0.05)" in output and "PASS  min_gain" in output
    written = sorted(p.name for p in (tmp_path / "out").iterdir())
    assert written == [
        "agent",
        "agent_cache",
        "audit.html",
        "audit.json",
        "audit.md",
        "patch.json",
        "search",
        "state.json",
    ]
    assert '<h1 class="accepted">' in (tmp_path / "out" / "audit.html").read_text()
    patched = str(tmp_path / "out" / "agent" / "agent.py")
    code, output = _invoke(
        "eval", patched, str(FAQ / "faq_validation.evalset.json"), "--output-dir", str(tmp_path / "r")
    )
    assert code == 1 and "Cases: 7 passed, 1 failed, 0 error, 0 not evaluated, 8 total" in output, output
    labels = ["--output-dir", str(tmp_path / "results")]
    code, output = _invoke(
        "gate",
        "label:role=baseline,split=validation",
        "label:role=candidate,split=validation",
        "--train",
        "label:role=baseline,split=train",
        "label:role=candidate,split=train",
        "--rules",
        str(FAQ / "gate.yaml"),
        *labels,
    )
    assert code == 0, output
    assert output.splitlines()[0] == "Gate: ACCEPTED (alpha 0.05)"
    assert "  PASS  critical_cases: these cases pass in the candidate: refunds" in output.splitlines()


def test_a_candidate_breaking_a_critical_case_is_rejected(tmp_path: Path) -> None:
    rules = tmp_path / "gate.yaml"
    rules.write_text("critical_cases: [returns, refunds]\n")
    runs = ("--num-runs", "2", "--case-status", "all")
    code, output = _invoke("optimize", AGENT, *SETS, *OPTIMIZER, *_places(tmp_path), "--rules", str(rules), *runs)
    assert code == 1, output
    assert "Gate: REJECTED (alpha 0.05)" in output
    assert "  FAIL  critical_cases: these cases pass in the candidate: returns, refunds" in output
    assert "        returns: failed (0/2 runs passed)" in output
    report = json.loads((tmp_path / "out" / "audit.json").read_text())
    assert report["accepted"] is False and report["patch"]["texts"]
    assert report["settings"]["num_runs"] == 2 and report["settings"]["case_status"] == "all"
    state = json.loads((tmp_path / "out" / "state.json").read_text())
    evidence = json.loads(Path(state["results"]["candidate:validation"]).read_text())
    assert evidence["summary"]["caseStatusRule"] == "all"  # the gate's evidence is decided by the rule given


def test_a_candidate_that_only_fits_train_is_flagged_as_overfit(tmp_path: Path) -> None:
    plugin = tmp_path / "last_word.py"
    plugin.write_text(OVERFITTING.format(agent=AGENT))
    code, output = _invoke("optimize", AGENT, *SETS, "--optimizer", f"{plugin}:LastWord", *_places(tmp_path))
    assert code == 1, output
    assert (
        "  FAIL  overfit: not overfit: when the gain on train is positive, the gain on validation is positive too"
        in output
    )
    assert "        train: pass rate (runs) 0.000 -> 1.000" in output


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ([AGENT], "error: give the train split with --train SET[:cases] (or ADK's --sampler_config_file_path)"),
        ([AGENT, "--train", "nope.evalset.json"], "error: nope.evalset.json: file not found"),
        ([AGENT, *SETS, "--budget", "calls=x"], "error: --budget: calls must be a whole number of at least 1"),
        ([AGENT, *SETS, "--optimizer", "magic"], "error: --optimizer: unknown optimizer 'magic'"),
        ([AGENT, *SETS, "--log_level", "LOUD"], "error: --log_level: choose one of DEBUG, INFO, WARNING, ERROR"),
        ([AGENT, *SETS, *OPTIMIZER, "--surface", "tone"], "error: --surface: " + AGENT + " has no text 'tone'"),
        ([AGENT, *SETS, *OPTIMIZER, "--num-runs", "0"], "error: --num-runs must be between 1 and 1000, got 0"),
        ([AGENT, *SETS, *OPTIMIZER, "--case-status", "most"], "error: --case-status: unknown case status rule 'most'"),
        ([str(FAQ.parents[0] / "calculator" / "agent.py"), *SETS, *OPTIMIZER], "has no texts to optimise"),
        (["a2a+http://127.0.0.1:9/", *SETS, *OPTIMIZER], "a remote agent's texts live on its server"),
        ([AGENT, *SETS], "error: no reflection model: give --reflection-model"),
        ([AGENT, *SETS, "--sampler_config_file_path", "x.json"], "drop --train, --validation, --metrics"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(
    tmp_path: Path, args: list[str], message: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("AGENTGAUGE_JUDGE_MODEL", raising=False)
    code, output = _invoke("optimize", *args, *_places(tmp_path))
    assert code == 2, output
    assert message in output and "Traceback" not in output, output
    assert not (tmp_path / "out").exists() and not (tmp_path / "results").exists()


def test_out_never_takes_someone_elses_folder(tmp_path: Path) -> None:
    (tmp_path / "mine").mkdir()
    (tmp_path / "mine" / "notes.txt").write_text("keep me")
    code, output = _invoke("optimize", AGENT, *SETS, *OPTIMIZER, "--out", str(tmp_path / "mine"))
    assert code == 2 and "--out " in output and "holds other files (notes.txt); choose an empty folder" in output
    code, output = _invoke("optimize", AGENT, *SETS, *OPTIMIZER, "--out", str(FAQ))
    assert code == 2 and "holds the agent's files; choose a folder of its own" in output
    code, _ = _invoke(
        "optimize", AGENT, *SETS, *OPTIMIZER, "--out", str(tmp_path / "one"), "--output-dir", str(tmp_path / "r")
    )
    assert code == 0
    other = ["--train", str(FAQ / "faq_validation.evalset.json")]
    code, output = _invoke("optimize", AGENT, *other, *OPTIMIZER, "--out", str(tmp_path / "one"))
    assert code == 2 and "holds another optimisation" in output
    assert (tmp_path / "mine" / "notes.txt").read_text() == "keep me"


def test_the_gate_metric_must_be_scored(tmp_path: Path) -> None:
    rules = tmp_path / "gate.yaml"
    rules.write_text("metric: response_match_score\n")
    code, output = _invoke("optimize", AGENT, *SETS, *OPTIMIZER, "--rules", str(rules), *_places(tmp_path))
    assert code == 2
    assert (
        "the gate's metric 'response_match_score' is not a metric of the train split (it has final_response" in output
    )


def test_an_optimizer_that_fails_ends_the_search_not_the_command(tmp_path: Path) -> None:
    plugin = tmp_path / "broken.py"
    plugin.write_text(
        "class Broken:\n    name = 'broken'\n    uses_reflection = False\n"
        "    async def search(self, session):\n        raise RuntimeError('the model is down')\n"
    )
    code, output = _invoke("optimize", AGENT, *SETS, "--optimizer", f"{plugin}:Broken", *_places(tmp_path))
    assert code == 1 and "Traceback" not in output
    assert "note: the broken optimizer failed: RuntimeError: the model is down; run again to retry" in output
    assert "Gate: not run (the search proposed no candidate better than the baseline)" in output
    state = json.loads((tmp_path / "out" / "state.json").read_text())
    assert "search_done" not in state  # a run again searches again


def test_metric_plugins_score_the_candidates_as_in_eval(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.syspath_prepend(str(FAQ.parents[1]))  # examples.plugins.length_plugin
    metrics = tmp_path / "length.metrics.json"
    metrics.write_text(json.dumps([{"metricName": "answer_length", "threshold": 1.0}]))
    args = ["optimize", AGENT, *SETS, *OPTIMIZER, "--metrics", str(metrics), *_places(tmp_path)]
    code, output = _invoke(*args)
    assert code == 2 and "answer_length" in output, output  # unknown without the plug-in, as eval says
    code, output = _invoke(*args, "--plugin", "examples.plugins.length_plugin", "--json")
    assert code in (0, 1), output
    assert "answer_length" in output, output
