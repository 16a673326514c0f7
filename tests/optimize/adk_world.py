"""The ADK capitals world of ``benchmarks/optimize_world.py`` (shared with the optimise benchmark), served by the
tests' scripted chat server."""

from __future__ import annotations

import sys
from pathlib import Path

from chat_server import ChatServer, Reply, completion

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))

from optimize_world import ADK_HINT, REFLECTION, adk_command, adk_details, world_answer, write_adk_world

__all__ = ["ADK_HINT", "REFLECTION", "adk_command", "adk_details", "serve", "write_adk_world"]


def serve(server: ChatServer) -> None:
    """Make ``server`` the reflection model of this world."""
    server.responder = lambda body: Reply(200, completion(world_answer(body), model=str(body.get("model"))))
