"""``agentgauge traces doctor FILE_OR_DIR``: what a trace export lacks for scoring and how to fix it (see
:mod:`agentgauge.traces._doctor` and docs/traces.md)."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from ._common import echo_text, fail_input, input_errors_exit_2
from ._options import TextOrJsonOption
from ._traces_cmds import traces_app

if TYPE_CHECKING:  # pragma: no cover
    from ..traces._doctor import Check, DoctorReport

__all__ = ["doctor", "render_doctor"]

WIDTH = 80
"""Terminal lines are wrapped to this many columns."""

_LABELS = {"ok": "ok", "missing": "MISSING", "partial": "PARTIAL", "note": "note"}


def _wrap(text: str, first: str, rest: str) -> list[str]:
    return textwrap.wrap(text, WIDTH, initial_indent=first, subsequent_indent=rest, break_on_hyphens=False) or [first]


def _check_lines(check: Check) -> list[str]:
    head = f"  {_LABELS[check.status]:<8}"
    lines = _wrap(f"{check.name}: {check.detail}", head, " " * len(head))
    if check.fix and check.status != "ok":
        lines += _wrap(check.fix, " " * len(head) + "fix: ", " " * (len(head) + 5))
    return lines


def render_doctor(report: DoctorReport) -> str:
    """The terminal form of a report: a summary line, each producer with its checks, then the notes; no line
    longer than :data:`WIDTH` (long words, such as a path, excepted)."""
    lines = _wrap(
        f"{report.path}: {report.genai_traces} agent trace(s) of {report.traces} in {report.files} file(s)", "", "  "
    )
    for producer in report.producers:
        lines.append("")
        lines += _wrap(f"{producer.producer}: {producer.traces} trace(s), {producer.spans} span(s)", "", "  ")
        for check in producer.checks:
            lines += _check_lines(check)
    if report.notes:
        lines.append("")
        lines.append("All traces:")
        for check in report.notes:
            lines += _check_lines(check)
    lines.append("")
    verdict = report.verdict
    if verdict == "ready":
        lines += _wrap("ready: every model call carries its messages, tool results and token usage", "", "  ")
    elif verdict == "ready with gaps":
        gaps = "; ".join(report.gaps)
        text = f"ready with gaps: {gaps} (the metrics that need them score without them: see the fixes above)"
        lines += _wrap(text, "", "  ")
    else:
        lines += _wrap("not ready: no message content to read (see the fixes above)", "", "  ")
    return "\n".join(lines)


@traces_app.command(
    "doctor",
    epilog="Examples:  agentgauge traces doctor examples/traces/\n\n"
    "           agentgauge traces doctor traces.json --format json",
)
def doctor(
    path: Annotated[Path, typer.Argument(readable=False, help="A trace file or a directory of trace files.")],
    output_format: TextOrJsonOption = "text",
) -> None:
    """Say, per instrumentation found in the traces (Google ADK, OpenAI, OpenLLMetry, LangChain, Strands, ...),
    what is missing for scoring (message content, tool results, log records, token usage) and the setting that
    fixes it.

    The verdict follows the findings: ready, ready with gaps (naming them) or not ready. Exit code 0 when the traces
    can be scored (with or without gaps), 1 when their model calls carry no message content, 2 when the input
    cannot be read.
    """
    if output_format not in ("text", "json"):
        fail_input(f"--format must be 'text' or 'json', not {output_format!r}")
    with input_errors_exit_2():
        from ..traces._doctor import diagnose

        report = diagnose(path)
    if output_format == "json":
        typer.echo(json.dumps(report.to_json(), indent=2, ensure_ascii=False))
    else:
        echo_text(render_doctor(report))
    if not report.ready:
        raise typer.Exit(1)
