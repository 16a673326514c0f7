"""Every remote scheme against a hostile server (``_hostile_servers.py``): credentials never leave the agent's
origin (redirects, agent cards naming another origin), answers are bounded in size, in nesting and in time (an
endless stream, a drip), and the pre-flight check names the scheme, the URL and the cause."""

from __future__ import annotations

import asyncio
import json
import re
from pathlib import Path
from typing import Any

import pytest
from _hostile_servers import PLAIN_CONFIG, HostileServer
from _servers import free_port

from agentgauge.agents import AgentRequest
from agentgauge.agents.remote import RemoteAgentSettings, load_remote_agent, preflight_remote_agents
from agentgauge.agents.remote import _sse as sse_module
from agentgauge.errors import AgentError, InputError

pytestmark = pytest.mark.usefixtures("no_registered_secrets")

SCHEMES = ("adk", "a2a", "agui", "trpcagent", "plain")
LABELS = {"adk": "adk+http", "a2a": "a2a+http", "agui": "agui+http", "trpcagent": "trpcagent+http", "plain": "http"}
SECRET = "sk-hostile-5f0c2a9e71"


def spec(scheme: str, address: str, mode: str = "") -> str:
    """The agent URL of ``scheme`` on the hostile server at ``address``, behind ``mode`` (``/huge/10``, ...)."""
    base = address + mode
    urls = {
        "adk": f"adk+http://{base}/apps/hostile",
        "a2a": f"a2a+http://{base}",
        "agui": f"agui+http://{base}/agui",
        "trpcagent": f"trpcagent+http://{base}/trpc-agent/v1/apps/hostile",
    }
    return urls.get(scheme, f"http://{base}/chat")


def agent_for(scheme: str, url: str, folder: Path, **settings: Any) -> Any:
    """The agent at ``url`` with no retries and ``settings`` (a plain service gets its config file)."""
    if scheme == "plain":
        config = folder / "plain.json"
        config.write_text(json.dumps(PLAIN_CONFIG))
        settings["config"] = config
    return load_remote_agent(url, RemoteAgentSettings(retries=0, backoff=0, **settings))


def turn(agent: Any) -> Any:
    request = AgentRequest(user_content={"role": "user", "content": "hello"}, session_id="s1", user_id="u")
    return asyncio.run(agent.run(request))


def _with_secrets() -> dict[str, dict[str, str]]:
    return {"headers": {"X-Api-Key": SECRET, "Authorization": f"Bearer {SECRET}"}}


@pytest.mark.parametrize("status", [302, 307])
@pytest.mark.parametrize("scheme", SCHEMES)
def test_a_redirect_to_another_port_is_refused_and_sends_it_nothing(
    hostile: tuple[HostileServer, HostileServer], scheme: str, status: int, tmp_path: Path
) -> None:
    home, away = hostile
    before = len(away.seen)
    agent = agent_for(scheme, spec(scheme, home.address, f"/to-away/{status}"), tmp_path, **_with_secrets())
    with pytest.raises(AgentError) as caught:
        turn(agent)
    message = str(caught.value)
    assert message.startswith(f"{LABELS[scheme]} agent: ")
    assert f"redirected to http://{away.address}/" in message
    assert f"another origin than the agent's http://{home.address}: refused (--agent-follow-redirects" in message
    assert len(away.seen) == before  # not one request reached the other port


@pytest.mark.parametrize("scheme", SCHEMES)
def test_a_followed_redirect_carries_none_of_the_configured_headers(
    hostile: tuple[HostileServer, HostileServer], scheme: str, tmp_path: Path
) -> None:
    home, away = hostile
    home_before, away_before = len(home.seen), len(away.seen)
    url = spec(scheme, home.address, "/to-away/307")
    output = turn(agent_for(scheme, url, tmp_path, follow_redirects=True, **_with_secrets()))
    assert output.final_response.content == "fine"
    reached = away.headers_seen()[away_before:]
    assert reached, "the redirects were followed"
    assert not [value for headers in reached for value in headers.values() if SECRET in value]
    assert all("authorization" not in headers and "x-api-key" not in headers for headers in reached)
    assert any(h.get("x-api-key") == SECRET for h in home.headers_seen()[home_before:])  # sent at home only


