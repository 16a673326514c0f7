"""The floor of the ``remote`` measure over A2A: the same turns sent by a2a-sdk's own client alone.

    BENCH_REPLAY=replay.json python benchmarks/a2a_client_floor.py URL P TURNS_PER_CASE_JSON [--agentgauge]

Sends each case's turns (``TURNS_PER_CASE_JSON``: a JSON list, the manifest's ``invocations_per_case``; one
context per case, P cases at a time) as streamed A2A messages with a2a-sdk's client over the same aiohttp transport
agentgauge gives it, reads every event and does nothing else: no scoring, no conversion, no result files. Prints
``{"wall_s": ..., "cpu_s": ..., "startup_cpu_s": ...}``: wall and CPU of one timed pass after an untimed warm-up,
and the CPU spent before the warm-up (interpreter, imports, the card): what any Python evaluator using a2a-sdk pays
before doing its own work, ``startup_cpu_s + cpu_s`` with its start-up.

With ``--agentgauge`` the turns go through agentgauge's own A2A agent instead (``a2a+URL``: the same client, plus
what agentgauge adds to it: the turn limit, the origin policy, the size limit, the conversion of every event into
the invocation), still without evaluating anything: the difference to the floor is what the A2A scheme adds, the
difference to ``agentgauge eval`` what the evaluation adds.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
import time
import uuid
from collections.abc import Awaitable, Callable
from typing import Any

Turn = Callable[[int, str], Awaitable[None]]
"""Send the text of one turn of case ``index`` and read the whole answer."""
Close = Callable[[], Awaitable[Any]]


async def _sdk_client(url: str) -> tuple[Turn, Close]:
    import aiohttp
    import httpx
    from a2a.client import ClientConfig, ClientFactory
    from a2a.client.card_resolver import parse_agent_card
    from a2a.types import Message, Part, Role, SendMessageRequest
    from httpx_aiohttp import AiohttpTransport

    session = aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=0))
    http = httpx.AsyncClient(timeout=60, transport=AiohttpTransport(client=session, verify=False))
    card = parse_agent_card((await http.get(f"{url}/.well-known/agent-card.json")).json())
    client = ClientFactory(ClientConfig(streaming=True, httpx_client=http)).create(card)
    contexts: dict[int, str] = {}

    async def turn(index: int, text: str) -> None:
        message = Message(message_id=uuid.uuid4().hex, role=Role.ROLE_USER, parts=[Part(text=text)])
        if index in contexts:
            message.context_id = contexts[index]
        async for response in client.send_message(SendMessageRequest(message=message)):
            contexts[index] = contexts.get(index) or response.task.context_id

    return turn, session.close


async def _agentgauge_agent(url: str) -> tuple[Turn, Close]:
    from agentgauge.agents import AgentRequest
    from agentgauge.agents.remote import load_remote_agent

    agent: Any = load_remote_agent(f"a2a+{url}")
    await agent.preflight()  # reads the card, as the command does before the first case

    async def turn(index: int, text: str) -> None:
        content = {"role": "user", "content": text}
        await agent.run(AgentRequest(user_content=content, session_id=f"case-{index}", user_id="user"))

    return turn, agent.endpoint.aclose


async def _run(url: str, parallelism: int, per_case: list[int], texts: list[str], ours: bool) -> dict[str, float]:
    turn, close = await (_agentgauge_agent(url) if ours else _sdk_client(url))
    gate = asyncio.Semaphore(parallelism)

    async def case(index: int) -> None:
        async with gate:
            for number in range(per_case[index]):
                await turn(index, texts[(index * 3 + number) % len(texts)])

    startup = time.process_time()  # since the interpreter started
    await asyncio.gather(*(case(i) for i in range(min(20, len(per_case)))))  # warm-up, not timed
    cpu, wall = time.process_time(), time.perf_counter()
    await asyncio.gather(*(case(i) for i in range(len(per_case))))
    measured = {"wall_s": time.perf_counter() - wall, "cpu_s": time.process_time() - cpu, "startup_cpu_s": startup}
    await close()
    return measured


def main() -> None:
    """Measure and print the floor as JSON."""
    url, parallelism, per_case = sys.argv[1], int(sys.argv[2]), json.loads(sys.argv[3])
    with open(os.environ["BENCH_REPLAY"], encoding="utf-8") as fh:
        texts = list(json.load(fh))
    print(json.dumps(asyncio.run(_run(url, parallelism, per_case, texts, "--agentgauge" in sys.argv[4:]))))


if __name__ == "__main__":
    main()
