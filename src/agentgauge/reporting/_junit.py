"""JUnit XML: one ``<testcase>`` per eval case, its runs in properties and output (``--junit-runs``: one per case
run instead)."""

from __future__ import annotations

import json
import re
import tempfile
import xml.etree.ElementTree as ET
from array import array
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import IO, Any

from ..model import EvalCaseResult, EvalSetResult, EvalStatus, UsageTotals
from ..summary import CaseSummary
from ..summary._reasons import case_label, case_mismatches, format_score, group_mismatches, mismatch_text
from ..summary._usage import case_usage, format_cost
from ._links import case_link
from ._transcript import junit_simulation_properties
from ._view import ResultView, build_view

__all__ = ["JUnitWriter", "render_junit"]

# XML 1.0 forbids most control characters even when escaped; agent output can contain them.
_INVALID_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")
_OUTCOME = {EvalStatus.FAILED: "failure", EvalStatus.ERROR: "error", EvalStatus.NOT_EVALUATED: "skipped"}


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
    out = [(name, format_score(v) if isinstance(v, float) else str(v)) for name, v in figures if v is not None]
    if usage.cost is not None:
        out.append(("usage.cost", format_cost(usage.cost).lstrip("≥")))
    if usage.models:
        out.append(("usage.model", ", ".join(usage.models)))
    return out


def _run_outcome(case: EvalCaseResult) -> dict[str, Any]:
    """What the report keeps of one case run: its status, the element it makes, its message and text, its
    simulation properties and its metric scores."""
    status = case.final_eval_status
    mismatches = case_mismatches(case)
    blocks = [mismatch_text(g) for g in group_mismatches(mismatches)]
    outcome: dict[str, Any] = {"run": case.run_id, "status": status.value}
    outcome["sim"] = junit_simulation_properties(case.simulation)
    outcome["metrics"] = [
        (
            f"{'measurement' if m.eval_status is EvalStatus.INFORMATIONAL else 'metric'}.{m.metric_name}",
            format_score(m.score),
        )
        for m in case.overall_eval_metric_results
    ]
    # The element follows the status, so the suite's counts are the report's: an error status is <error>, a
    # failure is <failure> even when an errored metric sits beside the failed one (its message is in the text).
    if status is EvalStatus.ERROR or (case.error_message and status is EvalStatus.NOT_EVALUATED):
        message = case.error_message or "case could not be evaluated"
        outcome.update(element="error", message=message, text="\n\n".join([message, *blocks]))
    elif status is EvalStatus.FAILED or mismatches:
        headline = "; ".join(m.headline for m in mismatches) or (
            f"error: {case.error_message}" if case.error_message else "case failed"
        )
        text = [f"error: {case.error_message}"] if case.error_message and mismatches else []
        outcome.update(element="failure", message=headline, text="\n\n".join([*text, *blocks]) or headline)
    elif status is EvalStatus.NOT_EVALUATED:
        outcome.update(element="skipped", message="not evaluated: no metric produced a score", text="")
    else:
        outcome.update(element="passed", message="", text="")
    return outcome


def _properties(element: ET.Element, pairs: list[tuple[str, str]]) -> None:
    if pairs:
        properties = ET.SubElement(element, "properties")
        for name, value in pairs:
            ET.SubElement(properties, "property", {"name": _clean(name), "value": _clean(value)})


def _verdict(element: ET.Element, kind: str, message: str, text: str) -> None:
    if kind == "skipped":
        ET.SubElement(element, "skipped", {"message": _clean(message)})
    elif kind in ("failure", "error"):
        tag = ET.SubElement(
            element, kind, {"message": _clean(message), "type": "MetricFailure" if kind == "failure" else "EvalError"}
        )
        tag.text = _clean(text)


