"""Differential tests against Google ADK's own evaluators: identical per-invocation and overall scores.

Thousands of seeded random invocations (tool calls with colliding names/arguments, answers mixing ASCII, CJK,
Thai, Lao, Khmer, Myanmar, accented Latin, emoji, full-width and ligature characters) are scored by ADK's
``TrajectoryEvaluator`` / ``RougeEvaluator`` and by ours.
"""

from __future__ import annotations

import asyncio
import random
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

traj_mod = pytest.importorskip(
    "google.adk.evaluation.trajectory_evaluator", reason="google-adk is not installed (differential tests need it)"
)
rouge_mod = pytest.importorskip("google.adk.evaluation.final_response_match_v1", reason="google-adk eval deps missing")
adk_case = pytest.importorskip("google.adk.evaluation.eval_case")
adk_metrics = pytest.importorskip("google.adk.evaluation.eval_metrics")
genai_types = pytest.importorskip("google.genai.types")

from agentgauge.criteria import adk_rouge1, parse_match_type  # noqa: E402
from agentgauge.evaluators import ResponseMatchEvaluator, ToolTrajectoryEvaluator  # noqa: E402
from agentgauge.model import Criterion, EvalMetric, Invocation, Message, Tool  # noqa: E402

NAMES = ["search", "get_weather", "book", "cancel"]
SCALARS: list[Any] = [0, 1, 1.0, True, False, "1", "x", None, 2.5, ""]


def _value(rng: random.Random, depth: int = 0) -> Any:
    roll = rng.random()
    if depth < 2 and roll < 0.15:
        return [_value(rng, depth + 1) for _ in range(rng.randint(0, 2))]
    if depth < 2 and roll < 0.3:
        return {rng.choice("ab"): _value(rng, depth + 1) for _ in range(rng.randint(0, 2))}
    return rng.choice(SCALARS)


def _args(rng: random.Random) -> dict[str, Any] | None:
    if rng.random() < 0.08:
        return None
    return {rng.choice(["q", "city", "n"]): _value(rng) for _ in range(rng.randint(0, 2))}


def _calls(rng: random.Random) -> list[tuple[str, dict[str, Any] | None]]:
    return [(rng.choice(NAMES), _args(rng)) for _ in range(rng.randint(0, 4))]


def _mutate(rng: random.Random, calls: list[tuple[str, Any]]) -> list[tuple[str, Any]]:
    out = list(calls)
    for _ in range(rng.randint(0, 2)):
        op = rng.randrange(4)
        if op == 0 and out:
            out.pop(rng.randrange(len(out)))
        elif op == 1:
            out.insert(rng.randint(0, len(out)), (rng.choice(NAMES), _args(rng)))
        elif op == 2 and len(out) > 1:
            i, j = rng.sample(range(len(out)), 2)
            out[i], out[j] = out[j], out[i]
        elif op == 3 and out:
            i = rng.randrange(len(out))
            out[i] = (out[i][0], _args(rng))
    return out


def _adk_invocation(calls: list[tuple[str, Any]], text: str = "") -> Any:
    return adk_case.Invocation(
        user_content=genai_types.Content(parts=[genai_types.Part(text="q")], role="user"),
        final_response=genai_types.Content(parts=[genai_types.Part(text=text)], role="model"),
        intermediate_data=adk_case.IntermediateData(
            tool_uses=[genai_types.FunctionCall(name=n, args=a) for n, a in calls]
        ),
    )


def _our_invocation(calls: list[tuple[str, Any]], text: str = "") -> Invocation:
    return Invocation(
        user_content=Message(content="q"),
        final_response=Message(role="assistant", content=text),
        tools=[Tool(name=n, arguments=a) for n, a in calls],
    )


@pytest.fixture(scope="module")
def trajectories() -> tuple[list[Any], list[Any], list[Invocation], list[Invocation]]:
    """2,500 (actual, expected) tool-call lists in both object models, built once for every match type."""
    rng = random.Random(20240601)
    pairs = []
    for _ in range(2500):
        expected = _calls(rng)
        actual = _mutate(rng, expected) if rng.random() < 0.7 else _calls(rng)
        pairs.append((actual, expected))
    return (
        [_adk_invocation(a) for a, _ in pairs],
        [_adk_invocation(e) for _, e in pairs],
        [_our_invocation(a) for a, _ in pairs],
        [_our_invocation(e) for _, e in pairs],
    )


@pytest.mark.parametrize("match_type", ["EXACT", "IN_ORDER", "ANY_ORDER"])
@pytest.mark.parametrize("ignore_args", [False, True])
def test_trajectory_scores_equal_adk(
    match_type: str, ignore_args: bool, trajectories: tuple[list[Any], list[Any], list[Invocation], list[Invocation]]
) -> None:
    adk_actual, adk_expected, our_actual, our_expected = trajectories
    criterion = {"threshold": 0.5, "match_type": match_type, "ignore_args": ignore_args}
    adk_metric = adk_metrics.EvalMetric(
        metric_name="tool_trajectory_avg_score",
        threshold=0.5,
        criterion=adk_metrics.ToolTrajectoryCriterion(**criterion),
    )
    theirs = traj_mod.TrajectoryEvaluator(eval_metric=adk_metric).evaluate_invocations(adk_actual, adk_expected)
    metric = EvalMetric(metric_name="tool_trajectory_avg_score", threshold=0.5, criterion=Criterion(adk=criterion))
    ours = asyncio.run(ToolTrajectoryEvaluator().evaluate(our_actual, our_expected, metric))
    their_scores = [r.score for r in theirs.per_invocation_results]
    our_scores = [r.score for r in ours.per_invocation_results]
    assert our_scores == their_scores
    assert 0.05 < sum(our_scores) / len(our_scores) < 0.95  # the generator exercises both outcomes
    assert ours.overall_score == theirs.overall_score
    assert ours.overall_status.value == theirs.overall_eval_status.name.lower()


