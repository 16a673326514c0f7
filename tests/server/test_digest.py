"""The digest of a result file read lightly (raw JSON, no full validation) is the digest of the full parse: the
same case runs, reasons, counts, metric means and result-list row, for native and ADK files, camelCase and
snake_case, failed, error and not-evaluated cases and missing fields; anything the light reading does not decide on
goes to the full parse; a changed file is read again."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agentgauge.errors import InputError
from agentgauge.formats._jsonio import parse_json, read_bytes
from agentgauge.formats._results import result_from_document
from agentgauge.model import EvalSetResult, EvalStatus, summarize_statuses
from agentgauge.reporting import build_view
from agentgauge.server._digest import digest_of_result
from agentgauge.server._digest_read import digest_of_document, read_digest
from agentgauge.server._history import ResultHistory, ResultSource
from agentgauge.storage import LocalEvalResultManager

ROOT = Path(__file__).resolve().parents[2]
RESULT_FILES = sorted(
    [
        *ROOT.joinpath("examples").rglob("*.evalset_result.json"),
        *ROOT.joinpath("tests", "formats", "data").rglob("*.evalset_result.json"),
    ]
)


def result_row(result: EvalSetResult) -> dict[str, Any]:
    """A result-list row made from the parsed result: the oracle. Its case counts are the reports' (the view every
    report is built from), its case run counts the runs' statuses."""
    summary, metadata = result.summary, result.run_metadata
    view = build_view(result)
    if summary is not None:
        status: str | None = summary.overall_status.value
    elif result.eval_case_results:
        status = summarize_statuses(c.status for c in view.cases).value
    else:
        status = None
    counts = {"passed": 0, "failed": 0, "error": 0, "not_evaluated": 0}
    runs = dict(counts)
    for case in view.cases:
        counts[case.status.value] += 1
    for run in result.eval_case_results:
        if run.final_eval_status.value in runs:
            runs[run.final_eval_status.value] += 1
    return {
        "evalSetResultId": result.eval_set_result_id,
        "evalSetId": result.eval_set_id,
        "creationTimestamp": result.creation_timestamp,
        "overallStatus": status,
        "numRuns": summary.num_runs if summary is not None else 1,
        "counts": counts,
        "caseRuns": runs,
        "caseStatusRule": view.rule.value,
        "interrupted": result.interrupted,
        "cancelled": result.cancelled,
        "notRun": len(summary.cases_not_run) if summary is not None else 0,
        "labels": dict(metadata.labels) if metadata is not None else {},
        "runMetadata": metadata.model_dump(mode="json") if metadata is not None else {},
    }


def _both(doc: Any) -> tuple[Any, Any]:
    """The light digest (``None``: left to the full parse) and the full parse's digest of a document."""
    return digest_of_document(doc, "doc.json"), digest_of_result(result_from_document(doc, "doc.json"))


@pytest.mark.parametrize("path", RESULT_FILES, ids=lambda p: p.name)
def test_every_result_file_of_the_repository_digests_lightly_as_the_full_parse(path: Path) -> None:
    doc = parse_json(read_bytes(path), str(path))
    light, full = _both(doc)
    assert light is not None, "read lightly, not left to the full parse"
    assert light == full
    assert light.row("rid", "here") == {
        **result_row(result_from_document(doc, "x")),
        "evalSetResultId": "rid",
        "source": "here",
    }


def _metric(name: str, score: Any, status: Any, **extra: Any) -> dict[str, Any]:
    return {"metricName": name, "score": score, "evalStatus": status, **extra}


def _turn(text: str, *metrics: dict[str, Any]) -> dict[str, Any]:
    return {"actualInvocation": {"userContent": {"role": "user", "content": text}}, "evalMetricResults": list(metrics)}


FAIL = _metric(
    "response_match_score", 0.25, "failed", threshold=0.8, details={"reason": "actual 'no' != expected 'yes'"}
)
PASS = _metric("response_match_score", 1.0, "passed", threshold=0.8)

