"""The ``agentgauge`` command line. Heavy imports happen inside each command so ``--help`` starts fast."""

from __future__ import annotations

import atexit
import copy
import gc
import sys

import typer
import typer.main
import typer.models

# Each command module attaches its commands to ``app`` on import (keep these imports cheap).
from . import _calibrate_cmd as _calibrate_cmd
from . import _diff_cmd as _diff_cmd
from . import _eval_cmd as _eval_cmd
from . import _formats_cmds as _formats_cmds
from . import _gate_cmd as _gate_cmd
from . import _generate_cmd as _generate_cmd
from . import _mcp_cmd as _mcp_cmd
from . import _metrics_cmds as _metrics_cmds
from . import _optimize_cmd as _optimize_cmd
from . import _plan_cmd as _plan_cmd
from . import _replay_cmd as _replay_cmd
from . import _serve_cmd as _serve_cmd
from . import _show_cmd as _show_cmd
from . import _store_cmds as _store_cmds
from . import _traces_cmds as _traces_cmds
from . import _traces_doctor as _traces_doctor
from . import _triage_cmd as _triage_cmd
from ._app import app
from ._compare_cmd import compare as compare  # imported last: listed after the other commands
from ._exit import leave_to_the_os, process_ends_after_command, skip_final_collection
from ._interrupt import command_interruptible

__all__ = ["app", "main"]


_final_collection_skipped = False

_COLLECTOR_OFF_UNTIL_RUN = frozenset({"eval"})
"""Commands that start with the cyclic garbage collector off and turn it on when their run begins."""


def main() -> None:
    """Console-script entry point: Ctrl-C at any moment ends the command with ``Interrupted.`` on stderr and exit
    code 130 (see ``_interrupt``)."""
    with command_interruptible():
        _main()


def _main() -> None:
    global _final_collection_skipped
    if not _final_collection_skipped:
        # The interpreter's last full garbage collection is skipped (tens of milliseconds after an ``eval``); the
        # user's objects are still finalized (see ``skip_final_collection``). Only at exit, so in-process callers
        # keep a working collector.
        atexit.register(skip_final_collection)
        _final_collection_skipped = True
    single = _invoked_app(sys.argv[1:])
    enabled = gc.isenabled()
    if single is not None and sys.argv[1] in _COLLECTOR_OFF_UNTIL_RUN:
        # Parsing the options imports pydantic and builds validators; loading follows. Start-up allocates many
        # long-lived objects and almost no cyclic garbage, and each collection meanwhile walks them all (~5 ms of
        # collections before a 200-case eval's first agent call). The command turns the collector on when its run
        # begins (``_eval_progress.run_phase_starts``).
        gc.disable()
    try:
        with process_ends_after_command():
            try:
                if single is None:
                    app()
                else:
                    # Always a group (typer would make a one-command application that command itself): usage and
                    # help stay "agentgauge eval ...".
                    typer.main.get_group(single)()
            except SystemExit as done:
                # The exception refers, through its context's traceback, to the command's frames and so to all the
                # command kept until its last line (after ``eval``: every case result): ~8 ms to free after a
                # 200-case run.
                leave_to_the_os(done)
                raise
    finally:
        if enabled:
            gc.enable()


def _invoked_app(args: list[str]) -> typer.Typer | None:
    """``app`` with only the command ``args`` invoke, when they name one of its top-level commands.

    Building a command reads its function's signature and type hints; building all of them costs ~10 ms that a run
    of one command does not need. ``--help``, a group (``traces``) or a mistyped name get the whole application.
    """
    if args:
        wanted = [info for info in app.registered_commands if _command_name(info) == args[0]]
        if len(wanted) == 1:
            single = copy.copy(app)
            single.registered_commands = wanted
            single.registered_groups = []
            return single
    return None


def _command_name(info: typer.models.CommandInfo) -> str | None:
    if info.name is not None:
        return info.name
    return typer.main.get_command_name(info.callback.__name__) if info.callback is not None else None
