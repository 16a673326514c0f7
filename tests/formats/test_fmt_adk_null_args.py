"""Tool calls without arguments (``args`` absent or ``null``) stay distinct from ``args: {}`` end to end.

ADK keeps ``FunctionCall.args`` as ``None`` and compares with ``==``, so ``None`` never matches ``{}``. Eval sets
are written as ADK JSON, read by agentgauge's loader and by ADK itself, and scored by both trajectory evaluators.
"""

from __future__ import annotations

import asyncio
import itertools
import json
from pathlib import Path
from typing import Any

import pytest

traj_mod = pytest.importorskip("google.adk.evaluation.trajectory_evaluator", reason="google-adk is not installed")
adk_set = pytest.importorskip("google.adk.evaluation.eval_set")
adk_metrics = pytest.importorskip("google.adk.evaluation.eval_metrics")

from agentgauge.evaluators import ToolTrajectoryEvaluator  # noqa: E402
from agentgauge.formats import load_eval_set, parse_eval_set, save_eval_set  # noqa: E402
from agentgauge.model import Criterion, EvalMetric  # noqa: E402

ABSENT: Any = object()
VARIANTS: dict[str, Any] = {"absent": ABSENT, "null": None, "empty": {}, "value": {"q": 1}}


def _call(call_id: str, name: str, args: Any) -> dict[str, Any]:
    call: dict[str, Any] = {"id": call_id, "name": name}
    if args is not ABSENT:
        call["args"] = args
    return call


def _invocation(inv_id: str, calls: list[tuple[str, Any]]) -> dict[str, Any]:
    return {
        "invocation_id": inv_id,
        "user_content": {"role": "user", "parts": [{"text": "q"}]},
        "final_response": {"role": "model", "parts": [{"text": "a"}]},
        "intermediate_data": {
            "tool_uses": [_call(f"{inv_id}-{k}", name, args) for k, (name, args) in enumerate(calls)],
            "tool_responses": [],
            "intermediate_responses": [],
        },
    }


SINGLE: list[tuple[str, str]] = []  # (actual, expected) variant names of the single-call pairs, in order


def _pairs() -> list[tuple[list[tuple[str, Any]], list[tuple[str, Any]]]]:
    # (actual calls, expected calls): every pair of variants, alone and among other calls (for IN/ANY_ORDER).
    out = []
    SINGLE.clear()
    for (a_name, a), (e_name, e) in itertools.product(VARIANTS.items(), repeat=2):
        SINGLE.append((a_name, e_name))
        out.append(([("ping", a)], [("ping", e)]))
        out.append(([("other", {}), ("ping", a)], [("ping", e)]))
        out.append(([("ping", a), ("other", None)], [("other", ABSENT), ("ping", e)]))
    return out


def _eval_set_json(conversation: list[dict[str, Any]]) -> str:
    return json.dumps({"eval_set_id": "s", "eval_cases": [{"eval_id": "c", "conversation": conversation}]})


@pytest.mark.parametrize("match_type", ["EXACT", "IN_ORDER", "ANY_ORDER"])
@pytest.mark.parametrize("ignore_args", [False, True])
def test_scores_equal_adk_for_absent_null_and_empty_args(match_type: str, ignore_args: bool) -> None:
    pairs = _pairs()
    actual_json = _eval_set_json([_invocation(f"i{n}", a) for n, (a, _) in enumerate(pairs)])
    expected_json = _eval_set_json([_invocation(f"i{n}", e) for n, (_, e) in enumerate(pairs)])

    criterion = {"threshold": 1.0, "match_type": match_type, "ignore_args": ignore_args}
    adk_metric = adk_metrics.EvalMetric(
        metric_name="tool_trajectory_avg_score",
        threshold=1.0,
        criterion=adk_metrics.ToolTrajectoryCriterion(**criterion),
    )
    adk_actual = adk_set.EvalSet.model_validate_json(actual_json).eval_cases[0].conversation
    adk_expected = adk_set.EvalSet.model_validate_json(expected_json).eval_cases[0].conversation
    theirs = traj_mod.TrajectoryEvaluator(eval_metric=adk_metric).evaluate_invocations(adk_actual, adk_expected)

    our_actual = parse_eval_set(actual_json).eval_cases[0].conversation
    our_expected = parse_eval_set(expected_json).eval_cases[0].conversation
    assert our_actual is not None and our_expected is not None
    metric = EvalMetric(metric_name="tool_trajectory_avg_score", threshold=1.0, criterion=Criterion(adk=criterion))
    ours = asyncio.run(ToolTrajectoryEvaluator().evaluate(our_actual, our_expected, metric))

    their_scores = [r.score for r in theirs.per_invocation_results]
    assert [r.score for r in ours.per_invocation_results] == their_scores
    single = dict(zip(SINGLE, their_scores[::3], strict=True))
    if ignore_args:
        assert set(single.values()) == {1.0}
    else:
        # ``{}`` against an absent/null args is a mismatch in ADK; the first pairs cover exactly that.
        assert single["empty", "null"] == single["null", "empty"] == single["absent", "empty"] == 0.0
        assert single["absent", "null"] == single["null", "absent"] == single["empty", "empty"] == 1.0


def test_absent_and_null_args_read_as_none_and_empty_as_empty() -> None:
    doc = _eval_set_json([_invocation("i", [("a", ABSENT), ("b", None), ("c", {})])])
    conversation = parse_eval_set(doc).eval_cases[0].conversation
    assert conversation is not None
    assert [(t.name, t.arguments) for t in conversation[0].tools] == [("a", None), ("b", None), ("c", {})]