# (name, document, what the light digest must say of its first case: status over its runs, first reason, turns
# and text of the run shown first, runs)
CASES: list[tuple[str, dict[str, Any], tuple[str, str | None, int, str, int]]] = [
    (
        "failed per invocation",
        {
            "evalSetId": "s",
            "evalCaseResults": [
                {
                    "evalId": "a",
                    "finalEvalStatus": "failed",
                    "overallEvalMetricResults": [FAIL],
                    "evalMetricResultPerInvocation": [_turn("hi", PASS), _turn("again", FAIL)],
                }
            ],
        },
        (
            "failed",
            "response_match_score (invocation 2): score 0.25 < threshold 0.8: actual 'no' != expected 'yes'",
            2,
            "hi",
            1,
        ),
    ),
    (
        "failed overall only",
        {
            "evalSetId": "s",
            "evalCaseResults": [
                {
                    "evalId": "a",
                    "finalEvalStatus": 2,
                    "overallEvalMetricResults": [PASS, _metric("tool", 0, "FAILED", threshold=1)],
                }
            ],
        },
        ("failed", "tool: score 0 < threshold 1", 0, "", 1),
    ),
    (
        "error case",
        {
            "evalSetId": "s",
            "evalCaseResults": [
                {
                    "evalId": "a",
                    "finalEvalStatus": "error",
                    "errorMessage": "agent crashed",
                    "errorTraceback": "Traceback ...",
                }
            ],
        },
        ("error", "error: agent crashed", 0, "", 1),
    ),
    (
        "missing fields",
        {"eval_set_id": "s", "eval_case_results": [{}]},
        ("not_evaluated", "not evaluated: no metric produced a score", 0, "", 1),
    ),
    (
        "snake_case ADK with genai messages and int statuses",
        {
            "eval_set_result_id": "r",
            "eval_set_result_name": None,
            "eval_set_id": "s",
            "creation_timestamp": 1700000000,
            "eval_case_results": [
                {
                    "eval_set_file": None,
                    "eval_id": "a",
                    "final_eval_status": 1,
                    "user_id": None,
                    "overall_eval_metric_results": [
                        {
                            "metric_name": "m",
                            "score": 1,
                            "eval_status": 1,
                            "threshold": None,
                            "criterion": {"threshold": 0.5},
                            "details": {"reason": None, "rubric_scores": None},
                        }
                    ],
                    "eval_metric_result_per_invocation": [
                        {
                            "actual_invocation": {
                                "user_content": {"role": "user", "parts": [{"text": "Hello"}, {"text": "there"}]},
                                "final_response": {"role": "model", "parts": [{"text": "Hi"}]},
                                "intermediate_data": {"tool_uses": [], "intermediate_responses": []},
                            },
                            "expected_invocation": None,
                            "eval_metric_results": [
                                {"metric_name": "m", "score": 1, "eval_status": 1, "threshold": None}
                            ],
                        }
                    ],
                }
            ],
        },
        ("passed", None, 1, "Hello\nthere", 1),
    ),
    (
        "several runs: the worst, ties to the lowest run",
        {
            "evalSetId": "s",
            "evalCaseResults": [
                {"evalId": "a", "runId": 1, "finalEvalStatus": "passed"},
                {
                    "evalId": "a",
                    "runId": 2,
                    "finalEvalStatus": "failed",
                    "overallEvalMetricResults": [_metric("m", 0.5, "failed", threshold=1.0, details={})],
                },
                {"evalId": "a", "runId": 3, "finalEvalStatus": "failed", "errorMessage": "later"},
            ],
            "summary": {"overallStatus": "failed", "numRuns": 3},
        },
        ("failed", "m: score 0.5 < threshold 1", 0, "", 3),
    ),
    (
        "legacy string-wrapped file",
        json.dumps({"evalSetId": "s", "evalCaseResults": [{"evalId": "a", "finalEvalStatus": "EvalStatus.PASSED"}]}),  # type: ignore[list-item]
        ("passed", None, 0, "", 1),
    ),
]


@pytest.mark.parametrize(("name", "doc", "first"), CASES, ids=[c[0] for c in CASES])
def test_documents_digest_lightly_as_the_full_parse(name: str, doc: Any, first: tuple[Any, ...]) -> None:
    light, full = _both(doc)
    assert light is not None and light == full
    (case, *_) = light.cases.values()
    shown = light.first_run(case.eval_id)
    assert shown is not None
    assert (case.status.value, case.reason, shown.turns, shown.text, case.runs) == first


def test_counts_means_metadata_and_row() -> None:
    doc = {
        "evalSetId": "s",
        "creationTimestamp": 5.5,
        "cancelled": True,
        "interrupted": True,
        "runMetadata": {
            "labels": {"env": "prod"},
            "gitCommit": "0123456789abcdef",
            "gitDirty": False,
            "models": ["m1", "m2"],
        },
        "evalCaseResults": [
            {
                "evalId": "a",
                "finalEvalStatus": "passed",
                "overallEvalMetricResults": [_metric("x", 1.0, "passed"), _metric("y", None, "not_evaluated")],
            },
            {"evalId": "b", "finalEvalStatus": "failed", "overallEvalMetricResults": [_metric("x", 0.5, "failed")]},
            {"evalId": "c", "finalEvalStatus": "informational"},
        ],
    }
    light, full = _both(doc)
    assert light is not None and light == full
    # Cases by their status (an informational run leaves its case not evaluated), case runs by theirs.
    assert light.counts == {"passed": 1, "failed": 1, "error": 0, "not_evaluated": 1}
    assert light.run_counts == {"passed": 1, "failed": 1, "error": 0, "not_evaluated": 0}
    assert (light.passed_runs, light.total_runs, light.metric_means) == (1, 3, {"x": 0.75})
    assert light.statuses == {"a": "P", "b": "F", "c": "N"}
    assert light.metadata == {"env": "prod", "git commit": "0123456789ab", "git dirty": "false", "models": "m1, m2"}
    row = light.row("file-id", "data dir")
    assert row == {**result_row(result_from_document(doc, "x")), "evalSetResultId": "file-id", "source": "data dir"}
    assert (row["overallStatus"], row["cancelled"], row["labels"]) == ("failed", True, {"env": "prod"})


