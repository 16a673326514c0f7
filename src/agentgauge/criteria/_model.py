"""Pydantic base shared by the criteria: metrics-file keys in camelCase or snake_case, config errors as
:class:`CriterionError`."""

from __future__ import annotations

from typing import Any, Self

from pydantic import BaseModel, ConfigDict, ValidationError
from pydantic.alias_generators import to_camel
from pydantic.config import ExtraValues

from ._base import CriterionError

__all__ = ["CriterionConfigError", "CriterionModel", "format_validation_error", "match_strategy_or_exact"]


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


class CriterionModel(BaseModel):
    """Base of every criterion model.

    Keys may be camelCase (as in metrics files) or snake_case; unknown keys are kept so files written by newer
    tools still load. Any invalid value raises :class:`CriterionError` naming the offending key.
    Serialisation (``model_dump()``) is camelCase and leaves out unset options and in-process callables.
    """

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
