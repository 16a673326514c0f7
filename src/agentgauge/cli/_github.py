"""GitHub Actions integration of ``eval`` and ``show``: a job summary and ``::error`` annotations.

Active when ``GITHUB_ACTIONS=true`` (set by every GitHub Actions runner). The Markdown report is appended to the
file named by ``GITHUB_STEP_SUMMARY``, cut to fit GitHub's 1 MiB limit per step summary and ending with a pointer
to the full report; each case that did not pass gets one ``::error`` workflow command pointing at its line in the
eval set file. Neither changes the exit code.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pragma: no cover
    from rich.console import Console

    from ..model import EvalCaseResult
    from ..reporting import ResultView
    from ..run._evaluator import EvaluationResult

__all__ = [
    "MAX_ANNOTATIONS",
    "STEP_SUMMARY_LIMIT",
    "annotation_lines",
    "capped_summary",
    "escape_data",
    "escape_property",
    "full_report",
    "github_actions",
    "publish",
    "publish_outcome",
]

STEP_SUMMARY_LIMIT = 1024 * 1024
"""GitHub's limit on one step's summary (bytes); a larger summary is not shown at all."""

_MARGIN = 8 * 1024  # room for the closing note and for what other steps' tools may append
MAX_ANNOTATIONS = 50
"""At most this many ``::error`` lines per eval set (GitHub shows 10 per step and 50 per job); one more line
says how many were left out."""
_MAX_SCAN_BYTES = 64 * 1024 * 1024  # eval set files larger than this are not searched for case line numbers
_EVAL_ID = re.compile(r'"(?:evalId|eval_id)"\s*:\s*("(?:[^"\\]|\\.)*")')


def github_actions() -> bool:
    """True when running as a GitHub Actions step."""
    return os.environ.get("GITHUB_ACTIONS") == "true"


def escape_data(text: str) -> str:
    """A workflow command's message, escaped as GitHub requires (``%``, CR and LF)."""
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    """A workflow command's property value (``file``, ``title``): the message escapes plus ``:`` and ``,``."""
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def capped_summary(head: str, blocks: Iterable[str], tail: str, limit: int) -> str:
    """``head`` + ``blocks`` + ``tail`` within ``limit`` bytes (UTF-8).

    The head is cut at a line boundary when it alone is too large; blocks (one per case) are kept whole, in order,
    until one does not fit. What was left out is counted in a note placed before ``tail``, which is always kept.
    """
    budget = limit - len(tail.encode("utf-8")) - 200  # the note
    out: list[str] = []
    used = 0
    left_lines = 0
    for line in head.splitlines(keepends=True):
        size = len(line.encode("utf-8"))
        if left_lines or used + size > budget:
            left_lines += 1
            continue
        out.append(line)
        used += size
    left_blocks = 0
    for block in blocks:
        size = len(block.encode("utf-8"))
        if left_lines or left_blocks or used + size > budget:
            left_blocks += bool(block)
            continue
        out.append(block)
        used += size
    if left_lines or left_blocks:
        what = [f"{left_lines} summary line{'s' if left_lines != 1 else ''}"] if left_lines else []
        what += [f"{left_blocks} case block{'s' if left_blocks != 1 else ''}"] if left_blocks else []
        out.append(
            f"\n**Truncated:** {' and '.join(what)} did not fit GitHub's 1 MiB step summary limit; "
            "see the full report below.\n\n"
        )
    return "".join(out) + tail


def full_report(reports: list[tuple[Path, str]]) -> Path:
    """The report a summary points to: the HTML one if written, else the Markdown, else the JUnit file."""
    rank = {"html": 0, "markdown": 1, "junit": 2}
    return min(reports, key=lambda item: rank.get(item[1], 3))[0]


def _pointer(full_report: str | None) -> str:
    server, repo, run = (os.environ.get(k) for k in ("GITHUB_SERVER_URL", "GITHUB_REPOSITORY", "GITHUB_RUN_ID"))
    parts = [f"Full report: `{full_report}`"] if full_report else []
    if server and repo and run:
        parts.append(f"[workflow run]({server}/{repo}/actions/runs/{run}) (artifacts)")
    return (" · ".join(parts) + "\n\n") if parts else ""


def _append_summary(text: str, console: Console) -> None:
    from .._util.redact import redact

    path = os.environ.get("GITHUB_STEP_SUMMARY")
    if not path:
        return
    try:
        with open(path, "a", encoding="utf-8") as summary:
            summary.write(redact(text))
    except OSError as exc:
        console.file.write(escape_data(f"::warning title=agentgauge::cannot write the step summary: {exc}") + "\n")


def _summary_budget() -> int:
    try:
        used = os.path.getsize(os.environ.get("GITHUB_STEP_SUMMARY") or "")
    except OSError:
        used = 0
    return max(STEP_SUMMARY_LIMIT - used - _MARGIN, 0)


