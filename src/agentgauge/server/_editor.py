"""The input checks of ``agentgauge validate`` on the server's paths: cases the editor (or ADK Web) saves, metrics
files it writes, and the eval set and metrics a run reads.

Errors (a key the input's own tool refuses: ADK's ``Invocation``; a threshold outside a metric's range) answer 422
naming every field, and nothing is saved or run; warnings (a key the tool ignores or keeps) are answered with the
request: in the body of the check and run routes, in the ``X-Agentgauge-Warnings`` header of the save routes (a
JSON array of ``{"path", "message", ...}``). ``serve --strict`` (``ServerConfig.strict_inputs``) makes every
warning an error.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from fastapi import HTTPException

from ..formats import InputProblem, InputReport, KeyRules, MetricPaths, case_key_rules, check_case_keys

if TYPE_CHECKING:  # pragma: no cover
    from ..model import EvalMetric
    from ._runs import RunHost as RunInputs

__all__ = [
    "WARNINGS_HEADER",
    "case_report",
    "problems_json",
    "refuse_errors",
    "run_input_warnings",
    "server_report",
    "warnings_header",
]

WARNINGS_HEADER = "X-Agentgauge-Warnings"
_MAX_HEADER_WARNINGS = 20  # a header is bounded (a few KB): the first ones, then how many more
_MAX_DETAIL_ERRORS = 20


def server_report(state: RunInputs) -> InputReport:
    """An empty report, strict when the server is (``serve --strict``)."""
    return InputReport(strict=state.config.strict_inputs, strict_reason="serve --strict")


def case_report(state: RunInputs, body: Any, rules: KeyRules | None = None) -> tuple[InputReport, KeyRules]:
    """The unknown keys of one case sent to the server, judged by ``rules`` (default: by the body's own shape:
    see :func:`~agentgauge.formats.case_key_rules`), and the rules used."""
    used = rules if rules is not None else case_key_rules(body)
    report = server_report(state)
    report.extend(check_case_keys(body, used))
    return report, used


def problems_json(problems: Sequence[InputProblem]) -> list[dict[str, Any]]:
    """The problems as JSON (``path``, ``key``, ``didYouMean``, ``message``, ``severity``, ``file``)."""
    return [problem.as_json() for problem in problems]


def refuse_errors(report: InputReport, what: str) -> None:
    """Answer 422 naming every error of ``report`` (``what`` says what was refused) when there is one."""
    errors = report.errors
    if not errors:
        return
    listed = "; ".join(problem.line() for problem in errors[:_MAX_DETAIL_ERRORS])
    more = f"; and {len(errors) - _MAX_DETAIL_ERRORS} more" if len(errors) > _MAX_DETAIL_ERRORS else ""
    raise HTTPException(422, f"{what}: {listed}{more}")


def warnings_header(report: InputReport) -> dict[str, str]:
    """The ``X-Agentgauge-Warnings`` header of a response (none without warnings): a JSON array (ASCII) of the
    first warnings, the last entry ``{"more": N}`` when there were more."""
    warnings = report.warnings
    if not warnings:
        return {}
    shown: list[dict[str, Any]] = problems_json(warnings[:_MAX_HEADER_WARNINGS])
    if len(warnings) > _MAX_HEADER_WARNINGS:
        shown.append({"more": len(warnings) - _MAX_HEADER_WARNINGS})
    return {WARNINGS_HEADER: json.dumps(shown, ensure_ascii=True)}


def run_input_warnings(
    state: RunInputs, app: str, set_id: str, file_problems: Sequence[InputProblem], metrics: list[EvalMetric] | None
) -> list[InputProblem]:
    """Check what a run reads before it starts: the eval set file's unknown keys (``file_problems``, found when it
    was parsed) and its metrics -- the request's (``metrics``), else the set's metrics file, whose unknown keys
    are read too. Errors answer 422 (a hard problem with a metric: :class:`~agentgauge.errors.InputError`, 400);
    the warnings are returned."""
    from ..formats import load_metrics

    report = server_report(state)
    report.extend(file_problems)
    if metrics is not None:
        state.registry.validate_metrics(metrics, file="metrics", report=report, paths=MetricPaths(prefix="metrics"))
    else:
        path = state.metrics.path_for(app, set_id)
        if path.is_file():
            found = load_metrics(path, expand=False, report=report)
            state.registry.validate_metrics(found, file=str(path), report=report, paths=MetricPaths.of_file(path))
    refuse_errors(report, f"eval set {set_id!r} not run")
    return report.warnings
