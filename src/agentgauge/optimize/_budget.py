"""What an optimisation may spend (``--budget``) and what it spent.

``--budget calls=200,cost=1.5,time=10m`` (or the option given once per limit): ``calls`` bounds the search's metric
calls (one case run scored, as GEPA and ADK count them), ``cost`` the money spent by the agent's model calls (their
recorded token usage at the price table's prices), the judge metrics' calls and the reflection model's, ``time`` the
wall time (seconds, or with ``s``, ``m``, ``h``). The search stops at its next step once a limit is reached; the
baseline and the candidate are then evaluated on train and validation in any case: that evidence is what the gate
judges.
"""

from __future__ import annotations

import re
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ..errors import InputError

if TYPE_CHECKING:  # pragma: no cover
    from ..judges import ChatUsage
    from ..model._prices import PriceTable

__all__ = ["Budget", "Spending", "chat_cost"]

_UNITS = {"": 1.0, "s": 1.0, "m": 60.0, "min": 60.0, "h": 3600.0}
_DURATION = re.compile(r"^(\d+(?:\.\d+)?)\s*(s|m|min|h)?$")


def _number(key: str, text: str, option: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise InputError(f"{option}: {key} must be a number, got {text!r}") from None
    if not value > 0 or value == float("inf"):
        raise InputError(f"{option}: {key} must be a positive number, got {text!r}")
    return value


@dataclass(frozen=True)
class Budget:
    """Limits of one optimisation (``None``: no limit of that kind)."""

    metric_calls: int | None = None
    cost: float | None = None
    seconds: float | None = None

    @classmethod
    def parse(cls, values: Sequence[str], *, option: str = "--budget") -> Budget:
        """``calls=N``, ``cost=X``, ``time=T[s|m|h]``, comma-separated or one per value; a key twice, an unknown
        key or a bad number raises :class:`InputError` naming ``option``."""
        seen: dict[str, str] = {}
        for value in values:
            for item in filter(None, (part.strip() for part in value.split(","))):
                key, sep, text = item.partition("=")
                key = {"metric_calls": "calls", "seconds": "time"}.get(key.strip(), key.strip())
                if not sep or key not in ("calls", "cost", "time"):
                    raise InputError(f"{option}: expected calls=N, cost=X or time=T, got {item!r}")
                if key in seen:
                    raise InputError(f"{option}: {key} is given twice")
                seen[key] = text.strip()
        calls = cost = seconds = None
        if "calls" in seen:
            if not seen["calls"].isdigit() or int(seen["calls"]) < 1:
                raise InputError(f"{option}: calls must be a whole number of at least 1, got {seen['calls']!r}")
            calls = int(seen["calls"])
        if "cost" in seen:
            cost = _number("cost", seen["cost"], option)
        if "time" in seen:
            match = _DURATION.match(seen["time"])
            if match is None:
                raise InputError(f"{option}: time must be like 90, 90s, 15m or 2h, got {seen['time']!r}")
            seconds = _number("time", match[1], option) * _UNITS[match[2] or ""]
        return cls(calls, cost, seconds)

    def with_calls(self, calls: int | None) -> Budget:
        """This budget with ``calls`` metric calls when it names none itself."""
        return self if self.metric_calls is not None or calls is None else Budget(calls, self.cost, self.seconds)

    def describe(self) -> str:
        """``200 metric calls, cost 1.5, 10 min`` (``unlimited`` when no limit is set)."""
        parts = []
        if self.metric_calls is not None:
            parts.append(f"{self.metric_calls} metric calls")
        if self.cost is not None:
            parts.append(f"cost {self.cost:g}")
        if self.seconds is not None:
            parts.append(f"{self.seconds:g} s")
        return ", ".join(parts) or "unlimited"


def chat_cost(prices: PriceTable, model: str, usage: ChatUsage) -> float | None:
    """What ``usage`` (a judge or reflection endpoint's answers) cost at ``prices`` (``None``: no known price, or
    no token counts reported)."""
    from ..model import TokenUsage

    price = prices.price(model)
    if price is None or usage.input_tokens is None:
        return None
    return price.cost(TokenUsage(input_tokens=usage.input_tokens, output_tokens=usage.output_tokens or 0))


@dataclass
class Spending:
    """What the running optimisation has spent so far (costs in the price table's currency)."""

    started: float = field(default_factory=time.monotonic)
    metric_calls: int = 0
    """Case runs scored by the search."""
    proof_runs: int = 0
    """Case runs scored to evaluate the baseline and the candidate for the gate."""
    agent_cost: float = 0.0
    agent_cost_missing: int = 0
    """Agent turns that used tokens of a model without a known price (their cost is not in ``agent_cost``)."""
    model_calls: int = 0
    """The agent's model calls, as its turns recorded them."""
    reflection_cost: float | None = None
    reflection_calls: int = 0
    judge_cost: float = 0.0
    """What the judge metrics' calls cost (known prices only): the judges of the search's and the gate's runs."""
    judge_calls: int = 0

    @property
    def seconds(self) -> float:
        """Wall time since the optimisation started."""
        return time.monotonic() - self.started

    @property
    def cost(self) -> float:
        """Agent, judge and reflection cost together (known prices only)."""
        return self.agent_cost + self.judge_cost + (self.reflection_cost or 0.0)

    def exhausted(self, budget: Budget) -> str | None:
        """Which limit of ``budget`` is reached (``calls``, ``cost``, ``time``), or ``None``."""
        if budget.metric_calls is not None and self.metric_calls >= budget.metric_calls:
            return "calls"
        if budget.cost is not None and self.cost >= budget.cost:
            return "cost"
        if budget.seconds is not None and self.seconds >= budget.seconds:
            return "time"
        return None
