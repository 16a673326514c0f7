"""The online rules file (``serve --otlp --online rules.yaml``): which received sessions are scored, how many, with
which metrics, and where the scores go.

Every rule is checked when the file is read; a mistake is one :class:`~agentgauge.errors.InputError` naming the file
and the path inside it (``rules[1].sample_rate``), never a traceback.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from ..errors import InputError

__all__ = [
    "JudgeBudget",
    "OnlineRule",
    "OnlineRules",
    "RuleSinks",
    "SessionEnd",
    "SessionFilter",
    "WebhookSink",
    "load_rules",
    "parse_rules",
    "rules_problem",
]

_MAX_RULES_BYTES = 1 << 20  # a rules file is a page of YAML: a megabyte is far beyond any real one
_NAME = r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$"


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class SessionFilter(_Strict):
    """Which sessions a rule considers: every one given must hold (an empty filter takes every session).

    - ``service``: the resource's ``service.name`` of any span is one of these;
    - ``agent``: the agent's name (``gen_ai.agent.name``, ADK's agent span, else the app the trace names) is one
      of these;
    - ``attributes``: each named span or resource attribute has the value given (a list: one of its values) on
      some span of the session.
    """

    service: list[str] = Field(default_factory=list, max_length=100)
    agent: list[str] = Field(default_factory=list, max_length=100)
    attributes: dict[str, str | int | float | bool | list[str | int | float | bool]] = Field(
        default_factory=dict, max_length=100
    )


class JudgeBudget(_Strict):
    """The judge cost budget of a rule: at most ``calls`` judge requests ``per`` clock hour or day (answers from
    the judge cache are free). Once it is spent, sessions are scored with the rule's other metrics only and the
    judge metrics are counted as skipped, until the next hour or day."""

    calls: int = Field(ge=0, le=10_000_000)
    per: Literal["hour", "day"] = "day"


class WebhookSink(_Strict):
    """A URL that receives each scored session as JSON (``POST``), sent through the HTTP layer of remote agents
    (retries on connection errors, 429 and transient 5xx; redirects kept to the URL's origin); ``headers`` may hold
    ``${ENV}`` references, expanded when the rules are read and masked in every output."""

    url: str = Field(pattern=r"^https?://[^\s/?#]+")
    headers: dict[str, str] = Field(default_factory=dict, max_length=50)
    timeout: float = Field(default=10.0, gt=0, le=300)


class RuleSinks(_Strict):
    """Where a rule's scores go besides the Live tab.

    - ``store`` (default on): the server's results, one result per rule and period (``online_<rule>``, an hour
      or a day), shown in History as a run;
    - ``otlp``: an OTLP/HTTP endpoint (``http://collector:4318``) receiving a ``gen_ai.evaluation.result`` log
      event per metric, parented to the evaluated session's root span;
    - ``webhook``: see :class:`WebhookSink`.
    """

    store: bool = True
    otlp: str | None = Field(default=None, pattern=r"^https?://[^\s/?#]+")
    webhook: WebhookSink | None = None


class OnlineRule(_Strict):
    """One rule: a ``name`` (one path segment: it names the rule's results), the sessions it takes (``match``),
    the share of them it scores (``sample_rate``, decided by a seeded hash of the session, so the same sessions are
    chosen on every run and restart), at most ``max_per_hour`` scored per clock hour, a judge budget, the metrics
    (reference-free ones, a metrics file's JSON: a list or ``{"criteria": {...}}``) or an eval set to match the
    sessions with (``app`` and ``eval_set``: paired with its cases as ``eval --traces --by-session`` pairs them,
    scored with ``metrics`` or else the set's own metrics), the ``period`` its results are grouped by and its
    ``sinks``."""

    name: str = Field(pattern=_NAME)
    match: SessionFilter = Field(default_factory=SessionFilter)
    sample_rate: float = Field(default=1.0, ge=0.0, le=1.0)
    seed: int = Field(default=0, ge=0, le=2**63 - 1)
    max_per_hour: int | None = Field(default=None, ge=0, le=10_000_000)
    judge_budget: JudgeBudget | None = None
    metrics: Any = None
    app: str | None = Field(default=None, pattern=_NAME)
    eval_set: str | None = Field(default=None, min_length=1, max_length=200)
    period: Literal["hour", "day"] = "hour"
    sinks: RuleSinks = Field(default_factory=RuleSinks)

    @field_validator("metrics")
    @classmethod
    def _metrics_shape(cls, value: Any) -> Any:
        if value is not None and not isinstance(value, list | dict):
            raise ValueError("expected a list of metrics or a metrics file's mapping ({'criteria': {...}})")
        return value

    @model_validator(mode="after")
    def _what_to_score(self) -> OnlineRule:
        if self.eval_set is not None and self.app is None:
            raise ValueError("eval_set needs app: the app whose eval set it is")
        if self.eval_set is None and not self.metrics:
            raise ValueError("give reference-free metrics, or an app and eval_set to match the sessions with")
        return self


class SessionEnd(_Strict):
    """When a received session counts as ended, and is scored: when every trace has its root span
    (``on_root_span``, after ``settle_seconds`` without new spans, so late log records are in), or after
    ``idle_seconds`` without new spans whatever it holds."""

    on_root_span: bool = True
    settle_seconds: float = Field(default=1.0, ge=0, le=3600)
    idle_seconds: float = Field(default=60.0, gt=0, le=86400)


class OnlineRules(_Strict):
    """A rules file: the ``rules``, when a session ends (``session_end``), the sessions waiting to be scored at
    most (``queue_size``; beyond it sessions are dropped and counted, the receiver never waits), how many are
    scored at once (``concurrency``: worker processes) and the niceness added to those processes (``niceness``,
    default 19: the lowest priority, the receiver first; 0 scores as fast as the receiver)."""

    rules: list[OnlineRule] = Field(min_length=1, max_length=100)
    session_end: SessionEnd = Field(default_factory=SessionEnd)
    queue_size: int = Field(default=1000, ge=1, le=1_000_000)
    concurrency: int = Field(default=2, ge=1, le=64)
    niceness: int = Field(default=19, ge=0, le=19)

    @field_validator("rules")
    @classmethod
    def _unique_names(cls, rules: list[OnlineRule]) -> list[OnlineRule]:
        names = [rule.name for rule in rules]
        twice = sorted({name for name in names if names.count(name) > 1})
        if twice:
            raise ValueError(f"rule names must be unique: {', '.join(twice)} used more than once")
        return rules


def _location(loc: tuple[int | str, ...]) -> str:
    path = ""
    for part in loc:
        path += f"[{part}]" if isinstance(part, int) else (f".{part}" if path else str(part))
    return path


def rules_problem(exc: ValidationError, source: str) -> InputError:
    """The first problem of a validation error as one :class:`InputError` naming ``source`` and the path."""
    first = exc.errors(include_url=False)[0]
    message = str(first["msg"]).removeprefix("Value error, ")
    if first["type"] == "extra_forbidden":
        message = "unknown key"
    return InputError(message, file=source, location=_location(tuple(first["loc"])) or None)


def parse_rules(data: bytes, source: str) -> OnlineRules:
    """The rules in ``data`` (YAML or JSON text of a rules file); :class:`InputError` naming ``source`` and the path
    of the first problem."""
    from ..formats import read_yaml_mapping

    if len(data) > _MAX_RULES_BYTES:
        raise InputError(f"a rules file is at most {_MAX_RULES_BYTES} bytes", file=source)
    document = read_yaml_mapping(data, source, expected="'rules'")
    try:
        return OnlineRules.model_validate(document)
    except ValidationError as exc:
        raise rules_problem(exc, source) from None


def load_rules(path: str | os.PathLike[str]) -> OnlineRules:
    """The rules file at ``path`` (see :func:`parse_rules`)."""
    source = os.fspath(path)
    try:
        with Path(source).open("rb") as file:
            data = file.read(_MAX_RULES_BYTES + 1)
    except OSError as exc:
        raise InputError(f"cannot read the rules file: {exc.strerror or exc}", file=source) from None
    return parse_rules(data, source)
