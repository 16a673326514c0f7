"""Parts of ``agentgauge eval`` around a run: Ctrl-C handling, ``--json`` output and reports of large results."""

from __future__ import annotations

import codecs
import gc
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

import typer

from . import _interrupt

if TYPE_CHECKING:  # pragma: no cover
    from rich.console import Console

    from ..model import EvalCaseResult
    from ..run._evaluator import AgentEvaluator, EvaluationResult
    from ..run._resume import ResumeState
    from ._options import ReportOptions
    from ._stdout import TextSink

__all__ = [
    "EXIT_INTERRUPTED",
    "evaluate_interruptibly",
    "print_json",
    "report_streamed",
    "run_phase_ends",
    "run_phase_starts",
    "startup_gc_paused",
    "stopped_by_ctrl_c",
]


EXIT_INTERRUPTED = _interrupt.EXIT_INTERRUPTED  # the shell's code for a command stopped by SIGINT (128 + 2)


@contextmanager
def startup_gc_paused() -> Iterator[None]:
    """Keep the cyclic garbage collector off while ``eval`` starts up (imports, loading, checks) and until
    :func:`run_phase_starts`; its state is restored when the block ends.

    Start-up allocates many long-lived objects and almost no cyclic garbage, and every collection in between walks
    them all: a noticeable share of a short run's fixed cost, paid before the first agent call.
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def run_phase_starts() -> None:
    """The run begins: the collector works again, with everything start-up allocated (modules, the loaded eval
    sets and metrics, the agent) moved out of its way first -- otherwise the first collection after the pause walks
    all of it. The evaluator hands these objects back to the collector when its run ends."""
    gc.freeze()
    gc.enable()


def run_phase_ends() -> None:
    """A run has ended: what it left (its case results, the loaded data the evaluator handed back to the collector)
    is moved out of the collector's way again, so the collections while the summary and reports are written walk
    only what those allocate (~4 ms of collections after a 200-case run). The process ends after the command, so
    nothing is lost by never examining these objects again."""
    gc.freeze()


@contextmanager
def stopped_by_ctrl_c(console: Console) -> Iterator[None]:
    """Ctrl-C outside a run (loading the inputs, writing reports) ends the command without a traceback:
    ``Interrupted.`` on stderr (``console`` may be stdout, which carries the results), exit code 130.

    During a run the evaluator handles it itself (the finished cases are saved); a result saved before the
    interruption stays where it was reported.
    """
    try:
        yield
    except KeyboardInterrupt:
        _interrupt.announce_interrupted()
        raise typer.Exit(EXIT_INTERRUPTED) from None


def print_json(outcomes: list[EvaluationResult], out: TextSink) -> None:
    """``--json``: the saved result(s) on ``out`` (the real stdout), one document (an array for several eval sets),
    with registered secrets masked."""
    from .._util.redact import redact
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


async def evaluate_interruptibly(
    evaluator: AgentEvaluator, eval_set_id: str, resume: ResumeState | None = None
) -> EvaluationResult:
    """Run one evaluation (continuing ``resume``, if given); Ctrl-C (SIGINT) stops it cleanly, saving the cases
    finished so far."""
    import asyncio
    import contextlib
    import signal

    loop = asyncio.get_running_loop()
    try:
        previous = signal.getsignal(signal.SIGINT)
        loop.add_signal_handler(signal.SIGINT, evaluator.interrupt)
        installed = True
    except (NotImplementedError, RuntimeError, ValueError):  # not the main thread, or no signal support (Windows)
        installed = False
    try:
        return await evaluator.evaluate(eval_set_id, resume=resume)
    finally:
        if installed:
            with contextlib.suppress(Exception):
                loop.remove_signal_handler(signal.SIGINT)
                # asyncio puts Python's default handler back; the command's own (see _interrupt) goes on instead
                signal.signal(signal.SIGINT, previous)


def report_streamed(
    outcome: EvaluationResult,
    console: Console,
    report: ReportOptions,
    *,
    reports: list[tuple[Path, str]],
    cases: Iterable[EvalCaseResult] | None = None,
) -> None:
    """Reports of a run too large to hold: the summary from its compact rows, the rest read case by case (from
    the result file, or from ``cases`` when the result went elsewhere, e.g. a SQL store)."""
    from ..reporting import view_from_rows
    from ..reporting._terminal import print_overview

    assert outcome.rows is not None and outcome.result_header is not None
    view = view_from_rows(outcome.result_header, outcome.rows)
    if report.detailed or reports:
        from ..formats._result_stream import ResultStream
        from ..reporting._stream import stream_reports

        if cases is None:
            assert outcome.result_path is not None
            cases = ResultStream(outcome.result_path).cases()
        shown = console if report.detailed else None
        stream_reports(view, cases, reports, console=shown, junit_runs=report.junit_runs)
    print_overview(view, console, outcome.execution_time)
