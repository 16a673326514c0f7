"""Python functions as model tools: JSON schemas from signatures and docstrings, validated calls."""

from __future__ import annotations

import inspect
import re
import typing
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, create_model

from ._threads import run_in_daemon_thread
from ._timing import time_tool

__all__ = ["FunctionTool", "parse_docstring"]

_SECTION = re.compile(r"^\s*(Args|Arguments|Parameters|Params|Returns?|Raises|Yields|Examples?|Notes?)\s*:\s*$")
_GOOGLE_ARG = re.compile(r"^\s*(\*{0,2}\w+)\s*(?:\([^)]*\))?\s*:\s*(.*)$")
_SPHINX_ARG = re.compile(r"^\s*:param\s+(?:[^:]*\s)?(\w+)\s*:\s*(.*)$")


def parse_docstring(doc: str | None) -> tuple[str, dict[str, str]]:
    """Split a docstring into its description (text before any section) and per-parameter descriptions.

    Understands Google style (``Args:`` followed by ``name (type): text`` lines, continuation lines indented
    deeper) and Sphinx style (``:param name: text``).
    """
    if not doc:
        return "", {}
    lines = inspect.cleandoc(doc).splitlines()
    description: list[str] = []
    params: dict[str, str] = {}
    section: str | None = None
    current: str | None = None
    for line in lines:
        header = _SECTION.match(line)
        sphinx = _SPHINX_ARG.match(line)
        if header:
            section, current = header.group(1).lower(), None
        elif sphinx:
            current = sphinx.group(1)
            params[current] = sphinx.group(2).strip()
            section = "sphinx"
        elif section in ("args", "arguments", "parameters", "params"):
            arg = _GOOGLE_ARG.match(line)
            indent = len(line) - len(line.lstrip())
            if arg and indent <= 4:
                current = arg.group(1).lstrip("*")
                params[current] = arg.group(2).strip()
            elif current and line.strip():
                params[current] = f"{params[current]} {line.strip()}".strip()
        elif section == "sphinx" and current and line.strip() and not line.lstrip().startswith(":"):
            params[current] = f"{params[current]} {line.strip()}"
        elif section is None:
            description.append(line)
    return " ".join(" ".join(description).split()), params


def _strip_titles(schema: Any) -> Any:
    if isinstance(schema, dict):
        return {k: _strip_titles(v) for k, v in schema.items() if k != "title" or isinstance(v, dict)}
    if isinstance(schema, list):
        return [_strip_titles(v) for v in schema]
    return schema


@dataclass(frozen=True, slots=True)
class FunctionTool:
    """A Python function exposed to a model as a tool.

    ``parameters`` is the JSON schema of the arguments, derived from the signature's type hints and defaults
    (parameters without a default are required) and the docstring's parameter descriptions.
    """

    name: str
    description: str
    parameters: dict[str, Any]
    function: Callable[..., Any]
    arguments_model: type[BaseModel]

    @classmethod
    def from_function(cls, fn: Callable[..., Any], *, name: str | None = None) -> FunctionTool:
        """Build a tool from ``fn``. Raises ``TypeError`` for ``*args`` / ``**kwargs`` parameters."""
        signature = inspect.signature(fn)
        hints = typing.get_type_hints(fn)
        description, param_docs = parse_docstring(inspect.getdoc(fn))
        fields: dict[str, Any] = {}
        for pname, param in signature.parameters.items():
            if param.kind in (param.VAR_POSITIONAL, param.VAR_KEYWORD):
                raise TypeError(f"tool {fn.__name__}: *args / **kwargs parameters cannot be described to a model")
            annotation = hints.get(pname, Any)
            default = ... if param.default is param.empty else param.default
            fields[pname] = (annotation, Field(default, description=param_docs.get(pname)))
        tool_name = name or fn.__name__
        model = create_model(f"{tool_name}_arguments", __config__=ConfigDict(extra="forbid"), **fields)
        schema = _strip_titles(model.model_json_schema())
        schema.setdefault("properties", {})
        return cls(tool_name, description, schema, fn, model)

    def openai_schema(self) -> dict[str, Any]:
        """The tool in chat-completions ``tools`` form."""
        function: dict[str, Any] = {"name": self.name, "parameters": self.parameters}
        if self.description:
            function["description"] = self.description
        return {"type": "function", "function": function}

    async def call(self, arguments: dict[str, Any]) -> Any:
        """Validate ``arguments`` against the signature and call the function (sync functions in a thread).

        Raises ``ValueError`` with a readable message when the arguments do not fit the signature. The call's time
        counts as the running invocation's tool time (``toolDuration``). While an eval-set tool mock is active for
        this tool (see :mod:`agentgauge.mocks`), its result replaces the call; a mocked tool without a matching rule
        raises :class:`~agentgauge.mocks.ToolMockError`.
        """
        from ..mocks import active_mocks

        mocks = active_mocks()
        if mocks is not None and mocks.mocks(self.name):
            hit, result = await mocks.resolve(self.name, arguments)
            if hit:
                return result
        try:
            validated = self.arguments_model.model_validate(arguments)
        except ValidationError as exc:
            problems = "; ".join(
                f"{'.'.join(str(p) for p in err['loc']) or 'arguments'}: {err['msg']}" for err in exc.errors()
            )
            raise ValueError(f"invalid arguments for {self.name}: {problems}") from None
        kwargs = {key: getattr(validated, key) for key in type(validated).model_fields}
        with time_tool():  # the turn's tool time (ADK's tool_duration)
            if inspect.iscoroutinefunction(self.function):
                return await self.function(**kwargs)
            result = await run_in_daemon_thread(self.function, **kwargs)
            if inspect.isawaitable(result):
                return await result
            return result
