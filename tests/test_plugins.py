"""Plug-ins without glue: entry points, --plugin modules and [tool.agentgauge] plugins in pyproject.toml."""

from __future__ import annotations

import json
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from agentgauge.cli import app
from agentgauge.errors import InputError
from agentgauge.evaluators import Registry
from agentgauge.evaluators._plugins import plugins_from_pyproject

runner = CliRunner()

EVALUATOR_SOURCE = """
from agentgauge.evaluators import EvaluateResult, PerInvocationResult
from agentgauge.model import EvalStatus, status_for_score


class LengthEvaluator:
    name = "answer_length"
    description = "1 when the final answer has at most 10 characters"
    needs_expected = False

    async def evaluate(self, actuals, expecteds, metric):
        per = []
        for a, e in zip(actuals, expecteds):
            score = 1.0 if len(a.final_response.content) <= 10 else 0.0
            per.append(PerInvocationResult(a, e, score, status_for_score(score, metric.threshold), "length"))
        mean = sum(p.score for p in per) / len(per)
        return EvaluateResult(mean, EvalStatus.PASSED if mean >= metric.threshold else EvalStatus.FAILED, per)


def same_first_word(actual, expected):
    return actual.split()[:1] == expected.split()[:1]


def whitespace_tokens(text):
    return text.lower().split()
"""


