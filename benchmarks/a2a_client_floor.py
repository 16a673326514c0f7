"""The floor of the ``remote`` measure over A2A: the same turns sent by a2a-sdk's own client alone.

    BENCH_REPLAY=replay.json python benchmarks/a2a_client_floor.py URL P TURNS_PER_CASE_JSON

Sends each case's turns (``TURNS_PER_CASE_JSON``: a JSON list, the manifest's ``invocations_per_case``; one
context per case, P cases at a time) as streamed A2A messages with a2a-sdk's client over the same aiohttp transport
agentgauge gives it, reads every event and does nothing else: no scoring, no conversion, no result files. Prints
``{"wall_s": ..., "cpu_s": ..., "startup_cpu_s": ...}``: wall and CPU of one timed pass after an untimed warm-up,
and the CPU spent before the warm-up (interpreter, imports, the card): what any Python evaluator using a2a-sdk pays
before doing its own work, ``startup_cpu_s + cpu_s`` with its start-up.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
import time
import uuid


async def _run(url: str, parallelism: int, per_case: list[int], texts: list[str]) -> dict[str, float]:
    import aiohttp
    import httpx
    from a2a.client import ClientConfig, ClientFactory
    from a2a.client.card_resolver import parse_agent_card
    from a2a.types import Message, Part, Role, SendMessageRequest
    from httpx_aiohttp import AiohttpTransport

    async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=0)) as session:
        http = httpx.AsyncClient(timeout=60, transport=AiohttpTransport(client=session, verify=False))
        card = parse_agent_card((await http.get(f"{url}/.well-known/agent-card.json")).json())
        client = ClientFactory(ClientConfig(streaming=True, httpx_client=http)).create(card)
        gate = asyncio.Semaphore(parallelism)

        async def case(index: int) -> None:
            async with gate:
                context: str | None = None
                for turn in range(per_case[index]):
                    text = texts[(index * 3 + turn) % len(texts)]
                    message = Message(message_id=uuid.uuid4().hex, role=Role.ROLE_USER, parts=[Part(text=text)])
                    if context:
                        message.context_id = context
                    async for response in client.send_message(SendMessageRequest(message=message)):
                        context = context or response.task.context_id or None

        startup = time.process_time()  # since the interpreter started
        await asyncio.gather(*(case(i) for i in range(min(20, len(per_case)))))  # warm-up, not timed
        cpu, wall = time.process_time(), time.perf_counter()
        await asyncio.gather(*(case(i) for i in range(len(per_case))))
        return {"wall_s": time.perf_counter() - wall, "cpu_s": time.process_time() - cpu, "startup_cpu_s": startup}


def main() -> None:
    """Measure and print the floor as JSON."""
    url, parallelism, per_case = sys.argv[1], int(sys.argv[2]), json.loads(sys.argv[3])
    with open(os.environ["BENCH_REPLAY"], encoding="utf-8") as fh:
        texts = list(json.load(fh))
    print(json.dumps(asyncio.run(_run(url, parallelism, per_case, texts))))


if __name__ == "__main__":
    main()
