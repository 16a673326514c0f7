"""Differential test against Google ADK: tool arguments with integers beyond 64 bits and numbers beyond the double
range (``1e400``) score the same in ADK's ``TrajectoryEvaluator`` and in agentgauge.

Eval sets are written as JSON text holding those literals. ADK reads them with its own model
(``EvalSet.model_validate_json``, as ``adk eval`` does); agentgauge reads the same text, the same file through the
streaming reader, and its own native form of the same data. ADK's trajectory metric is the one metric that compares
arguments (names and ``==`` on the arguments); every other ADK metric reads text or asks a judge.
"""

from __future__ import annotations

import asyncio
import math
import random
from pathlib import Path
from typing import Any

import pytest

traj_mod = pytest.importorskip("google.adk.evaluation.trajectory_evaluator", reason="google-adk is not installed")
adk_set = pytest.importorskip("google.adk.evaluation.eval_set")
adk_metrics = pytest.importorskip("google.adk.evaluation.eval_metrics")

from agentgauge.evaluators import ToolTrajectoryEvaluator  # noqa: E402
from agentgauge.formats import load_eval_set, parse_eval_set, save_eval_set  # noqa: E402
from agentgauge.model import Criterion, EvalMetric, Invocation  # noqa: E402


class Lit:
    """A number written as this exact JSON literal (``1e400`` is infinity to a reader, not to a writer)."""

    def __init__(self, text: str) -> None:
        self.text = text


BIG = 12345678901234567890123
NUMBERS: list[Any] = [
    BIG,
    BIG + 1,
    -BIG,
    2**64 - 1,
    2**64,
    2**64 + 1,
    -(2**63),
    -(2**63) - 1,
    10**40,
    Lit("1e400"),
    Lit("-1e400"),
    Lit("1E+999"),
    Lit("1.5e308"),
    Lit("12345678901234567890123.0"),
    Lit("1.2345678901234568e22"),
    Lit("18446744073709551616.0"),
    7,
    Lit("7.0"),
    True,
    "12345678901234567890123",
]
SPECIAL = [Lit("NaN"), Lit("Infinity"), Lit("-Infinity")]  # accepted by ADK's reader too


def _json(value: Any) -> str:
    if isinstance(value, Lit):
        return value.text
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, str):
        return '"' + value + '"'
    if isinstance(value, list):
        return "[" + ", ".join(_json(v) for v in value) + "]"
    return "{" + ", ".join(f'"{k}": {_json(v)}' for k, v in value.items()) + "}"


def _value(rng: random.Random, pool: list[Any]) -> Any:
    roll = rng.random()
    if roll < 0.1:
        return [rng.choice(pool) for _ in range(rng.randint(1, 3))]
    if roll < 0.2:
        return {rng.choice("xy"): rng.choice(pool) for _ in range(rng.randint(1, 2))}
    return rng.choice(pool)


def _calls(rng: random.Random, pool: list[Any]) -> list[tuple[str, dict[str, Any]]]:
    return [(rng.choice(["get", "put"]), {"v": _value(rng, pool)}) for _ in range(rng.randint(0, 3))]


def _twin(rng: random.Random, calls: list[tuple[str, dict[str, Any]]], pool: list[Any]) -> list[Any]:
    # Mostly the same calls with one argument moved to a near value, so equal and unequal pairs both occur.
    out = list(calls)
    if out and rng.random() < 0.6:
        i = rng.randrange(len(out))
        out[i] = (out[i][0], {"v": _value(rng, pool)})
    elif rng.random() < 0.2:
        out.reverse()
    return out


def _document(conversations: list[list[tuple[str, dict[str, Any]]]]) -> str:
    invocations = []
    for n, calls in enumerate(conversations):
        uses = ", ".join(f'{{"name": "{name}", "args": {_json(args)}}}' for name, args in calls)
        invocations.append(
            f'{{"invocation_id": "i{n}", "user_content": {{"role": "user", "parts": [{{"text": "q"}}]}}, '
            f'"intermediate_data": {{"tool_uses": [{uses}]}}}}'
        )
    cases = f'{{"eval_id": "c", "conversation": [{", ".join(invocations)}]}}'
    return f'{{"eval_set_id": "s", "eval_cases": [{cases}]}}'


def _ours(text: str) -> list[Invocation]:
    conversation = parse_eval_set(text).eval_cases[0].conversation
    assert conversation is not None
    return conversation


def _pairs(seed: int, count: int, pool: list[Any]) -> tuple[str, str]:
    rng = random.Random(seed)
    actual, expected = [], []
    for _ in range(count):
        calls = _calls(rng, pool)
        expected.append(calls)
        actual.append(_twin(rng, calls, pool))
    return _document(actual), _document(expected)


PAIRS = 1500


@pytest.fixture(scope="module")
def documents() -> tuple[str, str]:
    """1,500 (actual, expected) invocation pairs whose arguments hold big integers and 1e400-like literals."""
    return _pairs(20260423, PAIRS, NUMBERS)


def _adk_conversation(text: str, saved: bool) -> Any:
    eval_set = adk_set.EvalSet.model_validate_json(text)
    if saved:  # what ADK reads back after saving the set itself (adk web): its own writer, then its own reader
        eval_set = adk_set.EvalSet.model_validate_json(eval_set.model_dump_json(indent=2))
    return eval_set.eval_cases[0].conversation


