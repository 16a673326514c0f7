"""Judges as metrics use them: bounded concurrency per judge, the answer cache, one client per endpoint."""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
import math
import weakref
from collections.abc import Mapping, Sequence
from typing import Any

from .._util.callgate import gated
from .._util.redact import redact
from ._cache import JudgeCache, cache_key
from ._endpoint import JudgeEndpoint
from ._errors import JudgeTimeoutError
from ._openai import ChatUsage, OpenAIJudge
from ._protocol import JudgeMessage, JudgeModel, ResponseSchema, as_judge_model
from ._settings import RUN_PARALLELISM, JudgeSettings

__all__ = ["JudgeClient", "JudgePool"]

_log = logging.getLogger("agentgauge.judges")


class JudgeClient:
    """One judge with a concurrency limit and, when ``cache`` and ``identity`` are given, an answer cache.

    ``max_concurrency`` calls run at once (``None``: the parallelism of the run in progress, see
    :data:`~agentgauge.judges.RUN_PARALLELISM`, read when the client is first used on an event loop).
    The cache is consulted before taking a concurrency slot, so cached answers never wait behind live calls.
    Each call gets ``time_budget`` seconds (all retries included; ``None``: unbounded) once it holds a slot; a
    call may pass its own. Answers are returned, and cached, with every registered secret masked.
    """

    def __init__(
        self,
        model: JudgeModel,
        *,
        label: str,
        max_concurrency: int | None = 4,
        cache: JudgeCache | None = None,
        identity: Mapping[str, Any] | None = None,
        time_budget: float | None = None,
    ) -> None:
        if max_concurrency is not None and max_concurrency < 1:
            raise ValueError(f"max_concurrency must be >= 1, got {max_concurrency}")
        self.model = model
        self.label = label
        self.max_concurrency = max_concurrency
        self.cache = cache if identity is not None else None
        self.identity = dict(identity) if identity is not None else None
        self.time_budget = time_budget
        self.calls = 0
        self.cache_hits = 0
        # An asyncio.Semaphore binds to the loop that first waits on it; keep one per loop.
        self._limits: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, asyncio.Semaphore] = (
            weakref.WeakKeyDictionary()
        )

    def _limit(self) -> asyncio.Semaphore:
        loop = asyncio.get_running_loop()
        sem = self._limits.get(loop)
        if sem is None:
            sem = self._limits[loop] = asyncio.Semaphore(self.max_concurrency or max(1, RUN_PARALLELISM.get()))
        return sem

    async def ask(
        self,
        messages: Sequence[JudgeMessage],
        *,
        generation_config: Mapping[str, Any],
        response_schema: ResponseSchema | None = None,
        sample_index: int = 0,
        time_budget: float | None = None,
    ) -> str:
        """The judge's answer for sample ``sample_index`` of ``messages`` (from the cache when present).

        ``time_budget`` overrides the client's budget for this call (a metric's configured ``timeout``).
        """
        key = None
        if self.cache is not None and self.identity is not None:
            key = cache_key(self.identity, messages, generation_config, response_schema, sample_index)
            cached = self.cache.get(key)
            if cached is not None:
                self.cache_hits += 1
                return cached
        async with self._limit(), gated(f"judge:{self.label}"):
            self.calls += 1
            answer = redact(
                await self._complete(messages, generation_config, response_schema, time_budget or self.time_budget)
            )
        if key is not None and self.cache is not None:
            try:
                self.cache.put(key, answer, model=str(self.identity.get("model", "")) if self.identity else "")
            except OSError as exc:  # a read-only cache must not fail the metric
                _log.warning("judge cache write failed in %s: %s", self.cache.directory, exc)
        return answer

    async def _complete(
        self,
        messages: Sequence[JudgeMessage],
        generation_config: Mapping[str, Any],
        response_schema: ResponseSchema | None,
        budget: float | None,
    ) -> str:
        if isinstance(self.model, OpenAIJudge):  # it spends the budget across its retries itself
            return await self.model.complete(
                messages, generation_config=generation_config, response_schema=response_schema, time_budget=budget
            )
        if budget is None or not math.isfinite(budget):
            return await self.model.complete(
                messages, generation_config=generation_config, response_schema=response_schema
            )
        bound = asyncio.timeout(budget)
        try:
            async with bound:
                return await self.model.complete(
                    messages, generation_config=generation_config, response_schema=response_schema
                )
        except TimeoutError:
            if not bound.expired():
                raise
            raise JudgeTimeoutError(f"judge {self.label} did not answer within its {budget:g}s time budget") from None


