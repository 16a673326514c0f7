"""What one judge sample yields, and the judge configuration a metric resolved for one evaluation."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ...criteria._llm import JudgeModelOptions, Rubric
from ...judges import JudgeMessage, ResponseSchema
from ...model import RubricScore, ScoreValue

__all__ = ["JudgeConfig", "NotApplicable", "Prompt", "Sample"]


@dataclass(slots=True)
class Sample:
    """One judge answer scored: ``score`` is ``None`` when the answer carried no usable verdict; ``value`` is what
    the judge answered when it is not a number (a boolean verdict, a category)."""

    score: float | None
    reason: str = ""
    rubric_scores: list[RubricScore] = field(default_factory=list)
    value: ScoreValue | None = None


@dataclass(frozen=True, slots=True)
class Prompt:
    """The messages for one invocation, the schema the answer should follow, and the rubrics it covers."""

    messages: Sequence[JudgeMessage]
    schema: ResponseSchema | None = None
    rubrics: tuple[Rubric, ...] = ()


@dataclass(frozen=True, slots=True)
class JudgeConfig:
    """A metric's judge settings after reading its criterion (either dialect).

    ``options`` is ``None`` only when an injected judge replaces the configured one; ``flags`` holds the raw
    criterion block for metric-specific switches (``evaluate_intermediate_nl_responses``, ...).
    ``case_rubrics`` (ADK dialect) are rubrics merged in from the case, used only when their type matches.
    ``time_budget`` is the configured ``timeout`` of one judge call in seconds (``None``: the run's default).
    """

    metric_name: str
    threshold: float
    options: JudgeModelOptions | None
    rubrics: tuple[Rubric, ...]
    num_samples: int
    sample_limit: int
    generation_config: Mapping[str, Any]
    # The raw block also holds the judge's apiKey: keep it out of repr (tracebacks, debug output).
    flags: Mapping[str, Any] = field(default_factory=dict, repr=False)
    case_rubrics: tuple[Rubric, ...] = ()
    time_budget: float | None = None

    def flag(self, name: str) -> bool:
        """A boolean switch of the criterion, read in snake_case or camelCase."""
        camel = name.split("_")[0] + "".join(p.title() for p in name.split("_")[1:])
        return bool(self.flags.get(name, self.flags.get(camel, False)))


class NotApplicable(Exception):
    """The metric cannot judge this invocation (no rubrics, no text); it is reported as not evaluated."""
