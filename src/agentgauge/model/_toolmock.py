"""Tool mocks of one invocation (trpc-agent-go ``toolMock``): rules that replace a tool's execution."""

from __future__ import annotations

from typing import Any, Self

from pydantic import Field, model_validator

from ._base import GaugeModel, omit_empty
from ._replay import ReplayMode

__all__ = ["LLMGenerator", "ToolMock", "ToolMockArguments", "ToolMockRule"]


def _is_none(value: Any) -> bool:
    return value is None


class ToolMockArguments(GaugeModel):
    """How a rule matches a call's arguments: ``ignore`` (name only) or ``expected`` compared as JSON.

    ``onlyTree`` / ``ignoreTree`` select the compared keys and ``numberTolerance`` is the absolute numeric tolerance
    (default ``0``: numbers must be equal), exactly as in the JSON criterion.
    """

    ignore: bool = omit_empty(False)
    expected: Any = Field(default=None, exclude_if=_is_none)
    only_tree: dict[str, Any] | None = omit_empty()
    ignore_tree: dict[str, Any] | None = omit_empty()
    number_tolerance: float | None = Field(default=None, exclude_if=_is_none)

    @model_validator(mode="after")
    def _check(self) -> Self:
        if self.ignore:
            if self.expected is not None or self.only_tree or self.ignore_tree or self.number_tolerance is not None:
                raise ValueError("ignore cannot be configured with expected, onlyTree, ignoreTree or numberTolerance")
            return self
        if self.expected is None:
            raise ValueError("expected is required when ignore is false")
        if self.only_tree and self.ignore_tree:
            raise ValueError("onlyTree and ignoreTree cannot be set at the same time")
        if self.number_tolerance is not None and self.number_tolerance < 0:
            raise ValueError("numberTolerance cannot be negative")
        return self


class LLMGenerator(GaugeModel):
    """Generate the mocked result with a model: ``prompt`` is its instruction, the call's arguments its input."""

    prompt: str

    @model_validator(mode="after")
    def _check(self) -> Self:
        if not self.prompt.strip():
            raise ValueError("llmGenerator prompt is empty")
        return self


class ToolMockRule(GaugeModel):
    """One mock rule for the tool ``name``: a static ``result`` or an ``llmGenerator``, optionally only for
    matching ``arguments`` (no ``arguments``: every call of the tool matches)."""

    name: str
    arguments: ToolMockArguments | None = omit_empty()
    result: Any = Field(default=None, exclude_if=_is_none)
    llm_generator: LLMGenerator | None = omit_empty()

    @model_validator(mode="after")
    def _check(self) -> Self:
        if not self.name:
            raise ValueError("tool mock rule has an empty name")
        if self.llm_generator is not None:
            if self.result is not None:
                raise ValueError("llmGenerator cannot be configured with result")
        elif self.result is None:
            raise ValueError("static tool mock requires result")
        return self


class ToolMock(GaugeModel):
    """The mock rules of one invocation: ``actual`` for the evaluated agent, ``expected`` for the expected agent.

    With ``replay`` (``fifo`` or ``strict``, see :data:`~agentgauge.model.ReplayMode`) the ``actual`` rules are a
    recording: each answers one call, in order, and every tool of the agent is served from them (a call they have
    no result for gets an error the agent sees); what happened is saved as the actual invocation's ``replay``.
    Readers that do not know the key still apply the rules as ordinary mocks (each rule names the recorded
    arguments).
    """

    actual: list[ToolMockRule] = omit_empty(factory=list)
    expected: list[ToolMockRule] = omit_empty(factory=list)
    replay: ReplayMode | None = omit_empty()

    @model_validator(mode="after")
    def _check(self) -> Self:
        if self.replay is not None and any(rule.llm_generator is not None for rule in self.actual):
            raise ValueError("a replay's rules are recorded results: llmGenerator cannot be used with replay")
        return self