WORDS = [
    # ASCII words, including ones whose NLTK-mode Porter stems are special
    "running",
    "runs",
    "ran",
    "dying",
    "lying",
    "news",
    "skies",
    "lazy",
    "happily",
    "generously",
    "this",
    "was",
    "has",
    "the",
    "a",
    "booking",
    "booked",
    "flights",
    "flight's",
    "Weather",
    "FORECAST",
    "e-mail",
    "x2",
    "42",
    "3.14",
    "co-operate",
    "don't",
    "U.S.A.",
    "relational",
    "conditional",
    "agreed",
    "feed",
    "hopping",
    "ability",
    # accented Latin / other scripts that keep whole words
    "café",
    "Café",
    "naïve",
    "Ångström",
    "straße",
    "STRASSE",
    "résumé",
    "jalapeño",
    "Øresund",
    "Привет",
    "мир",
    "مرحبا",
    "שלום",
    "नमस्ते",
    "हिंदी",
    # CJK, kana, hangul
    "東京",
    "東京タワー",
    "日本語",
    "天気",
    "ひらがな",
    "カタカナ",
    "한국어",
    "서울",
    # Thai, Lao, Khmer, Myanmar (combining marks attach to their base character)
    "ภาษาไทย",
    "สวัสดีครับ",
    "ที่นี่",
    "ພາສາລາວ",
    "ភាសាខ្មែរ",
    "မြန်မာ",
    # emoji, full-width, ligatures, compatibility characters, combining accents
    "🙂",
    "👍🏽",
    "🇫🇷",
    "ＡＢＣ",
    "１２３",
    "ﬁnance",
    "Ⅻ",
    "K",
    "e\u0301t\u00e9",
    "½",
    "x²",
    # punctuation and separators
    ",",
    ".",
    "!",
    "?",
    "—",
    "(",
    ")",
    '"',
    "…",
    "\n",
    "\t",
]


def _text(rng: random.Random) -> str:
    n = rng.randint(0, 25)
    sep = rng.choice([" ", " ", "", "\n"])
    return sep.join(rng.choice(WORDS) for _ in range(n))


def _paraphrase(rng: random.Random, text: str) -> str:
    words = text.split(" ")
    for _ in range(rng.randint(0, 3)):
        if words:
            words[rng.randrange(len(words))] = rng.choice(WORDS)
    if rng.random() < 0.3:
        rng.shuffle(words)
    return " ".join(words)


def test_rouge_scores_equal_adk() -> None:
    rng = random.Random(20240601)
    pairs = []
    for _ in range(2500):
        reference = _text(rng)
        candidate = _paraphrase(rng, reference) if rng.random() < 0.7 else _text(rng)
        pairs.append((candidate, reference))
    for candidate, reference in pairs:
        theirs = rouge_mod._calculate_rouge_1_scores(candidate, reference)
        ours = adk_rouge1(candidate, reference)
        assert (ours.precision, ours.recall, ours.fmeasure) == (theirs.precision, theirs.recall, theirs.fmeasure), (
            candidate,
            reference,
        )


def test_rouge_evaluator_equals_adk_rouge_evaluator() -> None:
    rng = random.Random(7)
    pairs = [(_paraphrase(rng, r), r) for r in (_text(rng) for _ in range(400))]
    adk_metric = adk_metrics.EvalMetric(metric_name="response_match_score", threshold=0.6)
    theirs = rouge_mod.RougeEvaluator(adk_metric).evaluate_invocations(
        [_adk_invocation([], c) for c, _ in pairs], [_adk_invocation([], r) for _, r in pairs]
    )
    metric = EvalMetric(metric_name="response_match_score", threshold=0.6)
    ours = asyncio.run(
        ResponseMatchEvaluator().evaluate(
            [_our_invocation([], c) for c, _ in pairs], [_our_invocation([], r) for _, r in pairs], metric
        )
    )
    assert [r.score for r in ours.per_invocation_results] == [r.score for r in theirs.per_invocation_results]
    assert [r.status.value for r in ours.per_invocation_results] == [
        r.eval_status.name.lower() for r in theirs.per_invocation_results
    ]
    assert ours.overall_score == theirs.overall_score


@pytest.mark.parametrize(
    "spelling", [0, 1, 2, 3, True, False, 1.0, "1", "EXACT", "in-order", " ANY ORDER ", "Any-Order", "inorder", ""]
)
def test_match_type_spellings_agree_with_adk(spelling: Any) -> None:
    try:
        theirs = adk_metrics.ToolTrajectoryCriterion(threshold=1.0, match_type=spelling).match_type.value
    except ValueError:
        theirs = None
    try:
        ours = int(parse_match_type(spelling))
    except ValueError:
        ours = None
    assert ours == theirs


_words = st.sampled_from(WORDS) | st.text(min_size=1, max_size=6)


@settings(max_examples=300, deadline=None)
@given(st.lists(_words, max_size=12), st.lists(_words, max_size=12))
def test_rouge_equal_adk_on_arbitrary_unicode(candidate: list[str], reference: list[str]) -> None:
    c, r = " ".join(candidate), " ".join(reference)
    theirs = rouge_mod._calculate_rouge_1_scores(c, r)
    ours = adk_rouge1(c, r)
    assert (ours.precision, ours.recall, ours.fmeasure) == (theirs.precision, theirs.recall, theirs.fmeasure)
