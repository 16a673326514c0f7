"""The OpenAI-compatible capitals world of ``benchmarks/optimize_world.py`` (shared with the optimise benchmark),
served by the tests' scripted chat server: an ``OpenAIAgent`` that answers capitals correctly only when its system
prompt says to answer in capital letters, and a reflection model that proposes that instruction when the failing
examples it is sent show upper-case expected answers."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from chat_server import ChatServer, Reply, completion

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))

from optimize_world import AGENT_MODEL, OPENAI_HINT, OPENAI_PROMPT, split_options, world_answer
from optimize_world import write_openai_world as write_world

__all__ = [
    "AGENT_MODEL",
    "BASE_PROMPT",
    "HINT",
    "REFLECTION_MODEL",
    "split_options",
    "start_world",
    "write_world",
]

HINT = OPENAI_HINT
BASE_PROMPT = OPENAI_PROMPT
REFLECTION_MODEL = "capitals-reflect"


def responder(body: dict[str, Any]) -> Reply:
    """Answers both models of the world."""
    return Reply(200, completion(world_answer(body), model=str(body.get("model"))))


def start_world() -> ChatServer:
    """The loopback server of the world, started."""
    server = ChatServer().start()
    server.responder = responder
    return server
