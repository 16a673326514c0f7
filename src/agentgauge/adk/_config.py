"""``EvalConfig``: the ``test_config.json`` object of ADK (criteria by metric name)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from ..model import EvalMetric
from ..model._base import empty_dict

__all__ = ["DEFAULT_CRITERIA", "LEGACY_CRITERIA", "EvalConfig", "eval_config_from"]

DEFAULT_CRITERIA: dict[str, float] = {"tool_trajectory_avg_score": 1.0, "response_match_score": 0.8}
"""ADK's criteria when no ``test_config.json`` sits beside a test file."""

LEGACY_CRITERIA = ("tool_trajectory_avg_score", "response_evaluation_score", "response_match_score", "safety_v1")
"""The only criteria ADK accepts for legacy ``.test.json`` rows."""


class EvalConfig(BaseModel):
    """Evaluation criteria as in ADK's ``test_config.json``: ``{"criteria": {"metric": 0.8 | {"threshold": ...}}}``.

    Other keys (``custom_metrics``, ``user_simulator_config``, ...) are kept and passed on.
    """

    model_config = ConfigDict(extra="allow", populate_by_name=True)

    criteria: dict[str, float | dict[str, Any]] = Field(default_factory=empty_dict)

    def to_metrics(self, source: str = "<eval_config>") -> list[EvalMetric]:
        """The criteria as agentgauge metrics in ADK dialect (same conversion as loading ``test_config.json``)."""
        from ..formats import parse_metrics

        return parse_metrics(self.model_dump_json(exclude_none=True), source=source)

    @classmethod
    def default(cls) -> EvalConfig:
        """ADK's default criteria."""
        return cls(criteria=dict(DEFAULT_CRITERIA))

    @classmethod
    def from_file(cls, path: str | os.PathLike[str]) -> EvalConfig:
        """Read a ``test_config.json`` file (invalid JSON or shape raises ``InputError`` naming the file)."""
        import json

        from pydantic import ValidationError

        from ..errors import InputError

        source = os.fspath(path)
        try:
            data = json.loads(Path(path).read_bytes())
        except ValueError as exc:
            raise InputError(f"invalid JSON: {exc}", file=source) from None
        try:
            return cls.model_validate(data)
        except ValidationError as exc:
            first = exc.errors()[0]
            where = ".".join(str(p) for p in first["loc"])
            raise InputError(first["msg"], file=source, location=where or None) from None


def eval_config_from(value: object, criteria: dict[str, float] | None = None) -> EvalConfig:
    """An :class:`EvalConfig` from ours, ADK's ``EvalConfig`` (or any pydantic model / dict of that shape), the
    deprecated ``criteria`` dict, or ``None`` (ADK's defaults)."""
    if isinstance(value, EvalConfig):
        return value
    if value is None:
        return EvalConfig(criteria=dict(criteria)) if criteria else EvalConfig.default()
    if isinstance(value, BaseModel):
        return EvalConfig.model_validate(value.model_dump(mode="json", exclude_none=True))
    if isinstance(value, dict):
        return EvalConfig.model_validate(value)
    raise TypeError(f"eval_config must be an EvalConfig or a dict with 'criteria', got {type(value).__name__}")
