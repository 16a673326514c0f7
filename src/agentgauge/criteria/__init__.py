"""Criteria: how an actual value is compared with an expected one (text, JSON, tool trajectory, final response,
ROUGE, XML), read from the metrics-file form and matched with ``criterion.match(actual, expected)``."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._util.lazy import lazy_exports
from ._adk import AdkToolTrajectoryCriterion, MatchType, parse_match_type
from ._adk_ts import adk_ts_args_equal, adk_ts_rouge1, js_json_stringify, match_adk_ts_tools
from ._assertions import (
    ASSERTION_KINDS,
    AssertionOutcome,
    BudgetAssertion,
    NoLoopsAssertion,
    StepCountAssertion,
    ToolNotUsedAssertion,
    ToolSequenceAssertion,
    ToolUsedAssertion,
    TrajectoryAssertion,
)
from ._base import CriterionError, MatchResult
from ._canonical import canonical_json, canonical_value, json_difference
from ._compare import CompareRegistry, CompareResult, InvocationCompare, JSONCompare, RougeTokenizer, TextCompare
from ._json import DEFAULT_NUMBER_TOLERANCE, JSONCriterion
from ._model import UnknownCriterionKey
from ._rouge import RougeCriterion, RougeScore, RougeThreshold, adk_rouge1
from ._text import LengthBounds, TextCriterion
from ._tokenize import unicode_tokens
from ._trajectory import BUILTIN_STRATEGY, ToolTrajectoryCriterion, ToolTrajectoryStrategy

if TYPE_CHECKING:
    from ._final_response import FinalResponseCriterion
    from ._llm import JudgeModelOptions, LLMCriterion, Rubric
    from ._xml import XMLCriterion, check_xml

__all__ = [
    "ASSERTION_KINDS",
    "BUILTIN_STRATEGY",
    "DEFAULT_NUMBER_TOLERANCE",
    "AdkToolTrajectoryCriterion",
    "AssertionOutcome",
    "BudgetAssertion",
    "CompareRegistry",
    "CompareResult",
    "CriterionError",
    "FinalResponseCriterion",
    "InvocationCompare",
    "JSONCompare",
    "JSONCriterion",
    "JudgeModelOptions",
    "LLMCriterion",
    "LengthBounds",
    "MatchResult",
    "MatchType",
    "NoLoopsAssertion",
    "RougeCriterion",
    "RougeScore",
    "RougeThreshold",
    "RougeTokenizer",
    "Rubric",
    "StepCountAssertion",
    "TextCompare",
    "TextCriterion",
    "ToolNotUsedAssertion",
    "ToolSequenceAssertion",
    "ToolTrajectoryCriterion",
    "ToolTrajectoryStrategy",
    "ToolUsedAssertion",
    "TrajectoryAssertion",
    "UnknownCriterionKey",
    "XMLCriterion",
    "adk_rouge1",
    "adk_ts_args_equal",
    "adk_ts_rouge1",
    "canonical_json",
    "canonical_value",
    "check_xml",
    "js_json_stringify",
    "json_difference",
    "match_adk_ts_tools",
    "parse_match_type",
    "unicode_tokens",
]

# Loaded on first use: the final-response criterion (with its XML rules) and the judge criteria are not needed by a
# run whose metrics use neither (~3 ms of start-up).
__getattr__, __dir__ = lazy_exports(
    __name__,
    {
        "FinalResponseCriterion": "._final_response",
        "JudgeModelOptions": "._llm",
        "LLMCriterion": "._llm",
        "Rubric": "._llm",
        "XMLCriterion": "._xml",
        "check_xml": "._xml",
    },
    __all__,
)
