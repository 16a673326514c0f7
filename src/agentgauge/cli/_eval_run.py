"""What ``agentgauge eval`` does around the run it asks :mod:`agentgauge.launch` for: the report files and store
checked first, the baseline loaded, the run prepared and run (``_eval_progress`` shows it), the report, ``--json``
and the exit code.

Imported once the command runs: what every run needs is imported here, what only some need (a baseline, a SQL
store, the reports) where it is used."""

from __future__ import annotations

import asyncio
import codecs
import dataclasses
import re
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

import typer

from .._util.fileio import check_output_targets
from .._util.redact import mask_standard_streams, redact
from ..errors import InputError
from ..launch import COMMAND_LINE, prepare
from ..model import EvalStatus
from ..stats import BootstrapSettings, use_bootstrap
from . import _interrupt
from ._common import EXIT_FAILED, EXIT_OK, echo_problems, input_errors_exit_2, print_line
from ._console import deferred_console, progress_bar_console
from ._eval_progress import TerminalProgress, startup_gc_paused
from ._eval_report import report_outcomes
from ._exit import leave_to_the_os
from ._github import github_actions
from ._selectors import open_store
from ._stdout import stdout_reserved

if TYPE_CHECKING:  # pragma: no cover
    from rich.console import Console

    from ..formats import InputProblem
    from ..launch import Baseline, EvalRequest
    from ..run import EvaluationResult
    from ._options import ReportOptions
    from ._stdout import TextSink

__all__ = ["EXIT_INTERRUPTED", "print_json", "run_eval", "stopped_by_ctrl_c", "with_agent"]


EXIT_INTERRUPTED = _interrupt.EXIT_INTERRUPTED  # the shell's code for a command stopped by SIGINT (128 + 2)

_HTTP_URL = re.compile(r"https?://[^\s/?#]+(/[^\s?#]*)?")
"""What ``--ui-url`` may be: an http(s) address without a query or fragment (the links add the fragment)."""


def with_agent(request: EvalRequest) -> EvalRequest:
    """``request`` whose ``sets`` are the command's arguments, ``[AGENT] EVAL_SET...``, with the agent (the first
    argument, when it has an agent's shape) taken out of them; with ``--traces`` every argument is an eval set."""
    args = request.sets
    if request.trace_mode or not args or not isinstance(args[0], str):
        return request
    from ..agents import looks_like_agent_spec

    return dataclasses.replace(request, agent=args[0], sets=args[1:]) if looks_like_agent_spec(args[0]) else request


def run_eval(request: EvalRequest, report: ReportOptions, store: str | None, bootstrap: tuple[int, int]) -> NoReturn:
    """Run ``request`` (its ``sets`` as the command's arguments: see :func:`with_agent`), results in the SQL store
    ``store`` (``None``: ``--output-dir``), compared with its baseline, intervals drawn with ``bootstrap``
    (resamples, seed): exit 0 when every selected case passed (or the gate let the comparison pass), 1 when one did
    not, 2 on bad input (nothing run or written), 130 when interrupted."""
    mask_standard_streams()  # judge keys registered during the run never reach stdout/stderr
    # Resolved now: an agent calling os.chdir() must not move where results and reports are written.
    start, report = Path.cwd(), report.absolute()
    cache = request.agent_cache
    cache = cache.absolute() if isinstance(cache, Path) else cache  # --cache-agent gives a folder
    request = dataclasses.replace(with_agent(request), output_dir=request.output_dir.absolute(), agent_cache=cache)
    # rich is imported when something is printed (see _console); user text may hold ":name:" (no emoji codes)
    console = deferred_console(stderr=report.json_out, soft_wrap=False, emoji=False)
    with (
        stopped_by_ctrl_c(console),
        stdout_reserved(report.json_out) as stdout,
        input_errors_exit_2(),
        startup_gc_paused(),
        use_bootstrap(BootstrapSettings(*bootstrap)),
    ):
        outcomes, against, result_store = _run(request, report, console, store)
        given = [*request.sets, *([request.eval_set] if request.eval_set else [])]
        sources = [arg for arg in given if isinstance(arg, str)]
        report_outcomes(
            outcomes, console, report, start=start, result_store=result_store, sources=sources, baseline=against
        )
        if report.json_out:  # stdout carries only this document; anything else printed went to stderr
            print_json(outcomes, stdout)
    raise typer.Exit(_exit_code(outcomes, against))


