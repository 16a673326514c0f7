"""JUnit XML: one testcase per eval case (per run when there are several runs)."""

from __future__ import annotations

import re
import tempfile
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import IO

from ..model import EvalCaseResult, EvalSetResult, EvalStatus, UsageTotals
from ..summary._reasons import case_label, case_mismatches, format_score, group_mismatches, mismatch_text
from ..summary._usage import case_usage, format_cost
from ._transcript import junit_simulation_properties
from ._view import CaseOutcome, ResultView, build_view

__all__ = ["JUnitWriter", "render_junit"]

# XML 1.0 forbids most control characters even when escaped; agent output can contain them.
_INVALID_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


def _clean(text: str) -> str:
    return _INVALID_XML.sub("\ufffd", text)


def _seconds(value: float) -> str:
    return f"{value:.3f}"


def _usage_properties(usage: UsageTotals) -> list[tuple[str, str]]:
    figures: list[tuple[str, float | int | None]] = [
        ("usage.input_tokens", usage.input_tokens),
        ("usage.output_tokens", usage.output_tokens),
        ("usage.total_tokens", usage.total_tokens),
        ("usage.model_calls", usage.model_calls),
        ("usage.model_duration", usage.model_duration),
        ("usage.tool_duration", usage.tool_duration),
    ]
    out = [(name, format_score(value) if isinstance(value, float) else str(value)) for name, value in figures
           if value is not None]  # fmt: skip
    if usage.cost is not None:
        out.append(("usage.cost", format_cost(usage.cost).lstrip("≥")))
    if usage.models:
        out.append(("usage.model", ", ".join(usage.models)))
    return out


def _testcase(
    case: EvalCaseResult,
    classname: str,
    multi_run: bool,
    usage: UsageTotals | None = None,
    outcome: CaseOutcome | None = None,
) -> tuple[ET.Element, str]:
    usage = case_usage(case) if usage is None else usage
    attributes = {"classname": _clean(classname), "name": _clean(case_label(case, multi_run))}
    if usage.duration is not None:  # the agent's time on the case's invocations; absent when not recorded
        attributes["time"] = _seconds(usage.duration)
    element = ET.Element("testcase", attributes)
    extra = _usage_properties(usage) + junit_simulation_properties(case.simulation)
    if outcome is not None and 0 < outcome.runs_passed < outcome.runs:  # its runs disagree
        extra += [("flaky", "true"), ("runs_passed", f"{outcome.runs_passed}/{outcome.runs}")]
    if case.overall_eval_metric_results or extra:
        properties = ET.SubElement(element, "properties")
        for metric in case.overall_eval_metric_results:
            ET.SubElement(
                properties,
                "property",
                {"name": _clean(f"metric.{metric.metric_name}"), "value": format_score(metric.score)},
            )
        for name, value in extra:
            ET.SubElement(properties, "property", {"name": name, "value": _clean(value)})
    status = case.final_eval_status
    mismatches = case_mismatches(case)
    blocks = [mismatch_text(g) for g in group_mismatches(mismatches)]
    # The element follows the case's status, so the suite's counts are the report's: an error status is <error>,
    # a failure is <failure> even when an errored metric sits beside the failed one (its message is in the text).
    if status is EvalStatus.ERROR or (case.error_message and status is EvalStatus.NOT_EVALUATED):
        message = case.error_message or "case could not be evaluated"
        error = ET.SubElement(element, "error", {"message": _clean(message), "type": "EvalError"})
        error.text = _clean("\n\n".join([message, *blocks]))
        return element, "error"
    if status is EvalStatus.FAILED or mismatches:
        headline = "; ".join(m.headline for m in mismatches) or (
            f"error: {case.error_message}" if case.error_message else "case failed"
        )
        failure = ET.SubElement(element, "failure", {"message": _clean(headline), "type": "MetricFailure"})
        text = [f"error: {case.error_message}"] if case.error_message and mismatches else []
        failure.text = _clean("\n\n".join([*text, *blocks]) or headline)
        return element, "failure"
    if case.final_eval_status is EvalStatus.NOT_EVALUATED:
        ET.SubElement(element, "skipped", {"message": "not evaluated: no metric produced a score"})
        return element, "skipped"
    return element, "passed"


