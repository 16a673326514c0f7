"""The shared HTTP layer of remote agents: settings, header expansion and masking, retries and back-off, error
messages, the Server-Sent Events reader, and the URL schemes."""

from __future__ import annotations

import itertools
import pickle
from typing import Any

import httpx
import pytest
from _fault_service import SECRET_IN_BODY
from _servers import free_port
from hypothesis import given, settings
from hypothesis import strategies as st

from agentgauge._util.redact import redact, register_secret, registered_secrets
from agentgauge.agents import looks_like_agent_spec
from agentgauge.agents.remote import (
    RemoteAgentSettings,
    RemoteEndpoint,
    expand_headers,
    is_remote_agent_spec,
    parse_header,
    remote_scheme,
)
from agentgauge.agents.remote._sse import sse_events
from agentgauge.errors import AgentError, InputError

pytestmark = pytest.mark.usefixtures("no_registered_secrets")


@pytest.mark.parametrize(
    ("spec", "scheme"),
    [
        ("a2a+http://127.0.0.1:9000", "a2a+http"),
        ("A2A+HTTPS://agents.example/a2a", "a2a+https"),
        ("adk+http://h:8000/apps/x", "adk+http"),
        ("agui+https://h/agent", "agui+https"),
        ("http://h:8080/chat", "http"),
        ("https://h", "https"),
        ("grpc://h:1", None),
        ("a2a+ftp://h", None),
        ("examples/agent.py", None),
        ("module:attribute", None),
        ("http://", None),
    ],
)
def test_remote_schemes(spec: str, scheme: str | None) -> None:
    assert remote_scheme(spec) == scheme
    assert is_remote_agent_spec(spec) is (scheme is not None)
    if scheme is not None:
        assert looks_like_agent_spec(spec)


@pytest.mark.parametrize(
    ("text", "expected"),
    [("Authorization: Bearer ${T}", ("Authorization", "Bearer ${T}")), ("X-Key:abc:def", ("X-Key", "abc:def"))],
)
def test_header_options(text: str, expected: tuple[str, str]) -> None:
    assert parse_header(text) == expected


@pytest.mark.parametrize("text", ["no colon", ": value", "Bad Name: v"])
def test_malformed_header_options(text: str) -> None:
    with pytest.raises(InputError, match="--agent-header expects 'Name: value'"):
        parse_header(text)


def test_settings_name_every_bad_field() -> None:
    with pytest.raises(InputError) as caught:
        RemoteAgentSettings.build(source="cfg.json", read_timeout=0, retries=-1, headers={"Bad Name": "x"})
    message = str(caught.value)
    assert message.startswith("cfg.json: invalid remote agent settings: ")
    for field in ("headers: ", "read_timeout: ", "retries: "):
        assert field in message