def test_an_agent_card_naming_another_origin_is_refused(
    hostile: tuple[HostileServer, HostileServer], tmp_path: Path
) -> None:
    home, away = hostile
    before = len(away.seen)
    with pytest.raises(AgentError) as caught:
        turn(agent_for("a2a", f"a2a+http://{home.address}/card-away/0", tmp_path, **_with_secrets()))
    assert str(caught.value) == (
        f"a2a+http agent: GET http://{home.address}/card-away/0/.well-known/agent-card.json: the agent card names "
        f"http://{away.address}/, another origin than the agent's http://{home.address}: refused "
        "(--agent-follow-redirects (followRedirects) sends it there without the configured headers)"
    )
    assert len(away.seen) == before


def test_an_agent_card_naming_another_origin_is_followed_without_the_headers(
    hostile: tuple[HostileServer, HostileServer], tmp_path: Path
) -> None:
    home, away = hostile
    before = len(away.seen)
    url = f"a2a+http://{home.address}/card-away/0"
    agent = agent_for("a2a", url, tmp_path, follow_redirects=True, **_with_secrets())
    assert turn(agent).final_response.content == "fine"
    reached = away.seen[before:]
    assert [method for method, _, _ in reached] == ["POST"]  # the message went where the card said
    assert not [value for _, _, headers in reached for value in headers.values() if SECRET in value]


@pytest.mark.parametrize(
    ("scheme", "mode", "method"),
    [
        ("adk", "huge", "POST"),  # the session creation
        ("a2a", "huge-get", "GET"),  # the agent card
        ("a2a", "huge", "POST"),  # one event-stream line
        ("agui", "huge", "POST"),
        ("trpcagent", "huge", "POST"),
        ("plain", "huge", "POST"),
    ],
)
def test_an_answer_over_the_size_limit_fails_naming_the_limit(
    hostile: tuple[HostileServer, HostileServer], scheme: str, mode: str, method: str, tmp_path: Path
) -> None:
    home, _ = hostile
    agent = agent_for(scheme, spec(scheme, home.address, f"/{mode}/3000000"), tmp_path, max_response_mb=1)
    with pytest.raises(AgentError) as caught:
        turn(agent)
    message = str(caught.value)
    assert message.startswith(f"{LABELS[scheme]} agent: {method} http://{home.address}/{mode}/3000000")
    assert message.endswith("the answer is larger than the 1 MB limit (--agent-max-response-mb, maxResponseMb)"), (
        message
    )


@pytest.mark.parametrize("scheme", SCHEMES)
def test_json_nested_thousands_deep_is_refused_naming_scheme_and_endpoint(
    hostile: tuple[HostileServer, HostileServer], scheme: str, tmp_path: Path
) -> None:
    home, _ = hostile
    with pytest.raises(AgentError) as caught:
        turn(agent_for(scheme, spec(scheme, home.address, "/deep/5000"), tmp_path))
    message = str(caught.value)
    assert message.startswith(f"{LABELS[scheme]} agent: POST http://{home.address}/deep/5000")
    assert re.search(r"nests arrays and objects (deeper than 128 levels|too deeply to be read)", message), message
    assert "RecursionError" not in message


@pytest.mark.parametrize("mode", ["/endless/0", "/drip/head", "/drip/body"])
@pytest.mark.parametrize("scheme", SCHEMES)
def test_an_answer_that_never_ends_fails_at_the_turn_limit(
    hostile: tuple[HostileServer, HostileServer], scheme: str, mode: str, tmp_path: Path
) -> None:
    home, _ = hostile
    # read_timeout is the default 300 s: bytes keep coming, so only the turn limit can end these.
    agent = agent_for(scheme, spec(scheme, home.address, mode), tmp_path, turn_timeout=0.6)
    with pytest.raises(AgentError) as caught:
        turn(agent)
    assert str(caught.value).startswith(f"{LABELS[scheme]} agent: http://{home.address}{mode}")
    assert str(caught.value).endswith("no complete answer within the 0.6 s turn limit (--agent-timeout, turnTimeout)")


