"""Metric configuration: which evaluator, what threshold, and its criterion as plain data."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from pydantic import SerializerFunctionWrapHandler, model_serializer

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


def _has_secret(value: Any) -> bool:
    # Plain loops: this runs for every criterion of every metric result written, and generators cost twice as much.
    if isinstance(value, dict):
        for key, item in value.items():
            if key in _SECRET_KEYS and item:
                return True
            if isinstance(item, (dict, list)) and _has_secret(item):
                return True
    elif isinstance(value, list):
        for item in value:
            if isinstance(item, (dict, list)) and _has_secret(item):
                return True
    return False


class _Redacted(GaugeModel):
    """A model whose ``apiKey`` / ``api_key`` entries are blanked in every dump and in ``repr()``, wherever they sit
    (known fields, ``extension``, unknown keys kept by ``extra="allow"``)."""

    @model_serializer(mode="wrap")
    def _redact(self, handler: SerializerFunctionWrapHandler) -> Any:
        # Redaction lives in the serializer so every dump path (results, reports, metrics files, logs) is covered.
        dumped = handler(self)
        # Checking first is cheaper than copying: most criteria hold no key, and results dump them many times.
        return redact_secrets(dumped) if _has_secret(dumped) else dumped

    def __repr_args__(self) -> Iterable[tuple[str | None, Any]]:
        # repr() ends up in tracebacks and debug logs: blank keys there too.
        for name, value in super().__repr_args__():
            yield name, "" if name in _SECRET_KEYS and value else redact_secrets(value)


class Criterion(_Redacted):
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

    @property
    def is_adk(self) -> bool:
        """True when this criterion came from an ADK config and ADK semantics apply."""
        return self.adk is not None


class EvalMetric(_Redacted):
    """One metric of a metrics file: ``metric_name``, optional ``evaluator_name``, ``threshold``, criterion.

    The evaluator is looked up by ``evaluator_name`` when set, else by ``metric_name``. ``extension`` is opaque
    data for custom evaluators. ``apiKey`` values are blanked whenever a metric is serialised, wherever they sit.
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
