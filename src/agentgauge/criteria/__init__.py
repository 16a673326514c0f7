"""Criteria: how an actual value is compared with an expected one (text, JSON, tool trajectory, final response,
ROUGE), read from the metrics-file form and matched with ``criterion.match(actual, expected)``."""

from ._adk import AdkToolTrajectoryCriterion, MatchType, parse_match_type
from ._base import CriterionError, MatchResult
from ._compare import CompareRegistry, CompareResult, InvocationCompare, JSONCompare, RougeTokenizer, TextCompare
from ._final_response import FinalResponseCriterion
from ._json import DEFAULT_NUMBER_TOLERANCE, JSONCriterion
from ._llm import JudgeModelOptions, LLMCriterion, Rubric
from ._rouge import RougeCriterion, RougeScore, RougeThreshold, adk_rouge1
from ._text import LengthBounds, TextCriterion
from ._tokenize import unicode_tokens
from ._trajectory import BUILTIN_STRATEGY, ToolTrajectoryCriterion, ToolTrajectoryStrategy

__all__ = [
    "BUILTIN_STRATEGY",
    "DEFAULT_NUMBER_TOLERANCE",
    "AdkToolTrajectoryCriterion",
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
    "RougeCriterion",
    "RougeScore",
    "RougeThreshold",
    "RougeTokenizer",
    "Rubric",
    "TextCompare",
    "TextCriterion",
    "ToolTrajectoryCriterion",
    "ToolTrajectoryStrategy",
    "adk_rouge1",
    "parse_match_type",
    "unicode_tokens",
]