# Values the full parse reads leniently (pydantic's lax mode, both spellings of a key): left to it, same digest.
LENIENT = [
    (
        "score as text",
        {
            "evalSetId": "s",
            "evalCaseResults": [{"evalId": "a", "overallEvalMetricResults": [_metric("m", "0.5", "passed")]}],
        },
    ),
    ("both spellings", {"evalSetId": "s", "evalCaseResults": [{"evalId": "a", "eval_id": "b"}]}),
    ("run id as a float", {"evalSetId": "s", "evalCaseResults": [{"evalId": "a", "runId": 2.0}]}),
    (
        "boolean threshold in the criterion",
        {
            "evalSetId": "s",
            "evalCaseResults": [
                {
                    "evalId": "a",
                    "overallEvalMetricResults": [
                        _metric("m", 0, "failed", threshold=None, criterion={"threshold": True})
                    ],
                }
            ],
        },
    ),
    ("timestamp as text", {"evalSetId": "s", "creationTimestamp": "12.5", "evalCaseResults": []}),
]


@pytest.mark.parametrize(("name", "doc"), LENIENT, ids=[c[0] for c in LENIENT])
def test_what_the_light_reading_does_not_decide_goes_to_the_full_parse(name: str, doc: Any, tmp_path: Path) -> None:
    light, full = _both(doc)
    assert light is None
    path = tmp_path / "r.evalset_result.json"
    path.write_text(json.dumps(doc))
    assert read_digest(path) == full


@pytest.mark.parametrize(
    "text",
    [
        '{"evalSetId": "s", "evalCaseResults": [{"evalId": "a", "finalEvalStatus": "maybe"}]}',
        '{"evalSetId": "s", "evalCaseResults": [{"evalMetricResultPerInvocation": [{"evalMetricResults": []}]}]}',
        '{"evalSetId": "s", "evalCaseResults": 5}',
        '{"evalCases": []}',
        "[1, 2]",
        "{not json",
    ],
)
def test_a_file_that_is_not_a_readable_result_is_an_input_error(text: str, tmp_path: Path) -> None:
    path = tmp_path / "bad.evalset_result.json"
    path.write_text(text)
    with pytest.raises(InputError) as raised:
        read_digest(path)
    assert raised.value.file == str(path) or str(path) in str(raised.value)


# ---- generated documents ----

_SPELLING = {
    EvalStatus.PASSED: ["passed", "PASSED", 1, "1", "EvalStatus.PASSED"],
    EvalStatus.FAILED: ["failed", "FAILED", 2],
    EvalStatus.ERROR: ["error", "ERROR"],
    EvalStatus.NOT_EVALUATED: ["not_evaluated", "NOT_EVALUATED", 3],
    EvalStatus.INFORMATIONAL: ["informational", 4],
}
_status = st.sampled_from(list(EvalStatus)).flatmap(lambda s: st.sampled_from(_SPELLING[s]))
_text = st.text(st.characters(blacklist_categories=("Cs",)), max_size=12)
_number = st.one_of(st.floats(0, 1, allow_nan=False), st.integers(0, 3))


def _keyed(snake: bool, fields: dict[str, Any]) -> dict[str, Any]:
    """``fields`` (camelCase names) under snake_case names when ``snake``."""
    if not snake:
        return fields
    return {"".join(f"_{c.lower()}" if c.isupper() else c for c in k): v for k, v in fields.items()}


@st.composite
def _metric_doc(draw: Any, snake: bool) -> dict[str, Any]:
    fields: dict[str, Any] = {"metricName": draw(st.sampled_from(["m1", "m2", "m3"])), "evalStatus": draw(_status)}
    if draw(st.booleans()):
        fields["score"] = draw(st.one_of(st.none(), _number))
    threshold = draw(st.sampled_from(["missing", "value", "null", "null with criterion"]))
    if threshold == "value":
        fields["threshold"] = draw(_number)
    elif threshold.startswith("null"):
        fields["threshold"] = None
        if threshold.endswith("criterion"):
            fields["criterion"] = {"threshold": draw(_number)}
    details = draw(st.sampled_from(["missing", "null", "reason", "empty"]))
    if details == "null":
        fields["details"] = None
    elif details == "reason":
        fields["details"] = {"reason": draw(st.one_of(st.none(), _text))}
    elif details == "empty":
        fields["details"] = {"rubricScores": []}
    return _keyed(snake, fields)


