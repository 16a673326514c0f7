"""Metric configuration: which evaluator, what threshold, and its criterion as plain data."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from pydantic import field_serializer

from ._base import GaugeModel, omit_empty

__all__ = ["Criterion", "EvalMetric", "redact_secrets"]

_SECRET_KEYS = frozenset({"apiKey", "api_key"})


def redact_secrets(value: Any) -> Any:
    """A copy of ``value`` in which every ``apiKey`` / ``api_key`` entry is blanked (``""``)."""
    if isinstance(value, dict):
        return {k: ("" if k in _SECRET_KEYS and v else redact_secrets(v)) for k, v in value.items()}
    if isinstance(value, list):
        return [redact_secrets(v) for v in value]
    return value


class Criterion(GaugeModel):
    """How a metric compares actual and expected invocations, as plain JSON-able data.

    - ``tool_trajectory``, ``final_response``, ``llm_judge``: native (trpc) criteria, parsed by
      :mod:`agentgauge.criteria`.
    - ``adk``: an ADK ``test_config.json`` criterion (``threshold``, ``match_type``, ``ignore_args``,
      ``judge_model_options``, ``rubrics``, ...) kept as written; a metric with this block uses ADK semantics.

    ``apiKey`` values are blanked whenever a criterion is serialised.
    """

    tool_trajectory: dict[str, Any] | None = omit_empty()
    final_response: dict[str, Any] | None = omit_empty()
    llm_judge: dict[str, Any] | None = omit_empty()
    adk: dict[str, Any] | None = omit_empty()

    @field_serializer("llm_judge", "adk")
    def _redact(self, value: dict[str, Any] | None) -> Any:
        # Redaction lives in the serializer so every dump path (results, reports, logs) is covered.
        return redact_secrets(value)

    def __repr_args__(self) -> Iterable[tuple[str | None, Any]]:
        # repr() ends up in tracebacks and debug logs: blank keys there too.
        for name, value in super().__repr_args__():
            yield name, redact_secrets(value)

    @property
    def is_adk(self) -> bool:
        """True when this criterion came from an ADK config and ADK semantics apply."""
        return self.adk is not None


class EvalMetric(GaugeModel):
    """One metric of a metrics file: ``metric_name``, optional ``evaluator_name``, ``threshold``, criterion.

    The evaluator is looked up by ``evaluator_name`` when set, else by ``metric_name``. ``extension`` is opaque
    data for custom evaluators.
    """

    metric_name: str
    evaluator_name: str | None = omit_empty()
    threshold: float = 0.0
    criterion: Criterion | None = omit_empty()
    extension: Any = omit_empty()

    @property
    def evaluator_key(self) -> str:
        """The registry name used to find this metric's evaluator."""
        return self.evaluator_name or self.metric_name

    def criterion_or_empty(self) -> Criterion:
        """The metric's criterion, or an empty one."""
        return self.criterion if self.criterion is not None else Criterion()
