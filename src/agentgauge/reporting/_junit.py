"""JUnit XML: one testcase per eval case (per run when there are several runs)."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from datetime import UTC, datetime

from ..model import EvalCaseResult, EvalSetResult, EvalStatus
from ._view import build_view, case_label, case_mismatches, format_score, group_mismatches, mismatch_text

__all__ = ["render_junit"]

# XML 1.0 forbids most control characters even when escaped; agent output can contain them.
_INVALID_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


def _clean(text: str) -> str:
    return _INVALID_XML.sub("\ufffd", text)


def _testcase(case: EvalCaseResult, classname: str, multi_run: bool) -> tuple[ET.Element, str]:
    element = ET.Element("testcase", {"classname": _clean(classname), "name": _clean(case_label(case, multi_run))})
    if case.overall_eval_metric_results:
        properties = ET.SubElement(element, "properties")
        for metric in case.overall_eval_metric_results:
            ET.SubElement(
                properties,
                "property",
                {"name": _clean(f"metric.{metric.metric_name}"), "value": format_score(metric.score)},
            )
    if case.error_message:
        error = ET.SubElement(element, "error", {"message": _clean(case.error_message), "type": "EvalError"})
        error.text = _clean(case.error_message)
        return element, "error"
    mismatches = case_mismatches(case)
    if case.final_eval_status is EvalStatus.FAILED or mismatches:
        headline = "; ".join(m.headline for m in mismatches) or "case failed"
        failure = ET.SubElement(element, "failure", {"message": _clean(headline), "type": "MetricFailure"})
        failure.text = _clean("\n\n".join(mismatch_text(g) for g in group_mismatches(mismatches)) or headline)
        return element, "failure"
    if case.final_eval_status is EvalStatus.NOT_EVALUATED:
        ET.SubElement(element, "skipped", {"message": "not evaluated: no metric produced a score"})
        return element, "skipped"
    return element, "passed"


def render_junit(result: EvalSetResult) -> str:
    """The result as a JUnit XML document (``<testsuites>`` with one ``<testsuite>`` named after the eval set).

    Metric failures are ``<failure>`` elements carrying the Expected / Actual text, cases whose inference or
    evaluation errored are ``<error>``, and cases that were not evaluated are ``<skipped>``.
    """
    view = build_view(result)
    counts = {"failure": 0, "error": 0, "skipped": 0, "passed": 0}
    cases = []
    for case in result.eval_case_results:
        element, outcome = _testcase(case, result.eval_set_id, view.multi_run)
        counts[outcome] += 1
        cases.append(element)
    attributes = {
        "name": _clean(result.eval_set_id),
        "tests": str(len(cases)),
        "failures": str(counts["failure"]),
        "errors": str(counts["error"]),
        "skipped": str(counts["skipped"]),
    }
    if result.creation_timestamp is not None:
        stamp = datetime.fromtimestamp(result.creation_timestamp, tz=UTC)
        attributes["timestamp"] = stamp.strftime("%Y-%m-%dT%H:%M:%S")
    root = ET.Element("testsuites", {k: v for k, v in attributes.items() if k != "timestamp"})
    suite = ET.SubElement(root, "testsuite", attributes)
    if result.eval_set_result_id:
        properties = ET.SubElement(suite, "properties")
        ET.SubElement(properties, "property", {"name": "evalSetResultId", "value": _clean(result.eval_set_result_id)})
    suite.extend(cases)
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"
