"""The ``agentgauge`` command line. Heavy imports happen inside each command so ``--help`` starts fast."""

from __future__ import annotations

# Each command module attaches its commands to ``app`` on import (keep these imports cheap).
from . import _formats_cmds as _formats_cmds
from ._app import app

__all__ = ["app", "main"]


def main() -> None:
    """Console-script entry point."""
    app()
