"""Which dialect an eval set file is written in, and eval sets and cases rendered in a given dialect.

Three dialects are written back as they were read:

- ``native``: agentgauge's / trpc-agent-go's camelCase form (``evalSetId``, messages ``{role, content}``, ``tools``);
- ``adk``: Google ADK's snake_case ``EvalSet`` (``eval_set_id``, genai ``Content``, ``intermediate_data``), what
  ``adk eval`` and ADK Web write and what ADK's ``EvalSet.model_validate_json`` reads;
- ``adk_camel``: the same ADK shapes with camelCase keys (``evalCases``, ``userContent.parts``), as ADK's web API
  and ADK-TS spell them.

Writers that change one case of an existing file (see :mod:`._splice`) render only that case, in the file's dialect
and in the key spelling of the case it replaces.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic.alias_generators import to_camel

from ..model import EvalCase, EvalSet
from ._adk_read import is_genai_invocation
from ._adk_write import case_to_adk, to_adk_eval_set
from ._keys import get_key, has_key, snake_key
from ._stash import STASH_KEY

__all__ = [
    "Dialect",
    "DialectFacts",
    "KeyStyle",
    "case_in_dialect",
    "case_style",
    "document_dialect",
    "eval_set_in_dialect",
    "sniff_dialect",
]

Dialect = Literal["native", "adk", "adk_camel"]
KeyStyle = Literal["snake", "camel"]

# Values under these keys are the user's data (tool arguments, session state, ...) or already in native form: their
# keys are never respelled.
_DATA_KEYS = frozenset(
    {"args", "response", "partial_args", "state", "final_session_state", "app_details", STASH_KEY}
    | {"actual_conversation", "context_messages"}
)
_CASES_KEYS = (b'"eval_cases"', b'"evalCases"')


class DialectFacts:
    """What decides an eval set document's dialect (see :func:`document_dialect`), gathered case by case, so that a
    reader that never holds the whole document (a streamed file) decides it as a whole-document reader would."""

    __slots__ = ("adk_scenario", "genai", "snake")

    def __init__(self, snake: bool) -> None:
        self.snake = snake  # the cases are under ``eval_cases`` (ADK writes snake_case)
        self.genai: bool | None = None  # whether the document's first invocation is genai-shaped; None: none yet
        self.adk_scenario: bool | None = None  # whether its first scenario is ADK's; None: none yet

    def see_case(self, case: Any) -> None:
        """Take in one raw case (in document order)."""
        if self.genai is not None or not isinstance(case, dict):
            return
        conversation = get_key(case, "conversation")
        for inv in conversation if isinstance(conversation, list) else ():
            if isinstance(inv, dict):
                self.genai = is_genai_invocation(inv)
                return
        scenario = get_key(case, "conversation_scenario")
        if self.adk_scenario is None and isinstance(scenario, dict):
            # A scenario without trpc-agent-go's own fields (driver, stop signal, turn limit) is ADK's.
            self.adk_scenario = not any(
                has_key(scenario, k) for k in ("driver", "stop_signal", "max_allowed_invocations")
            )

    def dialect(self) -> Dialect:
        """The dialect of the cases seen so far."""
        if self.genai is None:
            if self.snake:
                return "adk"
            return "adk_camel" if self.adk_scenario else "native"
        if self.genai:
            return "adk" if self.snake else "adk_camel"
        return "native"


def document_dialect(doc: Any) -> Dialect:
    """The dialect of a parsed eval set document.

    The shape comes from the first invocation (genai ``Content`` / ``intermediate_data``: ADK), or, for a set without
    any, from the spelling of its top-level keys (ADK writes snake_case) and its scenarios (trpc-agent-go's have a
    driver, stop signal or turn limit). A camelCase set with neither turns nor scenarios reads the same in both
    dialects and counts as native. An ADK legacy array or scenarios document has no dialect of its own to keep and
    counts as ``adk``, the form ADK itself migrates them to.
    """
    if not isinstance(doc, dict) or not has_key(doc, "eval_cases"):
        return "adk"
    facts = DialectFacts("eval_cases" in doc)
    cases = get_key(doc, "eval_cases")
    for case in cases if isinstance(cases, list) else ():
        facts.see_case(case)
        if facts.genai is not None:
            break
    return facts.dialect()


def sniff_dialect(head: bytes) -> Dialect:
    """A cheap guess at a file's dialect from its first bytes (for choosing how to write a new set beside it)."""
    if b'"eval_cases"' in head or b'"eval_set_id"' in head:
        return "adk"
    if b'"parts"' in head and _CASES_KEYS[1] in head:
        return "adk_camel"
    return "native"


def case_style(raw: Any) -> KeyStyle | None:
    """The key spelling of a raw eval case (``eval_id`` or ``evalId``), ``None`` when it has neither."""
    if isinstance(raw, dict):
        if "eval_id" in raw:
            return "snake"
        if "evalId" in raw:
            return "camel"
    return None


def camelize(value: Any) -> Any:
    """An ADK document with its field names in camelCase (ADK's aliases); user data keeps its keys."""
    if isinstance(value, list):
        return [camelize(item) for item in value]
    if not isinstance(value, dict):
        return value
    out: dict[str, Any] = {}
    for key, item in value.items():
        name = to_camel(key) if "_" in key and not key.startswith("_") else key
        out.setdefault(name, item if snake_key(key) in _DATA_KEYS else camelize(item))
    return out


def case_in_dialect(case: EvalCase, dialect: Dialect, style: KeyStyle | None = None) -> Any:
    """``case`` as JSON data in ``dialect``; ``style`` overrides the key spelling of an ADK case."""
    if dialect == "native":
        return case.model_dump(mode="json")
    out = case_to_adk(case)
    camel = style == "camel" if style is not None else dialect == "adk_camel"
    return camelize(out) if camel else out


def eval_set_in_dialect(eval_set: EvalSet, dialect: Dialect) -> Any:
    """The whole eval set as JSON data in ``dialect``."""
    if dialect == "native":
        return eval_set.model_dump(mode="json")
    out = to_adk_eval_set(eval_set)
    return camelize(out) if dialect == "adk_camel" else out
