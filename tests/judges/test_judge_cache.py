from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from agentgauge.judges import (
    CallableJudge,
    JudgeCache,
    JudgeClient,
    JudgeEndpoint,
    JudgeError,
    JudgePool,
    JudgeSettings,
    ResponseSchema,
    cache_key,
)

MESSAGES = [{"role": "user", "content": "judge this"}]
IDENTITY = {"model": "m", "base_url": "http://x/v1", "extra_fields": {}}


def test_cache_key_depends_on_every_input() -> None:
    base = cache_key(IDENTITY, MESSAGES, {"temperature": 0.8}, None, 0)
    assert base == cache_key(dict(IDENTITY), [dict(MESSAGES[0])], {"temperature": 0.8}, None, 0)
    variants = [
        cache_key({**IDENTITY, "model": "other"}, MESSAGES, {"temperature": 0.8}, None, 0),
        cache_key({**IDENTITY, "base_url": "http://y/v1"}, MESSAGES, {"temperature": 0.8}, None, 0),
        cache_key(IDENTITY, [{"role": "user", "content": "judge that"}], {"temperature": 0.8}, None, 0),
        cache_key(IDENTITY, MESSAGES, {"temperature": 0.1}, None, 0),
        cache_key(IDENTITY, MESSAGES, {"temperature": 0.8}, ResponseSchema("s", {"type": "object"}), 0),
        cache_key(IDENTITY, MESSAGES, {"temperature": 0.8}, None, 1),
    ]
    assert len({base, *variants}) == 7
    assert all(len(k) == 64 for k in variants)


def test_api_key_does_not_change_the_key() -> None:
    a = JudgeEndpoint.resolve(model="m", provider="openai", base_url="http://x/v1", api_key="key-one", env={})
    b = JudgeEndpoint.resolve(model="m", provider="openai", base_url="http://x/v1", api_key="key-two", env={})
    assert cache_key(a.cache_identity(), MESSAGES, {}, None, 0) == cache_key(b.cache_identity(), MESSAGES, {}, None, 0)


def test_put_get_roundtrip_and_layout(tmp_path: Path) -> None:
    cache = JudgeCache(tmp_path / "c")
    key = cache_key(IDENTITY, MESSAGES, {}, None, 0)
    assert cache.get(key) is None
    cache.put(key, "the answer", model="m")
    assert cache.get(key) == "the answer"
    path = tmp_path / "c" / key[:2] / f"{key}.json"
    assert json.loads(path.read_text()) == {"key": key, "model": "m", "answer": "the answer"}
    assert len(cache) == 1
    assert not list((tmp_path / "c").rglob(".tmp-*"))  # the temporary file was renamed into place


@pytest.mark.parametrize("content", ["not json", '{"key": "other", "answer": "x"}', '{"answer": 3}', "[]"])
def test_unreadable_entries_are_misses(tmp_path: Path, content: str) -> None:
    cache = JudgeCache(tmp_path)
    key = cache_key(IDENTITY, MESSAGES, {}, None, 0)
    (tmp_path / key[:2]).mkdir()
    (tmp_path / key[:2] / f"{key}.json").write_text(content)
    assert cache.get(key) is None


async def test_client_serves_repeats_from_cache(tmp_path: Path) -> None:
    calls: list[Any] = []

    def judge(messages: list[dict[str, str]]) -> str:
        calls.append(messages)
        return f"answer {len(calls)}"

    def client() -> JudgeClient:
        return JudgeClient(CallableJudge(judge), label="j", cache=JudgeCache(tmp_path), identity=IDENTITY)

    first = client()
    assert await first.ask(MESSAGES, generation_config={}, sample_index=0) == "answer 1"
    assert await first.ask(MESSAGES, generation_config={}, sample_index=1) == "answer 2"
    second = client()  # a new run over the same outputs
    assert await second.ask(MESSAGES, generation_config={}, sample_index=0) == "answer 1"
    assert await second.ask(MESSAGES, generation_config={}, sample_index=1) == "answer 2"
    assert len(calls) == 2 and second.calls == 0 and second.cache_hits == 2


async def test_failures_are_not_cached(tmp_path: Path) -> None:
    attempts = 0

    def flaky(messages: list[dict[str, str]]) -> str:
        nonlocal attempts
        attempts += 1
        if attempts == 1:
            raise RuntimeError("first call fails")
        return "ok"

    client = JudgeClient(CallableJudge(flaky), label="j", cache=JudgeCache(tmp_path), identity=IDENTITY)
    with pytest.raises(JudgeError, match="RuntimeError: first call fails"):
        await client.ask(MESSAGES, generation_config={})
    assert await client.ask(MESSAGES, generation_config={}) == "ok"


async def test_concurrency_is_bounded_per_judge() -> None:
    active = peak = 0

    async def slow(messages: list[dict[str, str]]) -> str:
        nonlocal active, peak
        active += 1
        peak = max(peak, active)
        await asyncio.sleep(0.02)
        active -= 1
        return "x"

    client = JudgeClient(CallableJudge(slow), label="j", max_concurrency=2)
    await asyncio.gather(*(client.ask(MESSAGES, generation_config={}, sample_index=i) for i in range(8)))
    assert peak == 2 and client.calls == 8


async def test_callable_judges_sync_async_and_bad_returns() -> None:
    async def async_judge(messages: list[dict[str, str]]) -> str:
        return messages[0]["content"].upper()

    def sync_judge(messages: list[dict[str, str]]) -> str:
        return messages[0]["content"][::-1]

    assert await CallableJudge(async_judge).complete(MESSAGES, generation_config={}) == "JUDGE THIS"
    assert await CallableJudge(sync_judge).complete(MESSAGES, generation_config={}) == "siht egduj"
    with pytest.raises(JudgeError, match="returned int, expected str"):
        await CallableJudge(lambda m: 3).complete(MESSAGES, generation_config={})
    with pytest.raises(TypeError):
        CallableJudge(42)


def test_pool_shares_one_client_per_endpoint_and_prefers_injected(tmp_path: Path) -> None:
    pool = JudgePool(JudgeSettings(cache_dir=tmp_path))
    a = JudgeEndpoint.resolve(model="m", provider="openai", base_url="http://x/v1", api_key="k", env={})
    b = JudgeEndpoint.resolve(model="m2", provider="openai", base_url="http://x/v1", api_key="k", env={})
    assert pool.for_endpoint(a) is pool.for_endpoint(a)
    assert pool.for_endpoint(a) is not pool.for_endpoint(b)
    assert pool.for_endpoint(a).cache is not None

    injected = JudgePool(JudgeSettings(judge=lambda messages: "x"))
    assert injected.for_endpoint(a) is injected.injected()
    assert injected.injected().cache is None  # callables without cache_identity are never cached
