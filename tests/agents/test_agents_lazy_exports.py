"""``agentgauge.agents`` loads the streamed-event classes, the OpenAI-compatible agent and its tool introspection
on first use: a plain agent's run does not pay for them."""

from __future__ import annotations

import subprocess
import sys

import agentgauge.agents as agents


def test_every_exported_name_resolves_and_is_listed() -> None:
    for name in agents.__all__:
        assert getattr(agents, name) is not None, name
    assert set(agents.__all__) <= set(dir(agents))


def test_loading_a_plain_agent_leaves_the_optional_parts_unloaded() -> None:
    code = (
        "import sys\n"
        "from agentgauge.agents import as_agent, load_agent, AgentOutput\n"
        "async def agent(request):\n"
        "    return 'ok'\n"
        "as_agent(agent)\n"
        "print(sorted(m for m in sys.modules if m.startswith('agentgauge.agents.')))\n"
    )
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert "_events" not in loaded and "_openai" not in loaded and "_tools" not in loaded, loaded


async def test_an_agent_that_streams_events_still_works() -> None:
    from agentgauge.agents import TextDelta, to_output

    async def events():  # type: ignore[no-untyped-def]
        yield TextDelta("hel")
        yield TextDelta("lo")

    output = await to_output(events())
    assert output.final_message() is not None and output.final_message().content == "hello"  # type: ignore[union-attr]
