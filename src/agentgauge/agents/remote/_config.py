"""The ``--agent-config`` file: connection settings for any remote agent, and for a plain ``http(s)://`` JSON
service the request template and the JSON paths of the answer (see docs/agents.md, "Plain HTTP services")."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator
from pydantic.alias_generators import to_camel

from ...errors import InputError
from ._jsonpath import JsonPath, format_json_path, parse_json_path
from ._settings import RemoteAgentSettings

__all__ = ["PLACEHOLDERS", "PlainRequest", "PlainResponse", "RemoteAgentConfig", "apply_config", "load_config"]

PLACEHOLDERS = frozenset({"message", "session_id", "user_id", "state", "history", "context_messages"})
"""What ``{{name}}`` may name in a request template."""

_PLACEHOLDER = re.compile(r"\{\{\s*([A-Za-z_]+)\s*\}\}")


class _Model(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", alias_generator=to_camel, populate_by_name=True)


def _check_placeholders(template: Any) -> Any:
    if isinstance(template, str):
        for name in _PLACEHOLDER.findall(template):
            if name not in PLACEHOLDERS:
                known = ", ".join(sorted(PLACEHOLDERS))
                raise ValueError(f"unknown placeholder {{{{{name}}}}} (known: {known})")
    elif isinstance(template, dict):
        for value in template.values():
            _check_placeholders(value)
    elif isinstance(template, list):
        for value in template:
            _check_placeholders(value)
    return template


class PlainRequest(_Model):
    """How a turn is sent: method, path (appended to the agent URL), query and JSON body templates."""

    method: Literal["GET", "POST", "PUT", "PATCH"] = "POST"
    path: str = ""
    query: dict[str, str] = Field(default_factory=dict)
    body: Any = None

    @field_validator("path", "query", "body")
    @classmethod
    def _placeholders(cls, template: Any) -> Any:
        return _check_placeholders(template)


class PlainResponse(_Model):
    """Where the answer's parts are: JSON paths into the response body (tool paths are relative to one call)."""

    final_response: str
    tool_calls: str | None = None
    tool_name: str = "$.name"
    tool_arguments: str = "$.arguments"
    tool_result: str = "$.result"
    tool_id: str | None = "$.id"
    input_tokens: str | None = None
    output_tokens: str | None = None

    @field_validator("*")
    @classmethod
    def _json_paths(cls, value: str | None) -> str | None:
        if value is not None:
            parse_json_path(value)
        return value

    def steps(self, field_name: str) -> JsonPath | None:
        """The parsed path of ``field_name`` (``None`` when not configured)."""
        value = getattr(self, field_name)
        return None if value is None else parse_json_path(value)


class RemoteAgentConfig(_Model):
    """The whole file. Connection keys apply to every scheme; ``request``/``response`` describe a plain service."""

    headers: dict[str, str] = Field(default_factory=dict)
    connect_timeout: float | None = None
    read_timeout: float | None = None
    turn_timeout: float | None = None
    max_response_mb: float | None = None
    follow_redirects: bool | None = None
    retries: int | None = None
    backoff: float | None = None
    verify_tls: bool | None = None
    request: PlainRequest = Field(default_factory=PlainRequest)
    response: PlainResponse | None = None


_CONNECTION_KEYS = (
    "connect_timeout",
    "read_timeout",
    "turn_timeout",
    "max_response_mb",
    "follow_redirects",
    "retries",
    "backoff",
    "verify_tls",
)


def _location(loc: tuple[int | str, ...]) -> str:
    return format_json_path(tuple(loc))


def load_config(path: Path) -> RemoteAgentConfig:
    """Read and validate the config file; :class:`InputError` naming the file and the JSON path of a problem."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise InputError(f"cannot read the agent config: {exc.strerror or exc}", file=str(path)) from None
    except ValueError as exc:
        raise InputError(f"not valid JSON: {exc}", file=str(path)) from None
    try:
        return RemoteAgentConfig.model_validate(data)
    except ValidationError as exc:
        error = exc.errors()[0]
        message = str(error["msg"]).removeprefix("Value error, ")
        raise InputError(message, file=str(path), location=_location(error["loc"])) from None


def apply_config(settings: RemoteAgentSettings) -> tuple[RemoteAgentSettings, RemoteAgentConfig | None]:
    """``settings`` completed with its config file (if any) and the file's content.

    Values set explicitly on ``settings`` win over the file; headers are merged, ``settings``' winning for a name
    given in both (compared without case).
    """
    if settings.config is None:
        return settings, None
    config = load_config(settings.config)
    explicit = settings.model_fields_set
    update: dict[str, Any] = {}
    for name in _CONNECTION_KEYS:
        value = getattr(config, name)
        if value is not None and name not in explicit:
            update[name] = value
    given = {name.lower() for name in settings.headers}
    headers = {k: v for k, v in config.headers.items() if k.lower() not in given}
    update["headers"] = {**headers, **settings.headers}
    values = {**settings.model_dump(), **update}
    return RemoteAgentSettings.build(source=str(settings.config), **values), config