@pytest.fixture
def plugin_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A folder holding an installed-looking distribution (dist-info with entry points) and plain modules."""
    root = tmp_path / "site"
    root.mkdir()
    package = root / f"agplug_{tmp_path.name[-8:].replace('-', '_')}"
    package.mkdir()
    (package / "__init__.py").write_text(EVALUATOR_SOURCE)
    dist = root / "agplug-0.1.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: agplug\nVersion: 0.1\n")
    (dist / "entry_points.txt").write_text(
        textwrap.dedent(
            f"""\
            [agentgauge.evaluators]
            answer_length = {package.name}:LengthEvaluator

            [agentgauge.compares]
            text.same_first_word = {package.name}:same_first_word

            [agentgauge.tokenizers]
            whitespace = {package.name}:whitespace_tokens
            """
        )
    )
    monkeypatch.syspath_prepend(str(root))
    before = set(sys.modules)
    yield root
    for name in set(sys.modules) - before:
        if name.startswith(("agplug_", "local_plug", "proj_plug", "broken_plug")):
            del sys.modules[name]


def test_entry_points_register_evaluators_compares_and_tokenizers(plugin_dir: Path, tmp_path: Path) -> None:
    registry = Registry()
    loaded = registry.load_plugins(start=tmp_path)
    assert {"agentgauge.evaluators:answer_length", "agentgauge.compares:text.same_first_word"} <= set(loaded)
    assert "answer_length" in registry and registry.info("answer_length").needs_expected is False
    assert registry.compares.get("text", "same_first_word")("Paris is", "Paris was") is True
    assert registry.compares.rouge_tokenizer("whitespace")("A b") == ["a", "b"]


def test_broken_entry_point_is_one_input_error(plugin_dir: Path, tmp_path: Path) -> None:
    entry_points = plugin_dir / "agplug-0.1.dist-info" / "entry_points.txt"
    entry_points.write_text("[agentgauge.compares]\nno_kind = os:getcwd\n")
    with pytest.raises(InputError) as info:
        Registry().load_plugins(start=tmp_path)
    assert str(info.value) == (
        "plugin entry point 'no_kind' (agentgauge.compares = os:getcwd) failed to load "
        "(ValueError: the name must be <kind>.<compare name>, e.g. text.same_prefix)"
    )


def _trace_files(folder: Path, compare: str | None = None) -> tuple[Path, Path]:
    def inv(answer: str) -> dict[str, object]:
        return {
            "userContent": {"role": "user", "content": "q"},
            "finalResponse": {"role": "assistant", "content": answer},
        }

    case = {
        "evalId": "c1",
        "evalMode": "trace",
        "conversation": [inv("Paris")],
        "actualConversation": [inv("Paris ok")],
    }
    evalset = folder / "s.evalset.json"
    evalset.write_text(json.dumps({"evalSetId": "s", "evalCases": [case]}))
    metrics: list[dict[str, object]] = [{"metricName": "answer_length", "threshold": 1}]
    if compare:
        metrics.append(
            {
                "metricName": "final_response_avg_score",
                "threshold": 1,
                "criterion": {"finalResponse": {"text": {"compareName": compare}}},
            }
        )
    path = folder / "s.metrics.json"
    path.write_text(json.dumps(metrics))
    return evalset, path


def test_plugin_option_makes_user_metrics_and_compares_usable(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "local_plug.py").write_text(
        EVALUATOR_SOURCE
        + "\n\ndef register(registry):\n"
        + "    registry.register(LengthEvaluator())\n"
        + "    registry.compares.register_text('same_first_word', same_first_word)\n"
    )
    evalset, metrics = _trace_files(tmp_path, compare="same_first_word")
    without = runner.invoke(app, ["validate", str(metrics)])
    assert without.exit_code == 2 and "unknown metric 'answer_length'" in without.stderr
    ok = runner.invoke(app, ["validate", str(metrics), "--plugin", "local_plug"])
    assert ok.exit_code == 0, ok.output
    listed = runner.invoke(app, ["list-metrics", "--json", "--plugin", "local_plug"])
    assert "answer_length" in [row["name"] for row in json.loads(listed.stdout)]
    out = tmp_path / "out"
    result = runner.invoke(app, ["eval", str(evalset), "--plugin", "local_plug", "--output-dir", str(out), "--json"])
    assert result.exit_code == 0, result.output
    saved = json.loads(result.stdout)
    scores = {m["metricName"]: m["score"] for m in saved["evalCaseResults"][0]["overallEvalMetricResults"]}
    assert scores == {"answer_length": 1.0, "final_response_avg_score": 1.0}


@pytest.mark.parametrize("command", [["validate", "x.json"], ["list-metrics"], ["eval", "x.evalset.json"]])
def test_plugin_that_fails_to_import_is_exit_2_with_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, command: list[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    result = runner.invoke(app, [*command, "--plugin", "no_such_plugin_module"])
    assert result.exit_code == 2
    assert result.stderr == (
        "error: plugin module 'no_such_plugin_module' (--plugin) failed to import "
        "(ModuleNotFoundError: No module named 'no_such_plugin_module')\n"
    )


def test_plugin_module_errors(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "broken_plug_a.py").write_text("raise RuntimeError('boom\\nsecond line')\n")
    (tmp_path / "broken_plug_b.py").write_text("X = 1\n")
    (tmp_path / "broken_plug_c.py").write_text("def register(registry):\n    registry.register(object())\n")
    with pytest.raises(InputError, match=r"failed to import \(RuntimeError: boom second line\)$"):
        Registry().load_plugins(["broken_plug_a"], start=tmp_path)
    with pytest.raises(InputError, match=r"'broken_plug_b' \(--plugin\) has no register\(registry\) function"):
        Registry().load_plugins(["broken_plug_b"], start=tmp_path)
    with pytest.raises(InputError, match=r"'broken_plug_c' .* failed to register \(AttributeError"):
        Registry().load_plugins(["broken_plug_c"], start=tmp_path)


def test_nearest_pyproject_lists_plugins(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    project = tmp_path / "project"
    (project / "evals" / "deep").mkdir(parents=True)
    (project / "pyproject.toml").write_text('[project]\nname = "x"\n\n[tool.agentgauge]\nplugins = ["proj_plug"]\n')
    (project / "proj_plug.py").write_text(
        EVALUATOR_SOURCE + "\n\ndef register(registry):\n    registry.register(LengthEvaluator())\n"
    )
    assert plugins_from_pyproject(project / "evals" / "deep") == (project / "pyproject.toml", ["proj_plug"])
    monkeypatch.chdir(project / "evals" / "deep")
    listed = runner.invoke(app, ["list-metrics", "--json"])
    assert listed.exit_code == 0, listed.output
    assert "answer_length" in [row["name"] for row in json.loads(listed.stdout)]
    (project / "pyproject.toml").write_text("[tool.agentgauge]\nplugins = 'proj_plug'\n")
    bad = runner.invoke(app, ["list-metrics"])
    assert bad.exit_code == 2
    assert (
        bad.stderr == f"error: {project / 'pyproject.toml'}: tool.agentgauge.plugins: must be a list of module names\n"
    )
