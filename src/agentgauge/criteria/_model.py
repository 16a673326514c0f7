"""Pydantic base shared by the criteria: metrics-file keys in camelCase or snake_case, config errors as
:class:`CriterionError`."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar, Self

from pydantic import AliasChoices, BaseModel, ConfigDict, ValidationError
from pydantic.alias_generators import to_camel
from pydantic.config import ExtraValues
from pydantic.fields import FieldInfo

from ..model import UNSAVED_KEY
from ._base import CriterionError

__all__ = [
    "CriterionConfigError",
    "CriterionModel",
    "UnknownCriterionKey",
    "format_validation_error",
    "match_strategy_or_exact",
]


class CriterionConfigError(CriterionError):
    """A :class:`CriterionError` raised while parsing a criterion; ``detail`` omits the class-name prefix so an
    enclosing criterion can report it under its own path."""

    def __init__(self, message: str, detail: str) -> None:
        super().__init__(message)
        self.detail = detail


def format_validation_error(exc: ValidationError, prefix: str = "") -> str:
    """One entry per problem, each naming its path inside the criterion (``defaultStrategy.name: ...``)."""
    parts: list[str] = []
    for err in exc.errors(include_url=False):
        loc = ".".join(str(p) for p in err["loc"] if p != "__root__")
        where = ".".join(p for p in (prefix, loc) if p)
        cause = (err.get("ctx") or {}).get("error")
        msg = cause.detail if isinstance(cause, CriterionConfigError) else str(err["msg"]).removeprefix("Value error, ")
        parts.append(f"{where}: {msg}" if where else msg)
    return "; ".join(parts)


def match_strategy_or_exact(value: Any, allowed: tuple[str, ...]) -> Any:
    """A ``matchStrategy`` as read from a metrics file: unset or empty means ``exact``; a value not in ``allowed``
    is a configuration error naming the allowed ones."""
    if value is None or value == "":
        return "exact"
    if value not in allowed:
        raise ValueError(f"invalid match strategy {value!r}: expected one of {', '.join(allowed)}")
    return value


def _config_error(exc: ValidationError, name: str) -> CriterionConfigError:
    detail = format_validation_error(exc)
    return CriterionConfigError(f"invalid {name}: {detail}", detail)


UnknownCriterionKey = tuple[str, str, tuple[str, ...]]
"""An unknown key of a criterion: its path inside the criterion (as spelled in the file), the key, and the keys the
object it sits in reads (both spellings, for a did-you-mean)."""


def _spellings(name: str, info: FieldInfo) -> list[str]:
    out = [name]
    for alias in (info.alias, info.serialization_alias):
        if isinstance(alias, str):
            out.append(alias)
    if isinstance(info.validation_alias, str):
        out.append(info.validation_alias)
    elif isinstance(info.validation_alias, AliasChoices):
        out.extend(choice for choice in info.validation_alias.choices if isinstance(choice, str))
    return out


def _join(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key


class CriterionModel(BaseModel):
    """Base of every criterion model.

    Keys may be camelCase (as in metrics files) or snake_case; unknown keys are kept so files written by newer
    tools still load, and :meth:`unknown_keys` names them. Any invalid value raises :class:`CriterionError` naming
    the offending key.
    Serialisation (``model_dump()``) is camelCase and leaves out unset options and in-process callables.
    """

    known_extra_keys: ClassVar[frozenset[str]] = frozenset()
    """Keys read from ``model_extra`` rather than declared as fields: known, so never named by
    :meth:`unknown_keys`."""

    model_config = ConfigDict(
        alias_generator=to_camel,
        validate_by_name=True,
        validate_by_alias=True,
        serialize_by_alias=True,
        extra="allow",
        arbitrary_types_allowed=True,
    )

    def __init__(self, /, **data: Any) -> None:
        try:
            super().__init__(**data)
        except ValidationError as exc:
            raise _config_error(exc, type(self).__name__) from None

    @classmethod
    def model_validate(
        cls,
        obj: Any,
        *,
        strict: bool | None = None,
        extra: ExtraValues | None = None,
        from_attributes: bool | None = None,
        context: Any | None = None,
        by_alias: bool | None = None,
        by_name: bool | None = None,
    ) -> Self:
        """Parse the metrics-file form; invalid configuration raises :class:`CriterionError`."""
        try:
            return super().model_validate(
                obj,
                strict=strict,
                extra=extra,
                from_attributes=from_attributes,
                context=context,
                by_alias=by_alias,
                by_name=by_name,
            )
        except ValidationError as exc:
            raise _config_error(exc, cls.__name__) from None

    def model_dump(self, **kwargs: Any) -> dict[str, Any]:
        """camelCase JSON-able dict of the configured options (unset options and callables left out)."""
        kwargs.setdefault("mode", "json")
        kwargs.setdefault("exclude_none", True)
        return super().model_dump(**kwargs)

    def unknown_keys(self, raw: Any = None, path: str = "") -> list[UnknownCriterionKey]:
        """The keys no field of this criterion, or of a criterion nested in it, reads (almost always a typo such as
        ``orderSensitve``), in document order. ``raw`` is the data the criterion was parsed from: paths use its
        spelling of each key; ``path`` prefixes them."""
        out: list[UnknownCriterionKey] = []
        self._collect_unknown(raw if isinstance(raw, Mapping) else {}, path, out)
        return out

    def _collect_unknown(self, raw: Mapping[str, Any], path: str, out: list[UnknownCriterionKey]) -> None:
        fields = type(self).model_fields
        spelled = {name: _spellings(name, info) for name, info in fields.items()}
        own = self.known_extra_keys
        known = tuple(sorted({s for names in spelled.values() for s in names} | own))
        for key in self.model_extra or {}:
            if key not in own and key != UNSAVED_KEY:  # UNSAVED_KEY: written by agentgauge (see criterion_data)
                out.append((_join(path, key), key, known))
        for name, names in spelled.items():
            value = getattr(self, name, None)
            key = next((n for n in names if n in raw), names[-1])
            _collect_nested(value, raw.get(key), _join(path, key), out)


def _collect_nested(value: Any, raw: Any, path: str, out: list[UnknownCriterionKey]) -> None:
    """The unknown keys of ``value`` (a criterion, or a list or mapping of criteria) parsed from ``raw``."""
    if isinstance(value, CriterionModel):
        value._collect_unknown(raw if isinstance(raw, Mapping) else {}, path, out)
    elif isinstance(value, list):
        items = raw if isinstance(raw, list) else []
        for index, item in enumerate(value):
            _collect_nested(item, items[index] if index < len(items) else None, f"{path}[{index}]", out)
    elif isinstance(value, dict):
        entries = raw if isinstance(raw, Mapping) else {}
        for name, item in value.items():
            _collect_nested(item, entries.get(name), _join(path, str(name)), out)
