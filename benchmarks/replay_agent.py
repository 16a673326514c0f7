"""The replaying agent of the CLI benchmark, loaded by ``agentgauge eval benchmarks/replay_agent.py ...``.

``BENCH_REPLAY`` names a JSON object mapping each user text to the recorded answer and tool calls (written by the
harness from the generated "actual" set); ``BENCH_LATENCY`` is the simulated latency per turn in seconds. Like
``ours.py``'s ReplayAgent, it sleeps, then returns the recorded turn.
"""

from __future__ import annotations

import asyncio
import json
import os
from typing import Any

from agentgauge.agents import AgentOutput, AgentRequest
from agentgauge.model import Message, Tool

with open(os.environ["BENCH_REPLAY"], encoding="utf-8") as _fh:
    _SCRIPT: dict[str, Any] = json.load(_fh)
_LATENCY = float(os.environ.get("BENCH_LATENCY", "0.05"))


async def agent(request: AgentRequest) -> AgentOutput:
    """Sleep for the latency, then answer as recorded."""
    turn = _SCRIPT[request.user_content.content]
    await asyncio.sleep(_LATENCY)
    return AgentOutput(
        final_response=Message(role="assistant", content=turn["answer"]),
        tools=[Tool.model_validate(t) for t in turn["tools"]],
    )
