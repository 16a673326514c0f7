"""The reflection model: the model that reads failing cases and proposes new texts (GEPA's ``reflection_lm``,
ADK's ``optimizer_model``), reached like a judge (any OpenAI-compatible endpoint or provider the judges support,
with their retries, time budget and answer cache).

Which model: ``--reflection-model`` (and ``--reflection-base-url``), else the optimizer config's
``optimizer_model``, else the judge settings: ``--judge-model`` / ``--judge-base-url``, else
``AGENTGAUGE_JUDGE_MODEL`` / ``AGENTGAUGE_JUDGE_BASE_URL`` / ``AGENTGAUGE_JUDGE_PROVIDER``. Answers are cached
under the results folder as judge answers are (``--no-cache``: not); the n-th time one prompt is asked in a run is
its own cache entry, so a run asked again gets the same sequence of answers and a fresh one new samples.
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import InputError
from ._budget import Spending, chat_cost

if TYPE_CHECKING:  # pragma: no cover
    from ..judges import JudgeClient
    from ..model._prices import PriceTable

__all__ = ["ReflectionSettings", "Reflector"]


@dataclass(frozen=True)
class ReflectionSettings:
    """Where the reflection model is and how it is asked (``generation``: chat-completions parameters)."""

    model: str | None = None
    base_url: str | None = None
    provider: str = ""
    generation: Mapping[str, Any] = field(default_factory=dict)
    timeout: float | None = None
    cache_dir: Path | None = None

    def resolved(self, judge_model: str | None, judge_base_url: str | None) -> ReflectionSettings:
        """These settings with the model taken from the judge settings (flags, then environment) when unset."""
        if self.model:
            return self
        import dataclasses

        if judge_model:
            return dataclasses.replace(self, model=judge_model, base_url=self.base_url or judge_base_url)
        model = os.environ.get("AGENTGAUGE_JUDGE_MODEL", "").strip() or None
        return dataclasses.replace(
            self,
            model=model,
            base_url=self.base_url or os.environ.get("AGENTGAUGE_JUDGE_BASE_URL", "").strip() or None,
            provider=self.provider or os.environ.get("AGENTGAUGE_JUDGE_PROVIDER", "").strip(),
        )


class Reflector:
    """Asks the reflection model; what its answers cost goes into ``spending`` (priced by ``prices``)."""

    def __init__(self, settings: ReflectionSettings, spending: Spending, prices: PriceTable) -> None:
        self.settings = settings
        self.spending = spending
        self.prices = prices
        self._client: JudgeClient | None = None
        self._asked: Counter[str] = Counter()

    @property
    def model(self) -> str:
        """The model's name (empty before :meth:`check`)."""
        return self.settings.model or ""

    def check(self) -> None:
        """Resolve the endpoint now: no model, or a hosted provider without a key, raises :class:`InputError`."""
        from ..judges import JudgeConfigError, JudgeEndpoint, JudgePool, JudgeSettings, RetryPolicy

        if not self.settings.model:
            raise InputError(
                "no reflection model: give --reflection-model (and --reflection-base-url), optimizer_model in the "
                "optimizer config, --judge-model, or AGENTGAUGE_JUDGE_MODEL"
            )
        try:
            endpoint = JudgeEndpoint.resolve(
                model=self.settings.model, base_url=self.settings.base_url or "", provider=self.settings.provider
            )
        except JudgeConfigError as exc:
            raise InputError(f"reflection model: {exc}") from None
        retry = RetryPolicy() if self.settings.timeout is None else RetryPolicy(total_budget=self.settings.timeout)
        self._client = JudgePool(JudgeSettings(cache_dir=self.settings.cache_dir, retry=retry)).for_endpoint(endpoint)

    async def ask(self, prompt: str) -> str:
        """The model's answer to one user message ``prompt``."""
        if self._client is None:
            self.check()
        assert self._client is not None
        sample = self._asked[prompt]
        self._asked[prompt] += 1
        answer = await self._client.ask(
            [{"role": "user", "content": prompt}], generation_config=dict(self.settings.generation), sample_index=sample
        )
        self._count()
        return answer

    def _count(self) -> None:
        from ..judges import OpenAIJudge

        assert self._client is not None
        model = self._client.model
        self.spending.reflection_calls = self._client.calls
        if isinstance(model, OpenAIJudge):
            cost = chat_cost(self.prices, self.model, model.usage)
            if cost is not None:
                self.spending.reflection_cost = cost