def _memo_key(endpoint: JudgeEndpoint) -> str:
    secret = hashlib.sha256(endpoint.api_key.encode()).hexdigest()
    ident = json.dumps(endpoint.cache_identity(), sort_keys=True, default=str)
    return f"{endpoint.provider}|{endpoint.variant}|{ident}|{secret}"


class JudgePool:
    """Hands out :class:`JudgeClient`s for one run, one per distinct endpoint, so limits apply per judge.

    When ``settings.judge`` is set, every metric uses that injected judge (a :class:`JudgeModel` or a callable
    ``(messages) -> str``) instead of its configured endpoint. Injected judges are cached only when they expose a
    ``cache_identity`` attribute (a string or mapping naming the model).
    """

    def __init__(self, settings: JudgeSettings | None = None) -> None:
        self.settings = settings or JudgeSettings()
        self._cache = JudgeCache(self.settings.cache_dir) if self.settings.cache_dir is not None else None
        self._clients: dict[str, JudgeClient] = {}
        self._injected: JudgeClient | None = None

    @property
    def has_injected_judge(self) -> bool:
        """True when an injected judge replaces configured endpoints."""
        return self.settings.judge is not None

    def injected(self) -> JudgeClient:
        """The client around the injected judge (``settings.judge`` must be set)."""
        if self._injected is None:
            judge = self.settings.judge
            if judge is None:
                raise ValueError("no injected judge in JudgeSettings.judge")
            model = as_judge_model(judge)
            raw_identity = getattr(judge, "cache_identity", None)
            identity: Mapping[str, Any] | None = None
            if isinstance(raw_identity, str) and raw_identity:
                identity = {"model": raw_identity}
            elif isinstance(raw_identity, Mapping):
                identity = raw_identity
            label = getattr(judge, "__qualname__", None) or type(judge).__name__
            self._injected = JudgeClient(
                model,
                label=str(label),
                max_concurrency=self.settings.max_concurrency,
                cache=self._cache,
                identity=identity,
                time_budget=self.settings.retry.total_budget,
            )
        return self._injected

    def for_endpoint(self, endpoint: JudgeEndpoint) -> JudgeClient:
        """The client for ``endpoint`` (or the injected judge when one is set)."""
        if self.has_injected_judge:
            return self.injected()
        memo = _memo_key(endpoint)
        client = self._clients.get(memo)
        if client is None:
            client = JudgeClient(
                OpenAIJudge(endpoint, retry=self.settings.retry),
                label=endpoint.describe(),
                max_concurrency=self.settings.max_concurrency,
                cache=self._cache,
                identity=endpoint.cache_identity(),
                time_budget=self.settings.retry.total_budget,
            )
            self._clients[memo] = client
        return client

    def usage(self) -> dict[str, ChatUsage]:
        """What the endpoint judges handed out have used so far, by judge model (answers from the cache made no
        call and are not counted)."""
        totals: dict[str, ChatUsage] = {}
        for client in self._clients.values():
            if isinstance(client.model, OpenAIJudge):
                totals.setdefault(client.model.endpoint.model, ChatUsage()).merge(client.model.usage)
        return totals

    async def aclose(self) -> None:
        """Close the HTTP clients of every endpoint judge handed out."""
        for client in self._clients.values():
            if isinstance(client.model, OpenAIJudge):
                await client.model.aclose()