def _run(
    request: EvalRequest, report: ReportOptions, console: Console, store: str | None
) -> tuple[list[EvaluationResult], Baseline | None, Any]:
    """Check where results and reports go, then prepare and run (see the module); the outcomes, the baseline with
    its comparisons and the store's result manager (``None``: result files)."""
    check_output_targets(report.junit, report.html, report.markdown)  # refused before anything runs
    if report.ui_url and not _HTTP_URL.fullmatch(report.ui_url):  # "": no links, not even a running server's
        raise InputError(
            f"--ui-url must be the http:// or https:// address of 'agentgauge serve', got {report.ui_url!r}"
        )
    result_store = open_store(store)  # unreachable or too new: refused before anything runs
    # The summary comes from each case's compact row; the case results stay in memory only for what reads them all
    # afterwards (a result file is read back otherwise). Not holding them saves the garbage collector's walks over
    # them during the run (~10 ms of a 200-case run).
    keep = report.detailed or bool(report.files()) or github_actions()
    request = dataclasses.replace(request, results=result_store, keep_results=keep, surface=COMMAND_LINE)
    # Notes go with the summary; the input checks' warnings are one line each on stderr, as validate prints them.
    prepared = prepare(request, on_note=lambda text: print_line(console, text), on_warning=echo_problem)
    progress = TerminalProgress(console, None if report.json_out else progress_bar_console(), prepared.interrupt)
    outcomes = asyncio.run(prepared.run(progress))
    leave_to_the_os(prepared.sets)  # the loaded eval sets are freed at exit, if ever (~3 ms)
    return outcomes, prepared.baseline, result_store


def echo_problem(problem: InputProblem) -> None:
    """One input check's warning, on stderr."""
    echo_problems([problem])


def _exit_code(outcomes: list[EvaluationResult], against: Baseline | None) -> int:
    if any(o.interrupted for o in outcomes):
        return EXIT_INTERRUPTED
    if against is not None and against.gated:
        return EXIT_FAILED if against.failed else EXIT_OK
    # Every case of every set must have passed (compact rows: the case results may not be in memory).
    statuses = [
        status
        for o in outcomes
        for status in (o.rows.case_status.values() if o.rows is not None else (c.status for c in o.eval_cases))
    ]
    passed = bool(statuses) and all(status is EvalStatus.PASSED for status in statuses)
    return EXIT_OK if passed else EXIT_FAILED


@contextmanager
def stopped_by_ctrl_c(console: Console) -> Iterator[None]:
    """Ctrl-C outside a run (loading the inputs, writing reports) ends the command without a traceback:
    ``Interrupted.`` on stderr (``console`` may be stdout, which carries the results), exit code 130.

    During a run :func:`ctrl_c_interrupts` stops it instead (the finished cases are saved); a result saved before
    the interruption stays where it was reported.
    """
    try:
        yield
    except KeyboardInterrupt:
        _interrupt.announce_interrupted()
        raise typer.Exit(EXIT_INTERRUPTED) from None


def print_json(outcomes: list[EvaluationResult], out: TextSink) -> None:
    """``--json``: the saved result(s) on ``out`` (the real stdout), one document (an array for several eval sets),
    with registered secrets masked."""
    from ..reporting import render

    several = len(outcomes) > 1
    if several:
        out.write("[\n")
    for index, outcome in enumerate(outcomes):
        if index:
            out.write(",\n")
        if outcome.results_in_memory or outcome.result_path is None:
            out.write(redact(render(outcome.eval_set_result, "json").rstrip("\n")))
            continue
        # A large result is copied from its file rather than loaded (same document, 2-space indented).
        decoder = codecs.getincrementaldecoder("utf-8")()
        with open(outcome.result_path, "rb") as saved:
            text = ""
            while chunk := saved.read(1 << 20):
                if text:
                    out.write(redact(text))
                text = decoder.decode(chunk)
            out.write(redact((text + decoder.decode(b"", final=True)).rstrip("\n")))
    out.write("\n]\n" if several else "\n")
    out.flush()
