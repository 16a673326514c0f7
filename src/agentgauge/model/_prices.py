"""Model prices: what a turn's token usage cost, when the model's price is known (never guessed otherwise).

A price file is JSON ``{"currency": "USD", "models": {"gpt-4o": {"input": 2.5, "output": 10, "cachedInput": 1.25}}}``
with prices per million tokens. A model name matches its entry exactly, else the longest entry it starts with
followed by ``-`` (``gpt-4o-2024-08-06`` → ``gpt-4o``), after dropping a provider prefix (``openai/``,
``models/``).
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import InputError
from ._evalset import TokenUsage

__all__ = [
    "DEFAULT_PRICES",
    "PRICES_SOURCE",
    "ModelPrice",
    "PriceTable",
    "load_prices",
    "prices_for_run",
    "prices_from_data",
]

PRICES_SOURCE = (
    "list prices in USD per million tokens (standard tier, prompts up to 200k tokens) as published on "
    "https://openai.com/api/pricing and https://ai.google.dev/gemini-api/docs/pricing in 2025; prices change, "
    "so give your own with --prices"
)
"""Where the built-in prices come from."""


@dataclass(frozen=True, slots=True)
class ModelPrice:
    """Prices per million tokens; ``cached_input`` applies to the cached part of the input when set."""

    input: float
    output: float
    cached_input: float | None = None

    def cost(self, usage: TokenUsage) -> float | None:
        """The cost of ``usage``; ``None`` unless both input and output token counts are known."""
        if usage.input_tokens is None or usage.output_tokens is None:
            return None
        cached = usage.cached_tokens or 0 if self.cached_input is not None else 0
        fresh = max(usage.input_tokens - cached, 0)
        total = fresh * self.input + cached * (self.cached_input or 0.0) + usage.output_tokens * self.output
        return round(total / 1_000_000, 8)


_BUILT_IN: dict[str, tuple[float, float, float | None]] = {
    "gpt-4o": (2.50, 10.00, 1.25),
    "gpt-4o-mini": (0.15, 0.60, 0.075),
    "gpt-4.1": (2.00, 8.00, 0.50),
    "gpt-4.1-mini": (0.40, 1.60, 0.10),
    "gpt-4.1-nano": (0.10, 0.40, 0.025),
    "gpt-5": (1.25, 10.00, 0.125),
    "gpt-5-mini": (0.25, 2.00, 0.025),
    "gpt-5-nano": (0.05, 0.40, 0.005),
    "o3": (2.00, 8.00, 0.50),
    "o4-mini": (1.10, 4.40, 0.275),
    "gemini-2.5-pro": (1.25, 10.00, None),
    "gemini-2.5-flash": (0.30, 2.50, None),
    "gemini-2.5-flash-lite": (0.10, 0.40, None),
    "gemini-2.0-flash": (0.10, 0.40, None),
    "gemini-2.0-flash-lite": (0.075, 0.30, None),
}


class PriceTable:
    """Prices by model name, with the lookup rule of the module docstring."""

    def __init__(self, prices: Mapping[str, ModelPrice], currency: str = "USD") -> None:
        self.prices = dict(prices)
        self.currency = currency

    def price(self, model: str | None) -> ModelPrice | None:
        """The price of ``model``, or ``None`` when it has none."""
        if not model:
            return None
        name = model.rsplit("/", 1)[-1]
        if name in self.prices:
            return self.prices[name]
        best = max((key for key in self.prices if name.startswith(key + "-")), key=len, default=None)
        return self.prices[best] if best is not None else None

    def with_cost(self, usage: TokenUsage) -> TokenUsage:
        """``usage`` with ``cost`` set when its model's price is known (a cost already given is kept)."""
        if usage.cost is not None:
            return usage
        price = self.price(usage.model)
        cost = price.cost(usage) if price is not None else None
        return usage if cost is None else usage.model_copy(update={"cost": cost})

    def merged(self, other: PriceTable) -> PriceTable:
        """This table with ``other``'s entries added or replacing (``other``'s currency)."""
        return PriceTable({**self.prices, **other.prices}, other.currency)


DEFAULT_PRICES = PriceTable({name: ModelPrice(*values) for name, values in _BUILT_IN.items()})
"""The built-in table (see :data:`PRICES_SOURCE`)."""


def _number(value: Any, file: str, where: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or value < 0 or not math.isfinite(value):
        raise InputError(f"expected a non-negative number (got {json.dumps(value)})", file=file, location=where)
    return float(value)


def prices_from_data(data: Any, file: str) -> PriceTable:
    """A price table from parsed JSON (or a pyproject table); bad shapes raise :class:`InputError`."""
    if not isinstance(data, dict) or not isinstance(data.get("models"), dict):
        raise InputError('expected an object with "models": {model: {"input": ..., "output": ...}}', file=file)
    currency = data.get("currency", "USD")
    if not isinstance(currency, str) or not currency:
        raise InputError("expected a currency name", file=file, location="currency")
    prices: dict[str, ModelPrice] = {}
    for name, entry in data["models"].items():
        where = f"models.{name}"
        if not isinstance(entry, dict):
            raise InputError('expected {"input": ..., "output": ...}', file=file, location=where)
        for key in ("input", "output"):
            if key not in entry:
                raise InputError("missing required field", file=file, location=f"{where}.{key}")
        cached = entry.get("cachedInput", entry.get("cached_input"))
        prices[name] = ModelPrice(
            _number(entry["input"], file, f"{where}.input"),
            _number(entry["output"], file, f"{where}.output"),
            None if cached is None else _number(cached, file, f"{where}.cachedInput"),
        )
    return PriceTable(prices, currency)


def load_prices(path: str | Path) -> PriceTable:
    """The built-in table extended (and overridden) by the price file at ``path``."""
    file = str(path)
    try:
        data = json.loads(Path(path).read_bytes())
    except OSError as exc:
        raise InputError(f"cannot read: {exc.strerror or exc}", file=file) from None
    except ValueError as exc:
        raise InputError(f"invalid JSON: {exc}", file=file) from None
    return DEFAULT_PRICES.merged(prices_from_data(data, file))


def _pyproject_prices(start: Path | None) -> PriceTable | None:
    from .._util.pyproject import agentgauge_table

    found = agentgauge_table(start)
    if found is None:
        return None
    path, section = found
    value = section.get("prices")
    if value is None:
        return None
    if isinstance(value, str):
        return load_prices(path.parent / value)
    if isinstance(value, dict):
        return DEFAULT_PRICES.merged(prices_from_data(value, f"{path}: tool.agentgauge.prices"))
    raise InputError(
        "must be a price file path or a table with models", file=str(path), location="tool.agentgauge.prices"
    )


def prices_for_run(path: str | Path | None = None, *, start: Path | None = None) -> PriceTable:
    """The price table of a run: ``path`` (``--prices``), else ``[tool.agentgauge] prices`` of the nearest
    ``pyproject.toml`` (a file path relative to it, or an inline table), else the built-in table."""
    if path is not None:
        return load_prices(path)
    return _pyproject_prices(start) or DEFAULT_PRICES