def _run_testcase(
    classname: str, name: str, usage: UsageTotals, run: dict[str, Any], extra: list[tuple[str, str]]
) -> ET.Element:
    """The ``<testcase>`` of one case run (the layout of one run, and of ``--junit-runs``)."""
    attributes = {"classname": _clean(classname), "name": _clean(name)}
    if usage.duration is not None:  # the agent's time on the case's invocations; absent when not recorded
        attributes["time"] = _seconds(usage.duration)
    element = ET.Element("testcase", attributes)
    metrics = [(name, score) for name, score in run["metrics"]]
    _properties(element, metrics + _usage_properties(usage) + [tuple(p) for p in run["sim"]] + extra)
    _verdict(element, run["element"], run["message"], run["text"])
    return element


def _case_testcase(classname: str, case: CaseSummary, runs: list[dict[str, Any]], link: str | None) -> ET.Element:
    """The ``<testcase>`` of an eval case over several runs: the case's status decides the element, its message
    names the rule; each run's status is a property and its details are in the element's text and
    ``<system-out>``."""
    attributes = {"classname": _clean(classname), "name": _clean(case.eval_id)}
    if case.usage.duration is not None:
        attributes["time"] = _seconds(case.usage.duration)
    element = ET.Element("testcase", attributes)
    pairs = [
        (f"{'measurement' if t.measurement else 'metric'}.{t.name}", format_score(t.average)) for t in case.metrics
    ]
    pairs += _usage_properties(case.usage) + [tuple(p) for p in runs[0]["sim"]]
    pairs += [("case_status", case.status_text), ("runs", str(case.runs)), ("runs_passed", str(case.runs_passed))]
    if case.flaky:
        pairs.append(("flaky", "true"))
    pairs += [(f"run.{run['run']}.status", run["status"]) for run in runs]
    if link and not case.passed:  # the case's replay in the web UI (eval --ui-url)
        pairs.append(("replay", link))
    _properties(element, pairs)
    failing = [run for run in runs if run["element"] != "passed"]
    lines = [f"run {run['run']}: {run['status']}" + (f": {run['message']}" if run["message"] else "") for run in runs]
    if not case.passed:
        kind = _OUTCOME.get(case.status, "failure")
        first = f"; run {failing[0]['run']}: {failing[0]['message']}" if failing else ""
        text = "\n\n".join(f"run {run['run']} ({run['status']}):\n{run['text']}" for run in failing if run["text"])
        _verdict(element, kind, f"{case.eval_id} {case.status_text}{first}", text or "\n".join(lines))
    ET.SubElement(element, "system-out").text = _clean("\n".join(lines))
    return element


def _open_tag(tag: str, attributes: dict[str, str]) -> str:
    # ElementTree escapes the attributes; "<tag a="b" />" becomes "<tag a="b">".
    return ET.tostring(ET.Element(tag, attributes), encoding="unicode")[: -len(" />")] + ">"


