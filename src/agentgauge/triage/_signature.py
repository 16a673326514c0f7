"""The deterministic signature of one failing case run: what failed first, how its run diverged from the expected
one, at which tool, and its reason with the particulars taken out (numbers, ids, quoted values)."""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..divergence import Divergence, DivergenceKind, golden_divergence
from ..model import EvalCaseResult, EvalMetricResult, EvalStatus

__all__ = ["ERROR_METRIC", "Signature", "case_signature", "failure_reason", "reason_template"]

ERROR_METRIC = "(error)"
"""The "first failing metric" of a run that failed before any metric: its agent or inference failed."""

_PATTERNS = [
    (re.compile(r"'(?:[^'\\\n]|\\.)*'"), "<q>"),  # quoted values: 'Paris', "Lyon"
    (re.compile(r'"(?:[^"\\\n]|\\.)*"'), "<q>"),
    (re.compile(r"\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b", re.I), "<id>"),
    (re.compile(r"\b(?=[0-9a-f]*\d)[0-9a-f]{8,}\b", re.I), "<id>"),  # hex ids, trace and span ids
    (re.compile(r"\b[A-Za-z]+[_-](?=[A-Za-z0-9_-]*\d)[A-Za-z0-9_-]+\b"), "<id>"),  # call_1_2, req-42, tool_calc_1
    (re.compile(r"[-+]?\d+(?:\.\d+)?(?:e[-+]?\d+)?", re.I), "<n>"),
]
_SPACE = re.compile(r"\s+")
_TEMPLATE_LIMIT = 240


def reason_template(text: str) -> str:
    """``text`` with what differs from one failure to the next replaced: quoted values by ``<q>``, ids by
    ``<id>``, numbers by ``<n>`` (first line, whitespace collapsed, at most 240 characters)."""
    line = text.strip().splitlines()[0] if text.strip() else ""
    for pattern, placeholder in _PATTERNS:
        line = pattern.sub(placeholder, line)
    line = _SPACE.sub(" ", line).strip()
    return line[:_TEMPLATE_LIMIT]


def _first_failing(run: EvalCaseResult) -> EvalMetricResult | None:
    for metric in run.overall_eval_metric_results:
        if metric.eval_status in (EvalStatus.FAILED, EvalStatus.ERROR):
            return metric
    return None


def _metric_reason(run: EvalCaseResult, metric: EvalMetricResult) -> str:
    """The reason of the first turn the metric failed on (the most particular), else the metric's own."""
    for entry in run.eval_metric_result_per_invocation:
        for per in entry.eval_metric_results:
            failed = per.metric_name == metric.metric_name and per.eval_status is EvalStatus.FAILED
            if failed and per.details is not None and per.details.reason:
                return per.details.reason
    if metric.details is not None and metric.details.reason:
        return metric.details.reason
    return f"score {metric.score} < threshold {metric.threshold:g}"


def failure_reason(run: EvalCaseResult) -> tuple[str, str]:
    """(first failing metric, its reason) of a run that did not pass: ``(error)`` and the error message for a run
    that failed before its metrics, else the first failed (or errored) metric and its reason."""
    if run.error_message:
        return ERROR_METRIC, run.error_message
    metric = _first_failing(run)
    if metric is None:
        return f"({run.final_eval_status.value})", ""
    return metric.metric_name, _metric_reason(run, metric)


@dataclass(frozen=True, slots=True)
class Signature:
    """What groups failures together: equal signatures, one cluster."""

    metric: str
    """The first failing metric (or ``(error)``)."""
    divergence: DivergenceKind | None
    """How the run first diverged from its expected turns (``None``: it did not, or there were none)."""
    tool: str
    """The tool at that divergence ("" when there is none)."""
    template: str
    """The reason with numbers, ids and quoted values replaced (:func:`reason_template`)."""

    def text(self) -> str:
        """``metric · divergence at tool · template``, as clusters are titled."""
        where = ""
        if self.divergence is not None:
            where = f"{self.divergence.value}" + (f" at {self.tool}" if self.tool else "")
        return " · ".join(part for part in (self.metric, where, self.template) if part)


def _tool(divergence: Divergence | None) -> str:
    if divergence is None:
        return ""
    for step in (divergence.new, divergence.base):
        if step is not None and step.kind == "tool":
            return step.name
    return ""


def case_signature(run: EvalCaseResult) -> tuple[Signature, str, Divergence | None]:
    """The run's signature, its full reason (for examples) and its divergence from the expected turns."""
    metric, reason = failure_reason(run)
    divergence = golden_divergence(run)
    kind = divergence.kind if divergence is not None else None
    return Signature(metric, kind, _tool(divergence), reason_template(reason)), reason, divergence