@pytest.mark.parametrize("scheme", SCHEMES)
def test_the_preflight_passes_an_agent_that_answers_its_protocol(
    hostile: tuple[HostileServer, HostileServer], scheme: str, tmp_path: Path
) -> None:
    home, _ = hostile
    asyncio.run(preflight_remote_agents([agent_for(scheme, spec(scheme, home.address), tmp_path), None, object()]))


@pytest.mark.parametrize("scheme", SCHEMES)
def test_the_preflight_names_scheme_url_and_cause_of_a_closed_port(scheme: str, tmp_path: Path) -> None:
    address = f"127.0.0.1:{free_port()}"
    with pytest.raises(InputError) as caught:
        asyncio.run(preflight_remote_agents([agent_for(scheme, spec(scheme, address), tmp_path)]))
    message = str(caught.value)
    assert re.match(rf"{re.escape(LABELS[scheme])} agent: GET http://{address}/\S*: cannot connect", message)
    assert message.endswith("(checked before the first case; nothing was run)")


_NOT_THE_PROTOCOL = [
    ("adk+http://{home}/apps/other", "/list-apps: the server does not serve app 'other' (it serves: hostile)"),
    ("agui+http://{home}/nowhere", "/nowhere: HTTP 404: no endpoint here"),
    ("a2a+http://{home}/nowhere", "/nowhere/.well-known/agent-card.json: HTTP 404: no agent card there nor at"),
    (
        "trpcagent+http://{home}/nowhere",
        "/trpc-agent/v1/apps/nowhere/runs: HTTP 404: the server serves no tRPC-Agent app 'nowhere' here",
    ),
]


@pytest.mark.parametrize(("url", "problem"), _NOT_THE_PROTOCOL)
def test_the_preflight_names_what_does_not_answer_the_protocol(
    hostile: tuple[HostileServer, HostileServer], url: str, problem: str, tmp_path: Path
) -> None:
    home, _ = hostile
    scheme = url.partition("+")[0]
    with pytest.raises(InputError) as caught:
        asyncio.run(preflight_remote_agents([agent_for(scheme, url.format(home=home.address), tmp_path)]))
    assert f"GET http://{home.address}{problem}" in str(caught.value)


class _CountingBreaks:
    """Stands in for the line-break pattern and counts the bytes each search or split looks at."""

    def __init__(self, pattern: re.Pattern[bytes]) -> None:
        self.pattern, self.looked_at = pattern, 0

    def search(self, data: bytes, pos: int = 0) -> Any:
        found = self.pattern.search(data, pos)
        self.looked_at += (found.end() if found else len(data)) - pos
        return found

    def split(self, data: bytes) -> list[bytes]:
        self.looked_at += len(data)
        return self.pattern.split(data)


def test_one_huge_event_is_read_in_time_linear_in_its_size(monkeypatch: pytest.MonkeyPatch) -> None:
    counting = _CountingBreaks(sse_module._LINE_BREAK)
    monkeypatch.setattr(sse_module, "_LINE_BREAK", counting)
    size, piece = 4_000_000, 16_384

    async def body() -> Any:
        yield b"data: "
        for _ in range(size // piece):
            yield b"x" * piece
        yield b"\n\ndata: small\r\n\r\n"

    async def read() -> list[tuple[str, str]]:
        return [event async for event in sse_module.sse_events(body())]

    events = asyncio.run(read())
    assert [len(data) for _, data in events] == [size // piece * piece, 5]
    assert counting.looked_at <= 2 * size  # each byte looked at about once, not once per chunk after it
