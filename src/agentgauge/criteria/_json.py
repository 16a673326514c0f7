"""JSONCriterion: structural JSON comparison with ignore/only trees, numeric tolerance and JSON Schema."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, Literal, Self

import orjson
from pydantic import Field, PrivateAttr, field_validator, model_validator

from ._base import MATCH, MatchResult
from ._compare import IgnorableCriterion, JSONCompare
from ._jsondiff import diff_exact, diff_ignore, diff_only, join_index, join_key
from ._model import match_strategy_or_exact

_SORTED = orjson.OPT_SORT_KEYS

__all__ = ["DEFAULT_NUMBER_TOLERANCE", "JSONCriterion"]

DEFAULT_NUMBER_TOLERANCE = 1e-6
"""Absolute tolerance for numbers when ``numberTolerance`` is not set: ``|actual - expected| <= 1e-6``."""

_STRATEGIES = ("exact", "skip")


def _check_only_tree(tree: Mapping[str, Any], path: str) -> None:
    for key, sel in tree.items():
        where = f"{path}[{key!r}]"
        if isinstance(sel, Mapping):
            _check_only_tree(sel, where)
        elif not isinstance(sel, bool):
            raise ValueError(f"{where} must be a bool or an object, got {sel!r}")


def _schema_path(parts: Any) -> str:
    path = "$"
    for part in parts:
        path = join_index(path, part) if isinstance(part, int) else join_key(path, str(part))
    return path


class JSONCriterion(IgnorableCriterion):
    """How two JSON values are compared (tool arguments and results, JSON final responses).

    Order of checks: ``ignore`` → custom ``compare`` → ``valid`` (actual must be JSON) → ``schema`` (actual must
    validate against this JSON Schema, draft 2020-12 unless ``$schema`` says otherwise) → ``matchStrategy``
    (``exact``, the default, or ``skip``) → structural comparison:

    - objects compare by key set regardless of key order, arrays element-wise in order;
    - numbers match when ``|actual - expected| <= numberTolerance`` (default ``1e-6``, absolute; ``0`` is
      exact); ``true``/``false`` are never numbers;
    - ``ignoreTree`` skips keys whose entry is ``true`` (nested objects descend); ``onlyTree`` compares only the
      keys it names (``true`` exact, an object descends, ``false`` skips). Setting both is a configuration error.

    A mismatch's reason carries the JSON path of the first difference:
    ``actual 'Paris' != expected 'Lyon' at $.city``, ``key 'x' in actual but not in expected at $.a``.
    """

    compare_kind = "json"
    compare_label = "json"

    ignore_tree: dict[str, Any] | None = None
    only_tree: dict[str, Any] | None = None
    number_tolerance: float | None = None
    match_strategy: Literal["exact", "skip"] = "exact"
    valid: bool = False
    json_schema: dict[str, Any] | bool | None = Field(default=None, alias="schema")
    compare_name: str | None = None
    compare: JSONCompare | None = Field(default=None, exclude=True)
    _validator: Any = PrivateAttr(default=None)

    @field_validator("match_strategy", mode="before")
    @classmethod
    def _strategy(cls, value: Any) -> Any:
        return match_strategy_or_exact(value, _STRATEGIES)

    @model_validator(mode="after")
    def _check(self) -> Self:
        if self.ignore_tree and self.only_tree:
            raise ValueError("ignoreTree and onlyTree cannot both be set")
        if self.only_tree:
            _check_only_tree(self.only_tree, "onlyTree")
        if self.json_schema is not None:
            from jsonschema import exceptions, validators

            schema: Any = self.json_schema  # true/false are valid schemas too, which the stubs do not allow for
            cls = validators.validator_for(schema, default=validators.Draft202012Validator)
            try:
                cls.check_schema(schema)
            except exceptions.SchemaError as exc:
                raise ValueError(f"invalid JSON schema: {exc.message}") from None
            self._validator = cls(schema)
        return self

    @property
    def tolerance(self) -> float:
        """The effective absolute numeric tolerance."""
        return DEFAULT_NUMBER_TOLERANCE if self.number_tolerance is None else self.number_tolerance

    def match(self, actual: Any, expected: Any) -> MatchResult:
        """Compare two JSON values (already decoded: dicts, lists, str, numbers, bools, None)."""
        verdict = self.preempt(actual, expected)
        if verdict is not None:
            return verdict
        if self.valid:
            try:
                json.dumps(actual, allow_nan=False)
            except (TypeError, ValueError) as exc:
                return MatchResult(False, f"actual is not valid JSON: {exc}")
        return self._structural(actual, expected)

    def match_raw(self, actual: str | bytes, expected: str | bytes) -> MatchResult:
        """Compare two JSON documents given as text; text that does not parse is a mismatch."""
        if self.ignore:
            return MATCH
        a_ok, a_val = _parse(actual)
        e_ok, e_val = _parse(expected)
        custom = self.custom_match(a_val if a_ok else actual, e_val if e_ok else expected)
        if custom is not None:
            return custom
        if not a_ok and (self.valid or self.match_strategy != "skip" or self.json_schema is not None):
            return MatchResult(False, f"parse actual raw json: {a_val}")
        if self.match_strategy == "skip" and self.json_schema is None:
            return MATCH
        if self.json_schema is not None:
            checked = self._check_schema(a_val)
            if not checked.ok or self.match_strategy == "skip":
                return checked
        if not e_ok:
            return MatchResult(False, f"parse expected raw json: {e_val}")
        return self._compare_values(a_val, e_val)

    def _structural(self, actual: Any, expected: Any) -> MatchResult:
        # json_schema is set exactly when _validator is (see _check); a field reads much faster than a private
        # attribute, and this runs for every compared tool call.
        if self.json_schema is not None:
            checked = self._check_schema(actual)
            if not checked.ok:
                return checked
        if self.match_strategy == "skip":
            return MATCH
        return self._compare_values(actual, expected)

    def _compare_values(self, actual: Any, expected: Any) -> MatchResult:
        tol = self.tolerance
        if self.only_tree:
            reason = diff_only(actual, expected, self.only_tree, tol)
        elif self.ignore_tree:
            reason = diff_ignore(actual, expected, self.ignore_tree, tol)
        elif tol >= 0 and _identical(actual, expected):  # a negative tolerance fails even equal numbers
            return MATCH
        else:
            reason = diff_exact(actual, expected, tol)
        return MATCH if reason is None else MatchResult(False, reason)

    def _check_schema(self, actual: Any) -> MatchResult:
        from jsonschema import exceptions

        error = exceptions.best_match(self._validator.iter_errors(actual))
        if error is None:
            return MATCH
        return MatchResult(
            False, f"json schema validation failed at {_schema_path(error.absolute_path)}: {error.message}"
        )


def _parse(raw: str | bytes) -> tuple[bool, Any]:
    try:
        return True, json.loads(raw)
    except (ValueError, TypeError) as exc:
        # json reports trailing text as "Extra data"; say it the way the reference does.
        msg = str(exc)
        if msg.startswith("Extra data"):
            msg = f"multiple json values ({msg})"
        return False, msg


def _identical(actual: Any, expected: Any) -> bool:
    """The two values are the same JSON document (the common case of a matching call), decided in C.

    ``==`` alone is not enough (``True == 1``, and numbers of different types) and serialisation alone is not either
    (NaN is written as ``null``), so both must agree; anything else goes through the full comparison.
    """
    try:
        return bool(actual == expected) and orjson.dumps(actual, option=_SORTED) == orjson.dumps(
            expected, option=_SORTED
        )
    except (TypeError, ValueError, orjson.JSONEncodeError):  # not plain JSON: let the full comparison decide
        return False
