"""agentgauge: evaluate LLM agents against eval sets with deterministic matchers and LLM judges.

The public names below are imported lazily so that ``import agentgauge`` stays fast.
"""

from __future__ import annotations

import sys


def _ctrl_c_ends_the_process(signum: int, frame: object) -> None:
    """SIGINT handler of the ``agentgauge`` command outside an evaluation's run (see ``agentgauge.cli._interrupt``):
    ``Interrupted.`` on stderr and exit code 130, at once.

    Nothing has been written yet while it starts. While a command runs (``agentgauge.cli``), the temporary files of
    atomic writes under way are removed (their targets are left as they were); what it printed is flushed.
    """
    import contextlib
    import os

    fileio = sys.modules.get("agentgauge._util.fileio")
    with contextlib.suppress(Exception):  # the process ends all the same
        if fileio is not None:
            fileio.remove_unfinished()
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):  # closed, or interrupted in the middle of a write to it
            if stream is not None:
                stream.flush()
    try:
        os.write(2, b"Interrupted.\n")
    finally:
        os._exit(130)


def _console_script_starts() -> None:
    """Ctrl-C while the ``agentgauge`` command starts ends it as ``Interrupted.`` (exit 130), not as a
    ``KeyboardInterrupt`` traceback out of some import.

    This runs first thing when the console script imports the package (``agentgauge.cli:main`` imports
    ``agentgauge`` before ``agentgauge.cli``); ``agentgauge.cli.main`` takes SIGINT over when it runs. A program that
    merely imports agentgauge keeps its own Ctrl-C handling, and so does a process started with SIGINT ignored or
    handled (``nohup``, a background job, an embedding application).
    """
    import os

    command = os.path.basename(sys.argv[0]) if sys.argv and sys.argv[0] else ""
    if command.lower().removesuffix(".exe").removesuffix("-script.py") != "agentgauge":
        return
    # The C module, which the interpreter loaded at start-up: ``signal`` imports enum (~6 ms not covered).
    signals = sys.modules.get("_signal")
    if signals is None:
        return
    try:
        if signals.getsignal(signals.SIGINT) is signals.default_int_handler:
            signals.signal(signals.SIGINT, _ctrl_c_ends_the_process)
    except ValueError:  # not the main thread
        return
    import atexit

    atexit.register(_console_script_ends)


def _console_script_ends() -> None:
    """Ctrl-C after the command's work is over (its output written) leaves the exit code as it is.

    Runs last of the exit hooks, after the interpreter has joined its threads. Past this point the interpreter puts
    back the system's default for every signal that had a Python handler, and a late SIGINT would kill the process
    (status -2 instead of 0) while it frees its modules; an ignored signal is the one disposition it keeps.
    """
    signals = sys.modules.get("_signal")
    if signals is not None:
        try:
            if signals.getsignal(signals.SIGINT) is _ctrl_c_ends_the_process:
                signals.signal(signals.SIGINT, signals.SIG_IGN)
        except ValueError:  # not the main thread
            pass


_console_script_starts()

import importlib  # noqa: E402 - after the Ctrl-C handler: an interrupt may land during any import
from typing import TYPE_CHECKING, Any  # noqa: E402

from ._util.version import VERSION as __version__  # noqa: E402

_EXPORTS: dict[str, str] = {
    "EvalSet": "agentgauge.model",
    "EvalCase": "agentgauge.model",
    "Invocation": "agentgauge.model",
    "Message": "agentgauge.model",
    "Tool": "agentgauge.model",
    "SessionInput": "agentgauge.model",
    "EvalMetric": "agentgauge.model",
    "EvalStatus": "agentgauge.model",
    "EvalSetResult": "agentgauge.model",
    "EvalCaseResult": "agentgauge.model",
    "EvalMetricResult": "agentgauge.model",
    "load_eval_set": "agentgauge.formats",
    "save_eval_set": "agentgauge.formats",
    "load_metrics": "agentgauge.formats",
    "load_result": "agentgauge.formats",
    "AgentEvaluator": "agentgauge.run._evaluator",
    "AgentRequest": "agentgauge.agents",
    "AgentOutput": "agentgauge.agents",
    "InputError": "agentgauge.errors",
    "NotFoundError": "agentgauge.errors",
}

__all__ = sorted(_EXPORTS)

if TYPE_CHECKING:  # pragma: no cover - for type checkers and IDEs only
    from .agents import AgentOutput, AgentRequest
    from .errors import InputError, NotFoundError
    from .formats import load_eval_set, load_metrics, load_result, save_eval_set
    from .model import (
        EvalCase,
        EvalCaseResult,
        EvalMetric,
        EvalMetricResult,
        EvalSet,
        EvalSetResult,
        EvalStatus,
        Invocation,
        Message,
        SessionInput,
        Tool,
    )
    from .run._evaluator import AgentEvaluator


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'agentgauge' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_EXPORTS))
