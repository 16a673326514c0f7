"""The ``agentgauge`` command line. Heavy imports happen inside each command so ``--help`` starts fast."""

from __future__ import annotations

import atexit
import gc

# Each command module attaches its commands to ``app`` on import (keep these imports cheap).
from . import _eval_cmd as _eval_cmd
from . import _formats_cmds as _formats_cmds
from . import _generate_cmd as _generate_cmd
from . import _metrics_cmds as _metrics_cmds
from . import _serve_cmd as _serve_cmd
from . import _show_cmd as _show_cmd
from . import _store_cmds as _store_cmds
from . import _traces_cmds as _traces_cmds
from ._app import app
from ._compare_cmd import compare as compare  # imported last: listed after the other commands

__all__ = ["app", "main"]


_final_collection_skipped = False


def main() -> None:
    """Console-script entry point."""
    global _final_collection_skipped
    if not _final_collection_skipped:
        # When the interpreter exits it runs one last full garbage collection over every object still alive --
        # after an ``eval``, the loaded eval set and every case result: tens of milliseconds (more on a busy machine)
        # spent after the command's work is done. Frozen objects are left out of it (the process is ending; the
        # operating system takes the memory back). Only at exit, so in-process callers keep a working collector.
        atexit.register(gc.freeze)
        _final_collection_skipped = True
    app()
