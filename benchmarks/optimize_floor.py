"""The floor of the optimise benchmark's candidate evaluations: the same model calls made without agentgauge.

    python benchmarks/optimize_floor.py openai|adk SHAPES_JSON P [AGENT_FOLDER]

``SHAPES_JSON`` is a JSON list of ``[case runs, model calls per run]``, one per evaluation to repeat (the fresh case
runs of the audit report's evaluations). For each shape, ``case runs`` runs are made at most ``P`` at a time, each
making its model calls one after another, and the wall time of the shape is measured; nothing is scored or written.

- ``openai``: each run is ``model calls per run`` chat completions sent by one ``AsyncOpenAI`` client (made and
  warmed up before timing) to ``$CAPITALS_MODEL_URL``, as the world's ``OpenAIAgent`` sends them.
- ``adk``: each run is one turn of the world's ADK agent (``AGENT_FOLDER``; with the hint in its instruction when a
  run makes two model calls) through ADK's own ``InMemoryRunner``, one runner per shape as agentgauge keeps one
  per candidate.

Prints ``{"seconds": [...], "total": ...}``: each shape's wall time and their sum, after the imports and a
warm-up. What agentgauge's evaluations take beyond it is what the evaluation adds; what the floor takes beyond
``rounds x calls x latency`` is the machine's (scheduling, the loopback server, the agent framework's own CPU).
"""

from __future__ import annotations

import asyncio
import json
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

Run = Callable[[int], Awaitable[None]]
"""Make the model calls of run ``index``."""


async def _timed(shapes: list[list[int]], parallelism: int, make: Callable[[int], Awaitable[Run]]) -> list[float]:
    seconds = []
    for runs, calls in shapes:
        run = await make(calls)
        gate = asyncio.Semaphore(parallelism)

        async def bounded(index: int, run: Run = run, gate: asyncio.Semaphore = gate) -> None:
            async with gate:
                await run(index)

        started = time.perf_counter()
        await asyncio.gather(*(bounded(i) for i in range(runs)))
        seconds.append(time.perf_counter() - started)
    return seconds


async def _openai(shapes: list[list[int]], parallelism: int) -> list[float]:
    import os

    from openai import AsyncOpenAI

    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from optimize_world import AGENT_MODEL, CITIES, OPENAI_HINT, OPENAI_PROMPT

    client = AsyncOpenAI(api_key="floor", base_url=os.environ["CAPITALS_MODEL_URL"], max_retries=0)
    countries = list(CITIES)

    async def make(calls: int) -> Run:
        async def run(index: int) -> None:
            question = f"What is the capital of {countries[index % len(countries)]}?"
            messages = [{"role": "system", "content": f"{OPENAI_PROMPT}\n{OPENAI_HINT}"}]
            for _ in range(calls):
                await client.chat.completions.create(
                    model=AGENT_MODEL, messages=[*messages, {"role": "user", "content": question}]
                )

        return run

    await (await make(1))(0)  # the connection and the SDK's first-use work
    return await _timed(shapes, parallelism, make)


async def _adk(shapes: list[list[int]], parallelism: int, folder: Path) -> list[float]:
    import importlib

    from google.adk.runners import InMemoryRunner
    from google.genai import types

    sys.path.insert(0, str(folder.parent))
    world = importlib.import_module(f"{folder.name}.agent")
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from optimize_world import ADK_HINT, CITIES

    countries = list(CITIES)

    async def make(calls: int) -> Run:
        instruction = world.root_agent.instruction + (f"\n{ADK_HINT}" if calls > 1 else "")
        runner = InMemoryRunner(agent=world.root_agent.clone(update={"instruction": instruction}), app_name=folder.name)

        async def run(index: int) -> None:
            session = await runner.session_service.create_session(app_name=folder.name, user_id="floor")
            text = f"What is the capital of {countries[index % len(countries)]}?"
            message = types.Content(role="user", parts=[types.Part(text=text)])
            async for _ in runner.run_async(user_id="floor", session_id=session.id, new_message=message):
                pass

        return run

    await (await make(2))(0)  # ADK's first-run imports and set-up
    return await _timed(shapes, parallelism, make)


def main() -> int:
    kind, shapes, parallelism = sys.argv[1], json.loads(sys.argv[2]), int(sys.argv[3])
    if kind == "openai":
        seconds = asyncio.run(_openai(shapes, parallelism))
    else:
        seconds = asyncio.run(_adk(shapes, parallelism, Path(sys.argv[4])))
    document: dict[str, Any] = {"seconds": seconds, "total": sum(seconds)}
    print(json.dumps(document))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