def test_env_headers_are_expanded_and_masked(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("R1_TEST_TOKEN", "tok-0123456789")
    headers = expand_headers({"Authorization": "Bearer ${R1_TEST_TOKEN}", "Accept": "application/json"})
    assert headers == {"Authorization": "Bearer tok-0123456789", "Accept": "application/json"}
    assert "tok-0123456789" in registered_secrets()
    assert redact("sent tok-0123456789") == "sent ***"
    assert redact("application/json") == "application/json"  # an ordinary header is not a secret


def test_literal_credentials_are_masked_too() -> None:
    expand_headers({"X-Api-Key": "literal-key-123456"})
    assert redact("key literal-key-123456") == "key ***"


def test_a_missing_variable_names_the_header(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("R1_MISSING", raising=False)
    with pytest.raises(InputError, match="header 'X-Token': environment variable R1_MISSING is not set"):
        RemoteEndpoint("a2a+http", "http://h", RemoteAgentSettings(headers={"X-Token": "${R1_MISSING}"}))


def _endpoint(address: str, **settings: Any) -> RemoteEndpoint:
    return RemoteEndpoint("adk+http", f"http://{address}", RemoteAgentSettings(backoff=0, **settings))


def _attempts(address: str, key: str) -> int:
    return int(httpx.get(f"http://{address}/attempts/{key}").json()["attempts"])


@pytest.mark.parametrize("status", [429, 500, 502, 503, 504])
async def test_retryable_statuses_are_retried(fault_server: str, status: int) -> None:
    endpoint = _endpoint(fault_server, retries=2)
    response = await endpoint.request("GET", f"/flaky/retry-{status}/2/{status}")
    assert response.json() == {"ok": True, "attempts": 3}


async def test_retry_after_is_honoured(fault_server: str) -> None:
    endpoint = _endpoint(fault_server, retries=1)
    response = await endpoint.request("GET", "/flaky/after/1/429?retry_after=0")
    assert response.json()["attempts"] == 2


@pytest.mark.parametrize("status", [400, 401, 403, 404, 409, 422])
async def test_other_client_errors_are_not_retried(fault_server: str, status: int) -> None:
    register_secret(SECRET_IN_BODY)
    endpoint = _endpoint(fault_server, retries=3)
    with pytest.raises(AgentError) as caught:
        await endpoint.request("POST", f"/flaky/no-{status}/5/{status}")
    assert _attempts(fault_server, f"no-{status}") == 1
    assert str(caught.value) == (
        f"adk+http agent: POST http://{fault_server}/flaky/no-{status}/5/{status}: HTTP {status}: "
        "body: 'failure 1 token=***'"
    )


async def test_server_errors_fail_after_the_retries(fault_server: str) -> None:
    endpoint = _endpoint(fault_server, retries=2)
    with pytest.raises(AgentError, match=r"HTTP 503: body: 'failure 3 token="):
        await endpoint.request("GET", "/flaky/always/9/503")
    assert _attempts(fault_server, "always") == 3


async def test_a_status_the_caller_accepts_is_returned(fault_server: str) -> None:
    response = await _endpoint(fault_server).request("GET", "/flaky/accepted/1/404", accept=(404,))
    assert response.status_code == 404


async def test_streams_are_retried_before_their_body_is_read(fault_server: str) -> None:
    endpoint = _endpoint(fault_server, retries=1)
    async with endpoint.stream("GET", "/flaky/stream/1/502") as response:
        assert response.status_code == 200
        assert (await response.aread()).startswith(b'{"ok":true')


async def test_refused_connections_are_retried_then_fail() -> None:
    port = free_port()
    endpoint = RemoteEndpoint(
        "a2a+http", f"http://user:pw@127.0.0.1:{port}/base?key=secret", RemoteAgentSettings(retries=1, backoff=0)
    )
    with pytest.raises(AgentError) as caught:
        await endpoint.request("GET", "")
    message = str(caught.value)
    assert message.startswith(f"a2a+http agent: GET http://127.0.0.1:{port}/base: cannot connect")
    assert message.endswith("(after 2 attempts)")
    assert "pw" not in message and "secret" not in message  # no credentials or query in messages


async def test_a_silent_server_fails_at_the_read_timeout(fault_server: str) -> None:
    endpoint = _endpoint(fault_server, read_timeout=0.2, retries=3)
    with pytest.raises(AgentError, match=r"GET http://.*/hang: no answer within the read timeout$"):
        await endpoint.request("GET", "/hang")


async def test_with_retries_retries_what_is_retryable() -> None:
    endpoint = RemoteEndpoint("a2a+http", "http://h", RemoteAgentSettings(retries=2, backoff=0))
    calls: list[int] = []

    class Unavailable(Exception):
        status_code = 503

    async def flaky() -> str:
        calls.append(1)
        if len(calls) < 3:
            raise Unavailable("busy")
        return "done"

    assert await endpoint.with_retries(flaky) == "done"
    assert len(calls) == 3

    async def forbidden() -> str:
        calls.append(1)
        raise ValueError("not retryable")

    calls.clear()
    with pytest.raises(ValueError):
        await endpoint.with_retries(forbidden)
    assert len(calls) == 1


async def _events(address: str, kind: str) -> list[tuple[str, str]]:
    endpoint = _endpoint(address)
    async with endpoint.stream("GET", f"/sse/{kind}") as response:
        return [event async for event in endpoint.iter_sse(response, "GET")]


async def test_event_streams_are_read(fault_server: str) -> None:
    assert await _events(fault_server, "good") == [("a", '{"n": 1}'), ("message", "two\nlines")]


@pytest.mark.parametrize(
    ("kind", "error"),
    [("truncated", "event stream ended in the middle of an event"), ("malformed", "malformed event stream line")],
)
async def test_broken_event_streams_fail(fault_server: str, kind: str, error: str) -> None:
    with pytest.raises(AgentError, match=f"GET http://{fault_server}/sse/{kind}: HTTP 200: {error}"):
        await _events(fault_server, kind)


async def test_one_session_per_event_loop_and_endpoints_pickle(fault_server: str) -> None:
    endpoint = _endpoint(fault_server, headers={"X-Trace": "t"})
    first = endpoint.client()
    assert endpoint.client() is first
    assert "X-Trace" not in first.headers  # sent with each request to the agent's origin, never by default
    copy = pickle.loads(pickle.dumps(endpoint))
    assert copy.headers == endpoint.headers and copy.client() is not first
    await endpoint.aclose()
    await copy.aclose()
    assert first.closed


def test_the_session_is_closed_when_its_loop_ends(fault_server: str) -> None:
    import asyncio

    endpoint = _endpoint(fault_server)

    async def one_request() -> Any:
        await endpoint.request("GET", "/flaky/loop-end/0/200")
        return endpoint.client()

    first = asyncio.run(one_request())
    assert first.closed  # asyncio.run cancelled the closing task, which closed the session
    second = asyncio.run(one_request())  # a new loop gets a new session
    assert second is not first and second.closed


async def test_many_requests_at_once_share_one_session(fault_server: str) -> None:
    import asyncio

    endpoint = _endpoint(fault_server)
    answers = await asyncio.gather(*(endpoint.request("GET", "/flaky/spread/0/200") for _ in range(40)))
    assert all(answer.json()["ok"] for answer in answers)
    async with endpoint.stream("GET", "/sse/good") as response:
        assert (await response.aread()).startswith(b"event: a")
    await endpoint.aclose()


async def test_the_httpx_client_for_a2a_sends_through_the_session(fault_server: str) -> None:
    import asyncio

    endpoint = _endpoint(fault_server, headers={"X-Trace": "t"})
    client = endpoint.httpx_client()
    assert endpoint.httpx_client() is client
    assert client.headers["X-Trace"] == "t"
    answers = await asyncio.gather(*(client.get(f"http://{fault_server}/flaky/bridge/0/200") for _ in range(40)))
    assert [answer.json()["ok"] for answer in answers] == [True] * 40
    with pytest.raises(httpx.ReadTimeout):  # aiohttp's errors arrive as httpx's, which a2a-sdk understands
        await client.get(f"http://{fault_server}/hang", timeout=httpx.Timeout(5.0, read=0.2))
    session = endpoint.client()
    await endpoint.aclose()
    assert session.closed


_FIELD_TEXT = st.text(alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="\r\n"), max_size=12)


@settings(max_examples=80, deadline=None)
@given(
    st.lists(
        st.tuples(st.from_regex(r"[a-z_]{1,8}", fullmatch=True), st.lists(_FIELD_TEXT, min_size=1, max_size=3)),
        max_size=5,
    ),
    st.sampled_from(["\n", "\r\n", "\r"]),
    st.lists(st.integers(0, 400), max_size=6),
)
def test_event_streams_round_trip(events: list[tuple[str, list[str]]], newline: str, cuts: list[int]) -> None:
    import asyncio

    text = "".join(
        f": comment{newline}event: {name}{newline}" + "".join(f"data: {line}{newline}" for line in lines) + newline
        for name, lines in events
    )
    raw = text.encode()
    bounds = sorted({0, len(raw), *(c for c in cuts if c < len(raw))})
    chunks = [raw[a:b] for a, b in itertools.pairwise(bounds)]  # CRLF split across chunks, too

    async def body() -> Any:
        for chunk in chunks:
            yield chunk

    async def read() -> list[tuple[str, str]]:
        return [event async for event in sse_events(body())]

    assert asyncio.run(read()) == [(name, "\n".join(lines)) for name, lines in events]
