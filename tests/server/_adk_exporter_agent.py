"""A google-adk agent exporting its telemetry to ``agentgauge serve --otlp`` the way a user's agent does: ADK's own
``maybe_set_otel_providers()`` reads ``OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`` / ``..._LOGS_ENDPOINT`` and
``OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT`` from the environment the test sets. The agent is the scripted
calculator of tests/agents/remote/calculator_adk (no model, no key); it answers two turns in one session, one trace
per turn as ADK writes them.

    python tests/server/_adk_exporter_agent.py SESSION_ID
"""

from __future__ import annotations

import asyncio
import importlib.util
import sys
from pathlib import Path

AGENT = Path(__file__).resolve().parents[1] / "agents" / "remote" / "calculator_adk" / "agent.py"


async def _converse(session_id: str) -> None:
    from google.adk.runners import Runner
    from google.adk.sessions import InMemorySessionService
    from google.genai import types

    spec = importlib.util.spec_from_file_location("calculator_adk_agent", AGENT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    sessions = InMemorySessionService()
    runner = Runner(app_name="calculator_adk", agent=module.root_agent, session_service=sessions)
    await sessions.create_session(app_name="calculator_adk", user_id="live_user", session_id=session_id)
    for text in ("calc add 2 3", "Now multiply that by 4"):  # the calculator set's calc_multi_turn
        message = types.Content(role="user", parts=[types.Part(text=text)])
        async for _ in runner.run_async(user_id="live_user", session_id=session_id, new_message=message):
            pass


def main(session_id: str) -> None:
    """Set up ADK's exporters from the environment, converse, and flush what was recorded."""
    from google.adk.telemetry.setup import maybe_set_otel_providers
    from opentelemetry import _logs, trace

    maybe_set_otel_providers()
    asyncio.run(_converse(session_id))
    trace.get_tracer_provider().shutdown()  # type: ignore[attr-defined]  # flushes the batch processor
    _logs.get_logger_provider().shutdown()  # type: ignore[attr-defined]


if __name__ == "__main__":
    main(sys.argv[1])
