"""Shared pydantic base: camelCase JSON, snake_case attributes, compact serialisation."""

from __future__ import annotations

from typing import Any, ClassVar

from pydantic import BaseModel, ConfigDict, SerializationInfo, SerializerFunctionWrapHandler, model_serializer
from pydantic.alias_generators import to_camel

__all__ = ["GaugeModel"]


def _is_empty(value: Any) -> bool:
    return value is None or (isinstance(value, (list, dict, str)) and not value)


class GaugeModel(BaseModel):
    """Base of every persisted agentgauge model.

    Attributes are snake_case in Python and camelCase in JSON; input accepts both, even mixed in one object.
    Serialisation omits keys whose value is ``None``, ``""`` or an empty list/dict (like Go's ``omitempty``), except
    the fields named in ``_always_written``, which are written even when empty (``score: null``).
    Unknown keys are kept (``extra="allow"``) so files round-trip without loss.
    """

    model_config = ConfigDict(
        alias_generator=to_camel,
        validate_by_name=True,
        validate_by_alias=True,
        serialize_by_alias=True,
        extra="allow",
        arbitrary_types_allowed=False,
    )

    _always_written: ClassVar[frozenset[str]] = frozenset()
    """Field names (snake_case) that are serialised even when ``None`` or empty."""

    @classmethod
    def __pydantic_init_subclass__(cls, **kwargs: Any) -> None:
        super().__pydantic_init_subclass__(**kwargs)
        names = set(cls._always_written)
        cls._always_written = frozenset(names | {to_camel(n) for n in names})

    @model_serializer(mode="wrap")
    def _omit_empty(self, handler: SerializerFunctionWrapHandler, info: SerializationInfo) -> Any:
        return self._compact(handler(self))

    def _compact(self, data: Any) -> Any:
        if not isinstance(data, dict):
            return data
        keep = self._always_written
        return {k: v for k, v in data.items() if k in keep or not _is_empty(v)}
