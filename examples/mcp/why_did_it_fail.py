"""An MCP client session with ``agentgauge mcp`` (the official ``mcp`` SDK's client over stdio), as a coding agent
holds one: which apps and results there are, then why the last run failed.

Run it where ``agentgauge eval`` saved a result (``.agentgauge/results``), for instance after
``agentgauge eval examples/trace_mode/calculator_traces.evalset.json``.
"""

import asyncio
import json
import shutil

from mcp import Client, StdioServerParameters


async def main() -> None:
    server = StdioServerParameters(command=shutil.which("agentgauge") or "agentgauge", args=["mcp"])
    async with Client(server) as client:
        for tool, arguments in [
            ("list_results", {"app": "calculator_traces", "limit": 1}),
            ("case_failures", {"app": "calculator_traces", "result": "latest", "limit": 2}),
        ]:
            answer = await client.call_tool(tool, arguments)
            print(f"> {tool} {json.dumps(arguments)}")
            print(json.dumps(json.loads(answer.content[0].text), indent=1, ensure_ascii=False))


asyncio.run(main())
