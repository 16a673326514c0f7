"""RunMetadata: label parsing and checking, camelCase round trip, and its place in a result (native and ADK)."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from agentgauge.formats import parse_result, to_adk_result
from agentgauge.model import EvalSetResult, RunMetadata, parse_labels

_KEYS = st.from_regex(r"[A-Za-z0-9][A-Za-z0-9_.\-/]{0,20}", fullmatch=True)
_VALUES = st.text(max_size=40).filter(lambda v: "\x00" not in v)


@given(st.dictionaries(_KEYS, _VALUES, max_size=5))
def test_labels_parse_back_from_key_value_strings(labels: dict[str, str]) -> None:
    assert parse_labels(f"{k}={v}" for k, v in labels.items()) == labels


@given(
    st.builds(
        RunMetadata,
        labels=st.dictionaries(_KEYS, _VALUES, max_size=4),
        git_commit=st.none() | st.from_regex(r"[0-9a-f]{40}", fullmatch=True),
        git_branch=st.none() | st.text(min_size=1, max_size=20),
        git_dirty=st.none() | st.booleans(),
        models=st.lists(st.text(min_size=1, max_size=10), max_size=3),
        started_at=st.none() | st.floats(0, 2e9),
    )
)
def test_metadata_round_trips_through_json(metadata: RunMetadata) -> None:
    result = EvalSetResult(eval_set_id="s", run_metadata=metadata)
    assert parse_result(result.model_dump_json()).run_metadata == metadata


@pytest.mark.parametrize(
    ("given_label", "message"),
    [
        ("env", "label 'env' is not KEY=VALUE"),
        ("=prod", "label '=prod': label key '' is not valid"),
        ("bad key=1", "label 'bad key=1': label key 'bad key' is not valid"),
        ("-x=1", "label '-x=1': label key '-x' is not valid"),
        ("k=" + "v" * 256, "the value has 256 characters, at most 255"),
    ],
)
def test_a_bad_label_is_named(given_label: str, message: str) -> None:
    with pytest.raises(ValueError, match=message.replace("(", r"\(")) as caught:
        parse_labels(["ok=1", given_label])
    assert "ok=1" not in str(caught.value)


def test_values_may_hold_equals_signs_and_later_keys_win() -> None:
    assert parse_labels(["q=a=b", "env=dev", "env=prod"]) == {"q": "a=b", "env": "prod"}


def test_camel_case_keys_and_empty_fields_left_out() -> None:
    metadata = RunMetadata(labels={"env": "prod"}, git_dirty=False, agent_source_hash="ab")
    assert json.loads(metadata.model_dump_json()) == {
        "labels": {"env": "prod"},
        "gitDirty": False,
        "agentSourceHash": "ab",
    }
    assert RunMetadata.model_validate({"git_commit": "c", "agentgaugeVersion": "1"}).git_commit == "c"
    assert metadata.matches({"env": "prod"}) and metadata.matches({})
    assert not metadata.matches({"env": "dev"}) and not metadata.matches({"team": "core"})


def test_a_result_without_metadata_writes_no_key() -> None:
    assert "runMetadata" not in EvalSetResult(eval_set_id="s").model_dump(mode="json")


def test_adk_results_keep_metadata_and_google_adk_loads_them() -> None:
    metadata = RunMetadata(labels={"env": "prod"}, models=["gemini-2.5-flash"], git_dirty=True)
    document = to_adk_result(EvalSetResult(eval_set_id="s", eval_set_result_id="r", run_metadata=metadata))
    assert document["run_metadata"] == {"labels": {"env": "prod"}, "git_dirty": True, "models": ["gemini-2.5-flash"]}
    assert parse_result(json.dumps(document)).run_metadata == metadata
    adk = pytest.importorskip("google.adk.evaluation.eval_result")
    assert adk.EvalSetResult.model_validate(document).eval_set_result_id == "r"