def _open_tag(tag: str, attributes: dict[str, str]) -> str:
    # ElementTree escapes the attributes; "<tag a="b" />" becomes "<tag a="b">".
    return ET.tostring(ET.Element(tag, attributes), encoding="unicode")[: -len(" />")] + ">"


class JUnitWriter:
    """A JUnit document built one case result at a time.

    The suite's counts come first in the XML but are only known at the end, so the ``<testcase>`` elements are
    spooled to a temporary file (not kept in memory) and :meth:`chunks` then yields the whole document.
    """

    def __init__(self, result: EvalSetResult, multi_run: bool, view: ResultView | None = None) -> None:
        self.result = result
        self.multi_run = multi_run
        self.view = view  # for each case's runs (flaky cases get properties saying so)
        self.counts = {"failure": 0, "error": 0, "skipped": 0, "passed": 0}
        self.tests = 0
        self.time: float | None = None  # sum of the known case durations
        self._body: IO[str] = tempfile.TemporaryFile("w+", encoding="utf-8")  # noqa: SIM115 - closed in chunks()

    def add(self, case: EvalCaseResult) -> None:
        """Add one ``<testcase>``."""
        usage = case_usage(case)
        runs = self.view.outcome(case.eval_id) if self.view is not None and self.multi_run else None
        element, outcome = _testcase(case, self.result.eval_set_id, self.multi_run, usage, runs)
        if usage.duration is not None:
            self.time = usage.duration + (self.time or 0.0)
        self.counts[outcome] += 1
        self.tests += 1
        ET.indent(element, level=2)
        self._body.write("    " + ET.tostring(element, encoding="unicode") + "\n")

    def chunks(self) -> Iterator[str]:
        """The document (once every case was added)."""
        result = self.result
        attributes = {
            "name": _clean(result.eval_set_id),
            "tests": str(self.tests),
            "failures": str(self.counts["failure"]),
            "errors": str(self.counts["error"]),
            "skipped": str(self.counts["skipped"]),
        }
        if self.time is not None:
            attributes["time"] = _seconds(self.time)
        if result.creation_timestamp is not None:
            stamp = datetime.fromtimestamp(result.creation_timestamp, tz=UTC)
            attributes["timestamp"] = stamp.strftime("%Y-%m-%dT%H:%M:%S")
        yield '<?xml version="1.0" encoding="UTF-8"?>\n'
        yield _open_tag("testsuites", {k: v for k, v in attributes.items() if k != "timestamp"}) + "\n"
        if not self.tests and not result.eval_set_result_id:
            empty = ET.tostring(ET.Element("testsuite", attributes), encoding="unicode")
            yield f"  {empty}\n</testsuites>\n"
            self._body.close()
            return
        yield "  " + _open_tag("testsuite", attributes) + "\n"
        if result.eval_set_result_id:
            properties = ET.Element("properties")
            ET.SubElement(
                properties, "property", {"name": "evalSetResultId", "value": _clean(result.eval_set_result_id)}
            )
            ET.indent(properties, level=2)
            yield "    " + ET.tostring(properties, encoding="unicode") + "\n"
        try:
            self._body.seek(0)
            while chunk := self._body.read(1 << 20):
                yield chunk
        finally:
            self._body.close()
        yield "  </testsuite>\n</testsuites>\n"


def render_junit(result: EvalSetResult) -> str:
    """The result as a JUnit XML document (``<testsuites>`` with one ``<testsuite>`` named after the eval set).

    Failed cases are ``<failure>`` elements carrying the Expected / Actual text, cases with status ``error`` (the
    agent, the inference or a metric's evaluator failed and nothing failed) are ``<error>``, and cases that were
    not evaluated are ``<skipped>``: the suite's counts are the report's case counts. ``time`` (seconds) is
    set on a ``<testcase>`` whose invocations recorded durations, and on the suites as the sum of those; recorded
    tokens, model calls and cost are ``usage.*`` properties. A run of a flaky case (its runs disagree) has the
    properties ``flaky`` (``true``) and ``runs_passed`` (``2/3``).
    """
    view = build_view(result)
    writer = JUnitWriter(result, view.multi_run, view)
    for case in result.eval_case_results:
        writer.add(case)
    return "".join(writer.chunks())