def _adk_args(path: Path) -> list[list[Any]]:
    eval_set = adk_set.EvalSet.model_validate_json(path.read_text())
    return [
        [call.args for call in inv.intermediate_data.tool_uses]
        for case in eval_set.eval_cases
        for inv in case.conversation
    ]


@pytest.mark.parametrize("explicit_null", [False, True])
def test_adk_native_adk_round_trip_keeps_null_apart_from_empty(tmp_path: Path, explicit_null: bool) -> None:
    calls = [("a", None if explicit_null else ABSENT), ("b", {}), ("c", {"x": [1, None]})]
    source = tmp_path / "in.evalset.json"
    source.write_text(_eval_set_json([_invocation("i", calls)]))

    native = tmp_path / "native.json"
    save_eval_set(load_eval_set(source), native)
    tools = json.loads(native.read_text())["evalCases"][0]["conversation"][0]["tools"]
    assert [t["arguments"] for t in tools] == [None, {}, {"x": [1, None]}]

    back = tmp_path / "back.evalset.json"
    save_eval_set(load_eval_set(native), back, fmt="adk")
    assert _adk_args(back) == _adk_args(source) == [[None, {}, {"x": [1, None]}]]
    written = json.loads(back.read_text())["eval_cases"][0]["conversation"][0]["intermediate_data"]["tool_uses"]
    assert written[1]["args"] == {} and ("args" in written[0]) is explicit_null

    # Written straight from the ADK file, too (the original intermediate data is kept when unchanged).
    direct = tmp_path / "direct.evalset.json"
    save_eval_set(load_eval_set(source), direct, fmt="adk")
    assert _adk_args(direct) == [[None, {}, {"x": [1, None]}]]


def test_native_null_and_absent_arguments_keep_their_meaning(tmp_path: Path) -> None:
    # The native (trpc) form: absent arguments default to {}, an explicit null stays null (JSON exact: null != {}).
    doc = {
        "evalSetId": "s",
        "evalCases": [
            {
                "evalId": "c",
                "conversation": [
                    {
                        "userContent": {"role": "user", "content": "q"},
                        "tools": [{"id": "1", "name": "a"}, {"id": "2", "name": "b", "arguments": None}],
                    }
                ],
            }
        ],
    }
    conversation = parse_eval_set(json.dumps(doc)).eval_cases[0].conversation
    assert conversation is not None
    assert [t.arguments for t in conversation[0].tools] == [{}, None]
    out = tmp_path / "s.adk.json"
    save_eval_set(parse_eval_set(json.dumps(doc)), out, fmt="adk")
    assert _adk_args(out) == [[{}, None]]


@pytest.mark.parametrize("variant", ["absent", "null", "empty", "value"])
def test_fast_path_and_general_path_agree(variant: str, monkeypatch: pytest.MonkeyPatch) -> None:
    from agentgauge.formats import _adk_read
    from agentgauge.formats._adk_fast import fast_invocation
    from agentgauge.formats._fast_build import build_case

    inv = _invocation("i", [("a", VARIANTS[variant]), ("b", {"k": 1})])
    inv["intermediate_data"]["tool_responses"] = [
        {"id": "i-0", "name": "a", "response": {"r": 0}},
        {"id": "i-1", "name": "b", "response": {"r": 1}},
    ]
    args = None if variant == "absent" else VARIANTS[variant]
    fast = fast_invocation(inv)
    assert (fast is not None) == (variant != "null")  # an explicit null is rare: the general path keeps it as is
    built = build_case({"eval_id": "c", "conversation": [inv]})
    monkeypatch.setattr(_adk_read, "fast_invocation", lambda _inv: None)
    general = _adk_read.invocation_from_adk(inv, "", "")
    if fast is not None:
        assert fast == general
        assert built is not None and built.conversation is not None
        assert [t.arguments for t in built.conversation[0].tools] == [args, {"k": 1}]
    assert [t["arguments"] for t in general["tools"]] == [args, {"k": 1}]


def test_reports_show_a_call_without_arguments_apart_from_empty_arguments() -> None:
    from agentgauge.model import Tool
    from agentgauge.summary._reasons import format_tool_call

    assert format_tool_call(Tool(name="ping", arguments=None)) == "ping()"
    assert format_tool_call(Tool(name="ping", arguments={})) == "ping({})"


def test_empty_results_survive_the_native_form() -> None:
    # ``{}`` is a result (ADK response {}, trpc result {}); only a missing result is left out of the native file.
    call = {"id": "0", "name": "t"}
    doc = _eval_set_json([_invocation("i", [])])
    adk = json.loads(doc)
    adk["eval_cases"][0]["conversation"][0]["intermediate_data"] = {
        "tool_uses": [call, {"id": "1", "name": "u", "args": {}}],
        "tool_responses": [{"id": "0", "name": "t", "response": {}}],
    }
    native = parse_eval_set(json.dumps(adk)).model_dump(mode="json")
    tools = native["evalCases"][0]["conversation"][0]["tools"]
    assert tools == [
        {"id": "0", "name": "t", "arguments": None, "result": {}},
        {"id": "1", "name": "u", "arguments": {}},
    ]
    again = parse_eval_set(json.dumps(native)).eval_cases[0].conversation
    assert again is not None and [t.result for t in again[0].tools] == [{}, None]