@st.composite
def _turn_doc(draw: Any, snake: bool) -> dict[str, Any]:
    text = draw(_text)
    if draw(st.booleans()):
        user: dict[str, Any] = {"role": "user", "parts": [{"text": text}]}
    else:
        user = {"role": "user", "content": text}
    fields = {
        "actualInvocation": _keyed(snake, {"userContent": user}),
        "evalMetricResults": draw(st.lists(_metric_doc(snake), max_size=3)),
    }
    return _keyed(snake, fields)


@st.composite
def _case_doc(draw: Any) -> dict[str, Any]:
    snake = draw(st.booleans())
    fields: dict[str, Any] = {"evalId": draw(st.sampled_from(["a", "b", "c", "d"]))}
    if draw(st.booleans()):
        fields["runId"] = draw(st.integers(1, 3))
    if draw(st.booleans()):
        fields["finalEvalStatus"] = draw(_status)
    if draw(st.booleans()):
        fields["errorMessage"] = draw(st.one_of(st.none(), _text))
    fields["overallEvalMetricResults"] = draw(st.lists(_metric_doc(snake), max_size=3))
    fields["evalMetricResultPerInvocation"] = draw(st.lists(_turn_doc(snake), max_size=3))
    return _keyed(snake, fields)


@st.composite
def _result_doc(draw: Any) -> dict[str, Any]:
    snake = draw(st.booleans())
    fields: dict[str, Any] = {
        "evalSetResultId": "r",
        "evalSetId": "s",
        "evalCaseResults": draw(st.lists(_case_doc(), max_size=6)),
    }
    if draw(st.booleans()):
        fields["creationTimestamp"] = draw(st.one_of(st.none(), st.floats(0, 2e9), st.integers(0, 2**31)))
    if draw(st.booleans()):
        fields["summary"] = _keyed(snake, {"overallStatus": draw(_status), "numRuns": draw(st.integers(1, 5))})
    if draw(st.booleans()):
        fields["runMetadata"] = _keyed(
            snake, {"labels": {"env": draw(st.sampled_from(["dev", "prod"]))}, "gitBranch": "main"}
        )
    return _keyed(snake, fields)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_result_doc())
def test_generated_results_digest_lightly_as_the_full_parse(doc: dict[str, Any]) -> None:
    doc = parse_json(json.dumps(doc).encode(), "generated.json")  # through the JSON reader, as a file is
    light, full = _both(doc)
    assert light is not None
    assert light == full
    assert light.row("r", "x") == {**result_row(result_from_document(doc, "x")), "evalSetResultId": "r", "source": "x"}


# ---- one digest per version of the file ----


def _write(path: Path, status: str, reason: str) -> None:
    metric = _metric("m", 0.0 if status == "failed" else 1.0, status, threshold=0.5, details={"reason": reason})
    doc = {
        "evalSetId": "s",
        "evalCaseResults": [{"evalId": "a", "finalEvalStatus": status, "overallEvalMetricResults": [metric]}],
    }
    path.write_text(json.dumps(doc))


def test_a_changed_file_is_digested_again_an_unchanged_one_is_not(tmp_path: Path) -> None:
    history = ResultHistory([ResultSource("data dir", LocalEvalResultManager(tmp_path), tmp_path)])
    path = tmp_path / "app" / "r1.evalset_result.json"
    path.parent.mkdir()
    _write(path, "failed", "first")
    first = history.digest("app", "r1")
    assert first.cases["a"].reason == "m: score 0 < threshold 0.5: first"
    assert history.digest("app", "r1") is first  # kept while the file is the same
    _write(path, "failed", "second, longer")  # edited in place: another size
    assert history.digest("app", "r1").cases["a"].reason == "m: score 0 < threshold 0.5: second, longer"
    replaced = tmp_path / "new.json"
    _write(replaced, "passed", "x")
    os.replace(replaced, path)  # an atomic write: another inode
    assert history.digest("app", "r1").cases["a"].status is EvalStatus.PASSED
    assert [r["overallStatus"] for r in history.rows("app")] == ["passed"]
    path.write_text("{broken")
    assert history.rows("app") == []  # a damaged file hides its row
    with pytest.raises(InputError):
        history.digest("app", "r1")