class JUnitWriter:
    """A JUnit document built one case result at a time.

    The suite's counts come first in the XML but are only known at the end, and a case's runs may come apart (run
    after run), so what each case run leaves is spooled to a temporary file (not kept in memory) and
    :meth:`chunks` then yields the whole document: one ``<testcase>`` per eval case (the view gives each case's
    status), or with ``per_run`` one per case run, as they came.
    """

    def __init__(self, result: EvalSetResult, view: ResultView, *, per_run: bool = False) -> None:
        self.result = result
        self.view = view
        self.per_run = per_run or not view.multi_run  # one run: a case's testcase is its run's
        self.counts = {"failure": 0, "error": 0, "skipped": 0, "passed": 0}
        self.tests = 0
        self.time: float | None = None  # sum of the known durations
        self._body: IO[str] = tempfile.TemporaryFile("w+", encoding="utf-8")  # noqa: SIM115 - closed in chunks()
        # The grouped layout: each case run's outcome as a JSON line, and per line its case index, start and end.
        self._runs: IO[bytes] | None = None if self.per_run else tempfile.TemporaryFile()  # noqa: SIM115 - ditto
        self._spans = array("q")

    def add(self, case: EvalCaseResult) -> None:
        """Take one case result."""
        run = _run_outcome(case)
        summary = self.view.outcome(case.eval_id) if self.view.multi_run else None
        if self._runs is not None:
            start = self._runs.tell()
            self._runs.write(json.dumps(run).encode("ascii"))  # ASCII: lone surrogates of agent output survive
            self._spans.extend((summary.index if summary is not None else -1, start, self._runs.tell()))
            return
        usage = case_usage(case)
        name = case_label(case, self.view.multi_run)
        extra = []
        if summary is not None and summary.flaky:  # its runs disagree
            extra = [("flaky", "true"), ("runs_passed", f"{summary.runs_passed}/{summary.runs}")]
        link = case_link(self.result, case.eval_id, case.run_id) if run["element"] != "passed" else None
        if link:  # the case run's replay in the web UI (eval --ui-url)
            extra.append(("replay", link))
        self._write(_run_testcase(self.result.eval_set_id, name, usage, run, extra), run["element"], usage.duration)

    def _write(self, element: ET.Element, kind: str, duration: float | None) -> None:
        if duration is not None:
            self.time = duration + (self.time or 0.0)
        self.counts[kind] += 1
        self.tests += 1
        ET.indent(element, level=2)
        self._body.write("    " + ET.tostring(element, encoding="unicode") + "\n")

    def _grouped(self, spooled: IO[bytes]) -> None:
        """The spooled case runs written as one ``<testcase>`` per case, in the view's case order."""
        spans = self._spans
        order = sorted(range(len(spans) // 3), key=lambda k: (spans[3 * k], k))
        position = 0
        for case in self.view.cases:
            runs: list[dict[str, Any]] = []
            while position < len(order) and spans[3 * order[position]] <= case.index:
                k = order[position]
                if spans[3 * k] == case.index:
                    spooled.seek(spans[3 * k + 1])
                    runs.append(json.loads(spooled.read(spans[3 * k + 2] - spans[3 * k + 1])))
                position += 1
            if runs:
                kind = _OUTCOME.get(case.status, "passed")
                link = case_link(self.result, case.eval_id, case.reason_run)
                self._write(_case_testcase(self.result.eval_set_id, case, runs, link), kind, case.usage.duration)

    def chunks(self) -> Iterator[str]:
        """The document (once every case was added)."""
        if self._runs is not None:
            try:
                self._grouped(self._runs)
            finally:
                self._runs.close()
        for missing in self.view.not_run:  # a case of the set the run could not run (no trace): listed, skipped
            element = ET.Element("testcase", {"classname": _clean(self.result.eval_set_id), "name": missing.eval_id})
            _verdict(element, "skipped", missing.status_text, "")
            self._write(element, "skipped", None)
        body = self._body
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
            body.close()
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
            body.seek(0)
            while chunk := body.read(1 << 20):
                yield chunk
        finally:
            body.close()
        yield "  </testsuite>\n</testsuites>\n"


def render_junit(result: EvalSetResult, *, per_run: bool = False) -> str:
    """The result as a JUnit XML document (``<testsuites>`` with one ``<testsuite>`` named after the eval set).

    One ``<testcase>`` per eval case: failed cases are ``<failure>`` elements carrying the Expected / Actual text,
    cases with status ``error`` (the agent, the inference or a metric's evaluator failed and nothing failed) are
    ``<error>``, and cases that were not evaluated are ``<skipped>``: the suite's counts are the report's case
    counts, plus the cases of the set the run could not run (a trace run's cases without a trace: ``<skipped>`` with
    ``not run: no trace``). With several runs the case's status (named with its rule) decides the element; the
    properties ``case_status``, ``runs``, ``runs_passed``, ``flaky`` and ``run.N.status`` and the ``<system-out>``
    give its runs, and the failure text holds the details of every run that did not pass. ``per_run``
    (``--junit-runs``) writes one ``<testcase>`` per case run instead (``case_id [run 2]``; a flaky case's runs have
    the properties ``flaky`` and ``runs_passed``). ``time`` (seconds) is set on a ``<testcase>`` whose invocations
    recorded durations, and on the suites as the sum of those; recorded tokens, model calls and cost are ``usage.*``
    properties.
    """
    view = build_view(result)
    writer = JUnitWriter(result, view, per_run=per_run)
    for case in result.eval_case_results:
        writer.add(case)
    return "".join(writer.chunks())
