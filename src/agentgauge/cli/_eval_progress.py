"""``agentgauge eval`` while its run goes: each eval set's heading and progress bar, Ctrl-C stopping the set
cleanly, and the garbage collector's phases that keep the command's fixed costs low."""

from __future__ import annotations

import asyncio
import contextlib
import gc
import signal
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from ..launch import RunProgress

if TYPE_CHECKING:  # pragma: no cover
    from rich.console import Console
    from rich.progress import Progress, TaskID

    from ..launch import SetHeading
    from ..run import EvaluationResult

__all__ = ["TerminalProgress", "ctrl_c_interrupts", "run_phase_ends", "run_phase_starts", "startup_gc_paused"]


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


def ctrl_c_interrupts(interrupt: Callable[[], object]) -> Callable[[], None]:
    """From now on Ctrl-C (SIGINT) calls ``interrupt`` on the running event loop (which stops the run cleanly,
    saving the cases finished so far); the returned function puts the command's own handler back."""
    loop = asyncio.get_running_loop()
    try:
        previous: Any = signal.getsignal(signal.SIGINT)
        loop.add_signal_handler(signal.SIGINT, interrupt)
    except (NotImplementedError, RuntimeError, ValueError):  # not the main thread, or no signal support (Windows)
        return lambda: None

    def restore() -> None:
        with contextlib.suppress(Exception):
            loop.remove_signal_handler(signal.SIGINT)
            # asyncio puts Python's default handler back; the command's own (see _interrupt) goes on instead
            signal.signal(signal.SIGINT, previous)

    return restore


class TerminalProgress(RunProgress):
    """A run as the terminal shows it: each eval set's heading (above its progress bar when stderr is a terminal,
    else once its first cases are under way, so importing rich overlaps the agents' work), Ctrl-C stopping the set
    cleanly (``interrupt``), and the garbage collector's phases around the sets (see above)."""

    def __init__(self, console: Console, bar_console: Console | None, interrupt: Callable[[], object]) -> None:
        self._console = console
        self._bar_console = bar_console if bar_console is not None and bar_console.is_terminal else None
        self._interrupt = interrupt
        self._started = False
        self._shown: SetHeading | None = None
        self._bar: tuple[Progress, TaskID] | None = None
        self._restore: Callable[[], None] | None = None

    def set_started(self, heading: SetHeading) -> None:
        """Ctrl-C now stops this set; the heading and the bar show at once on a terminal."""
        if not self._started:
            self._started = True
            run_phase_starts()
        self._restore = ctrl_c_interrupts(self._interrupt)
        if self._bar_console is not None:
            self._show(heading)  # above the bar, which shows from now on
            self._bar = _progress(self._bar_console, heading.eval_set_id)
            self._bar[0].start()

    def cases_under_way(self, heading: SetHeading) -> None:
        """Without a bar: the heading, now that the agents are at work."""
        self._show(heading)

    def advanced(self, done: int, total: int) -> None:
        """The bar follows the scored case runs."""
        if self._bar is not None:
            bar, task = self._bar
            bar.update(task, completed=done, total=total)

    def set_finished(self, outcome: EvaluationResult | None) -> None:
        """The bar goes, Ctrl-C ends the command again, and what the run left is moved out of the collector's way."""
        if self._bar is not None:
            self._bar[0].stop()
            self._bar = None
        if self._restore is not None:
            self._restore()
            self._restore = None
        run_phase_ends()

    def _show(self, heading: SetHeading) -> None:
        if self._shown is heading:
            return
        self._shown = heading
        from rich.text import Text

        rest = str(heading).removeprefix(heading.eval_set_id)
        self._console.print(Text.assemble((heading.eval_set_id, "bold"), rest), soft_wrap=True)


def _progress(console: Console, label: str) -> tuple[Progress, TaskID]:
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    bar = Progress(
        TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(), console=console
    )
    return bar, bar.add_task(label, total=None)
