"""Property tests: native ↔ ADK conversions lose nothing."""

from __future__ import annotations

import json
from typing import Any

import pytest
from fmt_strategies import adk_eval_sets, eval_sets
from hypothesis import HealthCheck, given, settings

from agentgauge.formats import parse_eval_set, to_adk_eval_set
from agentgauge.model import EvalSet

SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@SETTINGS
@given(eval_sets)
def test_native_json_round_trip(eval_set: EvalSet) -> None:
    again = parse_eval_set(eval_set.model_dump_json())
    assert again.model_dump(mode="json") == eval_set.model_dump(mode="json")


@SETTINGS
@given(eval_sets)
def test_native_to_adk_and_back(eval_set: EvalSet) -> None:
    doc = to_adk_eval_set(eval_set)
    again = parse_eval_set(json.dumps(doc))
    assert again.model_dump(mode="json") == eval_set.model_dump(mode="json")


@SETTINGS
@given(eval_sets)
def test_adk_accepts_our_adk_output(eval_set: EvalSet) -> None:
    adk = pytest.importorskip("google.adk.evaluation.eval_set")
    parsed = adk.EvalSet.model_validate_json(json.dumps(to_adk_eval_set(eval_set)))
    assert [c.eval_id for c in parsed.eval_cases] == [c.eval_id for c in eval_set.eval_cases]


@SETTINGS
@given(adk_eval_sets())
def test_adk_to_native_to_adk_keeps_what_adk_reads(doc: dict[str, Any]) -> None:
    adk = pytest.importorskip("google.adk.evaluation.eval_set")
    original = adk.EvalSet.model_validate(doc)
    native = parse_eval_set(json.dumps(doc))
    back = to_adk_eval_set(parse_eval_set(native.model_dump_json()))
    assert adk.EvalSet.model_validate_json(json.dumps(back)).model_dump() == original.model_dump()
