"""Metric configuration: which evaluator, what threshold, and its criterion as plain data."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Annotated, Any

from pydantic import (
    AfterValidator,
    BaseModel,
    ModelWrapValidatorHandler,
    PrivateAttr,
    SerializerFunctionWrapHandler,
    model_serializer,
    model_validator,
)

from ._base import GaugeModel, omit_empty

__all__ = ["UNSAVED_KEY", "Criterion", "EvalMetric", "criterion_data", "redact_secrets"]

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


_OBJECT_FIELDS = {
    "toolTrajectory": "tool_trajectory",
    "tool_trajectory": "tool_trajectory",
    "finalResponse": "final_response",
    "final_response": "final_response",
}
UNSAVED_KEY = "unsavedCompare"
"""Key of the saved criterion that names the Python compare functions a file cannot hold."""


def _callables(value: Any, path: str) -> list[str]:
    found: list[str] = []
    if isinstance(value, BaseModel):
        for name in type(value).model_fields:
            item = getattr(value, name)
            where = f"{path}.{name}" if path else name
            if callable(item) and not isinstance(item, (BaseModel, type)):
                label = f"{getattr(item, '__module__', '?')}.{getattr(item, '__qualname__', type(item).__name__)}"
                found.append(f"{where}: {label}")
            else:
                found.extend(_callables(item, where))
    elif isinstance(value, dict):
        for key, item in value.items():
            found.extend(_callables(item, f"{path}.{key}" if path else str(key)))
    elif isinstance(value, (list, tuple)):
        for index, item in enumerate(value):
            found.extend(_callables(item, f"{path}[{index}]"))
    return found


def criterion_data(obj: BaseModel) -> dict[str, Any]:
    """The data form of a criterion object: its fields as written in a metrics file, plus ``unsavedCompare``
    listing the Python functions that cannot be written (they work in memory only)."""
    data: dict[str, Any] = obj.model_dump(by_alias=True, exclude_none=True, mode="json")
    unsaved = _callables(obj, "")
    if unsaved:
        data[UNSAVED_KEY] = (
            "Python compare functions are not saved (register them as named compares to keep them in files): "
            + "; ".join(unsaved)
        )
    return data


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
    # Criterion objects given from Python (trpc's WithCompare), by field name: evaluators use them as they are,
    # callables included; the fields above hold their data form, which is what gets written.
    _objects: dict[str, Any] = PrivateAttr(default_factory=dict)

    @model_validator(mode="wrap")
    @classmethod
    def _accept_objects(cls, data: Any, handler: ModelWrapValidatorHandler[Criterion]) -> Criterion:
        objects: dict[str, Any] = {}
        if isinstance(data, dict):
            data = dict(data)
            for key, value in list(data.items()):
                field = _OBJECT_FIELDS.get(key)
                if field is not None and isinstance(value, BaseModel):
                    objects[field] = value
                    data[key] = criterion_data(value)
        result = handler(data)
        if objects:
            result._objects.update(objects)
        return result

    def criterion_object(self, field: str) -> Any:
        """The criterion object given from Python for ``field`` (``tool_trajectory`` / ``final_response``), or
        ``None`` when the criterion is plain data."""
        return self._objects.get(field)

    @property
    def is_adk(self) -> bool:
        """True when this criterion came from an ADK config and ADK semantics apply."""
        return self.adk is not None


def _reducer_name(name: str | None) -> str | None:
    from ..stats import check_reducer

    return None if name is None else check_reducer(name)


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
    reducer: Annotated[str | None, AfterValidator(_reducer_name)] = omit_empty()
    """How a case's scores over several runs become one: mean (when absent), median, mode, max, min or at_least_K
    (see :mod:`agentgauge.stats`)."""

    @property
    def evaluator_key(self) -> str:
        """The registry name used to find this metric's evaluator."""
        return self.evaluator_name or self.metric_name

    def criterion_or_empty(self) -> Criterion:
        """The metric's criterion, or an empty one."""
        return self.criterion if self.criterion is not None else Criterion()