def _our_conversation(text: str, reader: str, path: Path) -> list[Invocation]:
    if reader == "text":
        return _ours(text)
    path.write_text(text)
    if reader != "file":  # agentgauge's own native or ADK file of the same data, written and read back
        save_eval_set(load_eval_set(path), path, fmt="adk" if reader == "adk-saved" else "native")
        assert ('"eval_cases"' if reader == "adk-saved" else '"evalCases"') in path.read_text()
    conversation = load_eval_set(path).eval_cases[0].conversation
    assert conversation is not None
    return conversation


@pytest.mark.parametrize("match_type", ["EXACT", "IN_ORDER", "ANY_ORDER"])
@pytest.mark.parametrize("reader", ["text", "file", "native-saved", "adk-saved"])
def test_trajectory_scores_equal_adk(match_type: str, reader: str, documents: tuple[str, str], tmp_path: Path) -> None:
    """``text``/``file``: the same JSON read by both. ``native-saved``/``adk-saved``: the set written by
    agentgauge (native / ADK form) and read back, against the set written by ADK itself and read back (both write
    infinity as null, which JSON lacks); ``adk-saved`` has ADK read agentgauge's file."""
    actual_text, expected_text = documents
    criterion = {"threshold": 1.0, "match_type": match_type, "ignore_args": False}
    adk_metric = adk_metrics.EvalMetric(
        metric_name="tool_trajectory_avg_score",
        threshold=1.0,
        criterion=adk_metrics.ToolTrajectoryCriterion(**criterion),
    )
    ours_sides = [
        _our_conversation(text, reader, tmp_path / f"{name}.evalset.json")
        for name, text in (("actual", actual_text), ("expected", expected_text))
    ]
    if reader == "adk-saved":
        adk_sides = [
            _adk_conversation((tmp_path / f"{n}.evalset.json").read_text(), False) for n in ("actual", "expected")
        ]
        own = [_adk_conversation(text, True) for text in (actual_text, expected_text)]
        assert [inv.model_dump() for inv in adk_sides[0]] == [inv.model_dump() for inv in own[0]]
    else:
        adk_sides = [_adk_conversation(text, reader == "native-saved") for text in (actual_text, expected_text)]
    theirs = traj_mod.TrajectoryEvaluator(eval_metric=adk_metric).evaluate_invocations(*adk_sides)
    metric = EvalMetric(metric_name="tool_trajectory_avg_score", threshold=1.0, criterion=Criterion(adk=criterion))
    ours = asyncio.run(ToolTrajectoryEvaluator().evaluate(ours_sides[0], ours_sides[1], metric))

    their_scores = [r.score for r in theirs.per_invocation_results]
    our_scores = [r.score for r in ours.per_invocation_results]
    assert len(our_scores) == len(their_scores) == PAIRS
    differences = sum(1 for a, b in zip(our_scores, their_scores, strict=True) if a != b)
    assert differences == 0
    assert 0.2 < sum(our_scores) / PAIRS < 0.9  # equal and unequal arguments both occur
    assert ours.overall_score == theirs.overall_score


def test_the_issues_pair_scores_zero_in_both() -> None:
    # {"v": 12345678901234567890123} against {"v": 12345678901234567890124}: ADK 0.0, agentgauge was 1.0.
    actual = _document([[("get", {"v": BIG})]])
    expected = _document([[("get", {"v": BIG + 1})]])
    criterion = {"threshold": 1.0, "match_type": "EXACT"}
    adk_metric = adk_metrics.EvalMetric(
        metric_name="tool_trajectory_avg_score",
        threshold=1.0,
        criterion=adk_metrics.ToolTrajectoryCriterion(**criterion),
    )
    theirs = traj_mod.TrajectoryEvaluator(eval_metric=adk_metric).evaluate_invocations(
        adk_set.EvalSet.model_validate_json(actual).eval_cases[0].conversation,
        adk_set.EvalSet.model_validate_json(expected).eval_cases[0].conversation,
    )
    metric = EvalMetric(metric_name="tool_trajectory_avg_score", threshold=1.0, criterion=Criterion(adk=criterion))
    ours = asyncio.run(ToolTrajectoryEvaluator().evaluate(_ours(actual), _ours(expected), metric))
    assert ours.overall_score == theirs.overall_score == 0.0


def test_nan_and_infinity_literals_score_as_in_adk() -> None:
    actual_text, expected_text = _pairs(7, 300, [*SPECIAL, 7, BIG])
    criterion = {"threshold": 1.0, "match_type": "EXACT"}
    adk_metric = adk_metrics.EvalMetric(
        metric_name="tool_trajectory_avg_score",
        threshold=1.0,
        criterion=adk_metrics.ToolTrajectoryCriterion(**criterion),
    )
    theirs = traj_mod.TrajectoryEvaluator(eval_metric=adk_metric).evaluate_invocations(
        adk_set.EvalSet.model_validate_json(actual_text).eval_cases[0].conversation,
        adk_set.EvalSet.model_validate_json(expected_text).eval_cases[0].conversation,
    )
    metric = EvalMetric(metric_name="tool_trajectory_avg_score", threshold=1.0, criterion=Criterion(adk=criterion))
    ours = asyncio.run(ToolTrajectoryEvaluator().evaluate(_ours(actual_text), _ours(expected_text), metric))
    assert [r.score for r in ours.per_invocation_results] == [r.score for r in theirs.per_invocation_results]
    assert math.isinf(_ours(_document([[("get", {"v": Lit("Infinity")})]]))[0].tools[0].arguments["v"])