def _case_lines(path: Path) -> dict[str, int]:
    """``eval_id`` → 1-based line of its ``"evalId"`` key in an eval set file (empty if unreadable or huge)."""
    import json

    try:
        if path.stat().st_size > _MAX_SCAN_BYTES:
            return {}
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return {}
    lines: dict[str, int] = {}
    line, last = 1, 0
    for match in _EVAL_ID.finditer(text):
        line += text.count("\n", last, match.start())
        last = match.start()
        try:
            eval_id = json.loads(match.group(1))
        except ValueError:
            continue
        lines.setdefault(eval_id, line)
    return lines


def _shown_path(path: Path) -> str:
    """A path as GitHub needs it in ``file=``: relative to the workspace (the repository checkout)."""
    base = os.environ.get("GITHUB_WORKSPACE") or os.getcwd()
    absolute = path.absolute()
    try:
        return absolute.relative_to(Path(base).absolute()).as_posix()
    except ValueError:
        return str(path)


def annotation_lines(view: ResultView, sources: list[Path]) -> Iterator[str]:
    """One ``::error`` command per case that did not pass (at most :data:`MAX_ANNOTATIONS`), located at the case
    in whichever of ``sources`` holds the most of those cases; first a ``::warning`` naming the cases of the set
    the run could not run (a trace run's cases without a trace)."""
    from ..model import EvalStatus
    from ..summary._reasons import one_line

    not_run = view.not_run_text()
    if not_run is not None:  # cases of the set the run could not run (no trace): a warning, not a failure
        title = escape_property(f"{view.result.eval_set_id}: cases not run")
        yield f"::warning title={title}::{escape_data(not_run)}"
    failed = [c for c in view.cases if c.status is not EvalStatus.PASSED]
    if not failed:
        return
    source, lines = None, {}
    for candidate in sources:
        found = _case_lines(candidate)
        if source is None or sum(c.eval_id in found for c in failed) > sum(c.eval_id in lines for c in failed):
            source, lines = candidate, found
    for case in failed[:MAX_ANNOTATIONS]:
        props = []
        if source is not None:
            props.append(f"file={escape_property(_shown_path(source))}")
            if case.eval_id in lines:
                props.append(f"line={lines[case.eval_id]}")
        verdict = {EvalStatus.NOT_EVALUATED: "not evaluated", EvalStatus.ERROR: "error"}.get(case.status, "failed")
        rule = case.status_text.removeprefix(case.status.value)  # with several runs: runs passed and the rule
        props.append(f"title={escape_property(f'{view.result.eval_set_id}: case {case.eval_id} {verdict}{rule}')}")
        reason = one_line(case.reason or verdict, 4000)
        if view.multi_run and case.reason_run is not None:
            reason = f"run {case.reason_run}: {reason}"
        yield f"::error {','.join(props)}::{escape_data(reason)}"
    if len(failed) > MAX_ANNOTATIONS:
        more = len(failed) - MAX_ANNOTATIONS
        yield f"::warning title=agentgauge::{more} more case(s) of {escape_data(view.result.eval_set_id)} did not pass"


def publish(
    view: ResultView,
    cases: Iterable[EvalCaseResult],
    console: Console,
    *,
    sources: list[Path],
    full_report: str | None,
) -> None:
    """Annotate the cases that did not pass and append the capped Markdown summary to the step summary."""
    from .._util.redact import redact
    from ..reporting._markdown import markdown_case, markdown_head, markdown_tail

    out = console.file
    for line in annotation_lines(view, sources):
        out.write(redact(line) + "\n")
    out.flush()
    blocks = (markdown_case(case, view) for case in cases)
    tail = markdown_tail(view) + _pointer(full_report)
    _append_summary(capped_summary(markdown_head(view), blocks, tail, _summary_budget()) + "\n", console)


def publish_outcome(
    outcome: EvaluationResult,
    console: Console,
    *,
    sources: list[Path],
    full_report: str | None,
    cases: Iterable[EvalCaseResult] | None = None,
) -> None:
    """:func:`publish` for one ``eval`` outcome, read from memory, else from ``cases`` (e.g. read back from a SQL
    store), else case by case from its result file."""
    from ..reporting import build_view

    if outcome.results_in_memory:
        result = outcome.eval_set_result
        publish(build_view(result), result.eval_case_results, console, sources=sources, full_report=full_report)
        return
    from ..formats._result_stream import ResultStream
    from ..reporting import view_from_rows

    assert outcome.rows is not None and outcome.result_header is not None
    view = view_from_rows(outcome.result_header, outcome.rows)
    if cases is None:
        assert outcome.result_path is not None
        cases = ResultStream(outcome.result_path).cases()
    publish(view, cases, console, sources=sources, full_report=full_report)


def source_files(args: Iterable[str]) -> list[Path]:
    """The eval set files among ``eval``'s arguments (case filters ``FILE:case1,case2`` removed)."""
    from ..launch import EvalSetSpec

    found = []
    for arg in args:
        path = EvalSetSpec.parse(arg).path
        if path is not None and path.suffix == ".json" and path.is_file():
            found.append(path)
    return found
