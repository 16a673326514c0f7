"""ROUGE ``tokenizerName``: registered tokenizers, the built-in ``jieba``, and configuration errors (never a silent
fallback to the default tokenizer)."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from agentgauge.cli import app
from agentgauge.criteria import CompareRegistry, CriterionError, FinalResponseCriterion, RougeCriterion, _tokenize
from agentgauge.model import Invocation, Message

TARGET = "我来到北京清华大学"
PREDICTION = "我来到北京大学"
runner = CliRunner()


def _answer(text: str) -> Invocation:
    return Invocation(user_content=Message(content="q"), final_response=Message(role="assistant", content=text))


def _rouge(**config: Any) -> RougeCriterion:
    return RougeCriterion.model_validate({"rougeType": "rouge1", **config})


def test_jieba_segments_words_and_changes_the_score() -> None:
    pytest.importorskip("jieba")
    assert _tokenize.jieba_tokens(TARGET) == ["我", "来到", "北京", "清华大学"]
    assert _tokenize.jieba_tokens(" 你好， 世界 ") == ["你好", "，", "世界"]  # whitespace segments dropped
    # trpc's definition: ROUGE-1 over jieba words. Overlap {我, 来到}: P = 2/3, R = 2/4, F = 4/7.
    s = _rouge(tokenizerName="jieba").resolve(CompareRegistry()).score(TARGET, PREDICTION)
    assert (s.precision, s.recall) == (2 / 3, 0.5)
    assert s.fmeasure == pytest.approx(4 / 7, abs=1e-12)
    # The default tokenizer keeps [a-z0-9] only (nothing here); ADK's unicode tokenizer counts characters.
    assert _rouge().score(TARGET, PREDICTION).fmeasure == 0.0
    assert _rouge(tokenizer="unicode").score(TARGET, PREDICTION).fmeasure == pytest.approx(0.875)


def test_final_response_metric_scores_with_jieba() -> None:
    pytest.importorskip("jieba")
    config = {"rouge": {"rougeType": "rouge1", "tokenizerName": "jieba", "threshold": {"f1": 0.5}}}
    criterion = FinalResponseCriterion.model_validate(config).resolve(CompareRegistry())
    assert criterion.match(_answer(PREDICTION), _answer(TARGET)).ok
    strict = {"rouge": {"rougeType": "rouge1", "tokenizerName": "jieba", "threshold": {"f1": 0.6}}}
    result = (
        FinalResponseCriterion.model_validate(strict)
        .resolve(CompareRegistry())
        .match(_answer(PREDICTION), _answer(TARGET))
    )
    assert not result.ok
    assert result.reason == (
        "rouge mismatch: rouge1 f1=0.571429 precision=0.666667 recall=0.500000 f1=0.571429 "
        "(thresholds precision=0 recall=0 f1=0.6)"
    )


def test_registered_tokenizer_is_used_and_overrides_a_builtin() -> None:
    compares = CompareRegistry()
    compares.register_rouge_tokenizer("chars", list)
    compares.register_rouge_tokenizer("jieba", str.split)  # a registered name wins over the built-in one
    assert compares.rouge_tokenizer_names() == ["chars", "jieba"]
    s = _rouge(tokenizerName="chars").resolve(compares).score("abc", "abd")
    assert (s.precision, s.recall) == (2 / 3, 2 / 3)
    assert _rouge(tokenizerName="jieba").resolve(compares).score("a b", "a c").fmeasure == 0.5
    with pytest.raises(CriterionError, match="not callable"):
        compares.register_rouge_tokenizer("x", "nope")  # type: ignore[arg-type]


def test_unknown_tokenizer_name_is_a_configuration_error() -> None:
    with pytest.raises(CriterionError, match=r"unknown rouge tokenizerName 'nope' \(known: jieba\)"):
        FinalResponseCriterion.model_validate({"rouge": {"tokenizerName": "nope"}}).resolve(CompareRegistry())
    with pytest.raises(CriterionError, match="not resolved"):
        _rouge(tokenizerName="nope").score("a", "a")


def _missing_jieba(monkeypatch: pytest.MonkeyPatch) -> None:
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "jieba" else real(name, *a))


def test_jieba_without_the_package_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    _missing_jieba(monkeypatch)
    with pytest.raises(CriterionError, match=r"needs the jieba package \(pip install 'agentgauge\[jieba\]'\)"):
        _rouge(tokenizerName="jieba").resolve(CompareRegistry())


def _files(tmp_path: Path, tokenizer_name: str) -> tuple[Path, Path]:
    inv = {"userContent": {"role": "user", "content": "q"}, "finalResponse": {"role": "assistant", "content": TARGET}}
    actual = {**inv, "finalResponse": {"role": "assistant", "content": PREDICTION}}
    evalset = tmp_path / "zh.evalset.json"
    evalset.write_text(
        json.dumps(
            {
                "evalSetId": "zh",
                "evalCases": [
                    {"evalId": "c", "evalMode": "trace", "conversation": [inv], "actualConversation": [actual]}
                ],
            }
        ),
        encoding="utf-8",
    )
    rouge = {"rougeType": "rouge1", "tokenizerName": tokenizer_name, "threshold": {"f1": 0.5}}
    metrics = tmp_path / "zh.metrics.json"
    metric = {
        "metricName": "final_response_avg_score",
        "threshold": 1,
        "criterion": {"finalResponse": {"rouge": rouge}},
    }
    metrics.write_text(json.dumps([metric]))
    return evalset, metrics


@pytest.mark.parametrize("missing", [False, True], ids=["unknown_name", "jieba_not_installed"])
def test_cli_validate_and_eval_exit_2_with_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, missing: bool
) -> None:
    if missing:
        _missing_jieba(monkeypatch)
    evalset, metrics = _files(tmp_path, "jieba" if missing else "nope")
    out = tmp_path / "out"
    for args in (
        ["validate", str(metrics)],
        ["eval", str(evalset), "--metrics", str(metrics), "--output-dir", str(out)],
    ):
        res = runner.invoke(app, args)
        assert res.exit_code == 2, res.output
        [line] = res.stderr.strip().splitlines()
        assert line.startswith(f"error: {metrics}: [0].criterion: final_response_avg_score: ")
        assert ("pip install 'agentgauge[jieba]'" if missing else "(known: jieba)") in line
        assert "Traceback" not in res.output
    assert not out.exists()


def test_cli_eval_scores_with_jieba(tmp_path: Path) -> None:
    pytest.importorskip("jieba")
    evalset, metrics = _files(tmp_path, "jieba")
    res = runner.invoke(app, ["eval", str(evalset), "--metrics", str(metrics), "--output-dir", str(tmp_path / "o")])
    assert res.exit_code == 0, res.output  # F1 4/7 >= 0.5; the default tokenizer would give 0 and fail
    [saved] = (tmp_path / "o").rglob("*.json")
    metric = json.loads(saved.read_text())["evalCaseResults"][0]["overallEvalMetricResults"][0]
    assert (metric["metricName"], metric["score"], metric["evalStatus"]) == ("final_response_avg_score", 1.0, "passed")
