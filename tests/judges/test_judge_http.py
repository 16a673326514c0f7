"""Judge requests go out as the ``openai`` SDK sends them (URL, headers, body, error wording), without the SDK."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from chat_server import ChatServer, Reply, error, ok

from agentgauge.judges import JudgeEndpoint, JudgeError, OpenAIJudge, RetryPolicy
from agentgauge.judges._http import chat_url, encode_body, request_headers

KEY = "sk-test-http-KEY-0123456789"
ONCE = RetryPolicy(max_attempts=1, request_timeout=5.0)
MESSAGES = [{"role": "user", "content": "Is 2+2 four?"}]


@pytest.mark.parametrize(
    ("base_url", "environ", "url"),
    [
        ("http://h/v1", {}, "http://h/v1/chat/completions"),
        ("http://h/v1/", {}, "http://h/v1/chat/completions"),
        ("http://h/v1?api-version=1", {}, "http://h/v1/chat/completions?api-version=1"),
        (None, {"OPENAI_BASE_URL": "http://proxy/v1"}, "http://proxy/v1/chat/completions"),
        (None, {}, "https://api.openai.com/v1/chat/completions"),
    ],
)
def test_the_url_is_the_base_url_and_chat_completions(base_url: str | None, environ: dict[str, str], url: str) -> None:
    assert chat_url(base_url, environ) == url


def test_headers_take_organization_project_and_custom_headers_from_the_environment() -> None:
    environ = {
        "OPENAI_ORG_ID": "org-1",
        "OPENAI_PROJECT_ID": "proj-1",
        "OPENAI_CUSTOM_HEADERS": "X-Gateway: a: b\nnot a header\n accept :  text/plain ",
    }
    headers = request_headers(KEY, environ)
    assert headers["Authorization"] == f"Bearer {KEY}"
    assert headers["OpenAI-Organization"] == "org-1" and headers["OpenAI-Project"] == "proj-1"
    assert headers["X-Gateway"] == "a: b"
    # A custom header replaces a default of the same name, whatever its case (as in the SDK).
    assert headers["accept"] == "text/plain" and "Accept" not in headers
    assert request_headers(KEY, {"OPENAI_CUSTOM_HEADERS": "Authorization: Bearer gateway"})["Authorization"] == (
        "Bearer gateway"
    )
    plain = request_headers(KEY, {})
    assert "OpenAI-Organization" not in plain and plain["Content-Type"] == "application/json"


def test_extra_body_is_merged_over_the_parameters() -> None:
    params = {"model": "m", "stream": False, "temperature": 0.1, "extra_body": {"temperature": 0.5, "x": "é"}}
    body = encode_body(params)
    assert json.loads(body) == {"model": "m", "stream": False, "temperature": 0.5, "x": "é"}
    assert "é".encode() in body and b", " not in body  # compact UTF-8, as the SDK writes it


@pytest.mark.parametrize(
    ("reply", "wording"),
    [
        (error(500, "boom"), "HTTP 500: Error code: 500 - boom"),
        (Reply(404, {"message": "no such model"}), "HTTP 404: Error code: 404 - no such model"),
        (Reply(401, {"error": "denied"}), "HTTP 401: Error code: 401"),
        (Reply(400, "plain words", content_type="text/plain"), "HTTP 400: Error code: 400"),
    ],
)
async def test_status_errors_are_worded_as_the_sdk_words_them(
    chat_server: ChatServer, reply: Reply, wording: str
) -> None:
    chat_server.responder = lambda body: reply
    endpoint = JudgeEndpoint.resolve(model="m", provider="openai", base_url=chat_server.base_url, api_key=KEY, env={})
    judge = OpenAIJudge(endpoint, retry=ONCE)
    with pytest.raises(JudgeError) as info:
        await judge.complete(MESSAGES, generation_config={})
    assert str(info.value).endswith(wording)
    await judge.aclose()


async def test_one_connection_pool_serves_every_call(chat_server: ChatServer) -> None:
    chat_server.responder = lambda body: ok("yes")
    endpoint = JudgeEndpoint.resolve(model="m", provider="openai", base_url=chat_server.base_url, api_key=KEY, env={})
    judge = OpenAIJudge(endpoint, retry=ONCE)
    for _ in range(3):
        assert await judge.complete(MESSAGES, generation_config={}) == "yes"
    assert len(judge._clients) == 1
    await judge.aclose()
    assert not judge._clients


def test_a_judge_call_does_not_load_the_openai_sdk(chat_server: ChatServer) -> None:
    chat_server.responder = lambda body: ok("yes")
    code = (
        "import asyncio, sys\n"
        "from agentgauge.judges import JudgeEndpoint, OpenAIJudge\n"
        f"endpoint = JudgeEndpoint.resolve(model='m', provider='openai', base_url={chat_server.base_url!r}, "
        f"api_key={KEY!r}, env={{}})\n"
        "judge = OpenAIJudge(endpoint)\n"
        "async def main():\n"
        "    print(await judge.complete([{'role': 'user', 'content': 'q'}], generation_config={}))\n"
        "    await judge.aclose()\n"
        "asyncio.run(main())\n"
        "print('openai' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["yes", "False"]
