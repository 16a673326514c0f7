"""Keys of eval set documents that no reader knows: almost always a typo (``conversaton``, ``finalRespone``) that would
otherwise fail, or silently do nothing, only at run time.

Known keys are those of the native model, of Google ADK's models (with genai ``Content`` / ``Part`` /
``FunctionCall`` / ``FunctionResponse``), trpc-agent-go's fields and message extras and the keys agentgauge itself
writes into ADK files (the ``agentgauge`` stash), in either spelling (``eval_id`` / ``evalId``). Values that are the
user's own data (tool arguments and results, session state, app details, metadata) are never looked into.

How much an unknown key matters depends on the tool whose file it is (:data:`KEY_RULES`): ADK's ``Invocation``
refuses unknown keys (an error), its ``EvalCase`` keeps them and trpc-agent-go ignores them (warnings); the table is
in docs/formats.md. The readers run this check while they read (:class:`EvalSetKeys`), on the raw cases they parse
anyway, when asked to.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from pydantic.alias_generators import to_camel

from ._dialect import DialectFacts
from ._keys import has_key
from ._problems import InputProblem, did_you_mean
from ._stash import STASH_KEY

__all__ = ["EvalSetKeys", "KeyRules", "case_key_rules", "check_case_keys", "check_eval_set_keys", "unknown_key_problem"]

KeyRules = Literal["native", "adk", "adk_camel", "legacy"]
"""Whose rules decide how much an unknown key of an eval set matters: trpc-agent-go's (native files), google-adk's
(snake_case ADK files, and cases sent to ADK's web API routes), ADK-TS's (camelCase ADK files) or ADK's legacy reader
(``.test.json`` arrays)."""


@dataclass(frozen=True, slots=True)
class _Node:
    known: frozenset[str]  # both spellings of every key
    names: tuple[str, ...]  # snake_case names, for suggestions
    children: Mapping[str, tuple[str, bool, bool]]  # spelling -> (kind of the value, array of it?, ADK models it?)


_SCHEMA: dict[str, _Node] = {}
# children ADK's models do not declare: ADK keeps them as case extras or refuses the object for other reasons, so the
# keys inside are agentgauge's to judge (a warning)
_NOT_ADK = frozenset(
    {
        ("case", "actual_conversation"),
        ("case", "context_messages"),
        ("invocation", "context_messages"),
        ("invocation", "tools"),
        ("invocation", "intermediate_responses"),
        ("invocation", "usage"),
        ("invocation", "tool_mock"),
        ("invocation", "agents"),
        ("rubric", "content"),
    }
)


def _kind(name: str, keys: str, children: dict[str, tuple[str, bool]] | None = None) -> None:
    names = tuple(sorted(set(keys.split()) | set(children or ())))
    spelled: dict[str, tuple[str, bool, bool]] = {}
    for child, (kind, many) in (children or {}).items():
        entry = (kind, many, (name, child) not in _NOT_ADK)
        spelled[child] = spelled[to_camel(child)] = entry
    _SCHEMA[name] = _Node(frozenset(names) | frozenset(to_camel(n) for n in names), names, spelled)


_kind("set", "eval_set_id name description creation_timestamp adk_empty_fields", {"eval_cases": ("case", True)})
_kind(
    "case",
    f"eval_id eval_mode creation_timestamp expected_runner_enabled final_session_state review {STASH_KEY}",
    {
        "conversation": ("invocation", True),
        "actual_conversation": ("invocation", True),
        "context_messages": ("message", True),
        "conversation_scenario": ("scenario", False),
        "session_input": ("session", False),
        "rubrics": ("rubric", True),
    },
)
_kind(
    "invocation",
    "invocation_id creation_timestamp duration model_duration tool_duration app_details trace_id execution_trace "
    "adk_intermediate_data adk_no_intermediate_data unpaired_tool_responses replay",
    {
        "user_content": ("message", False),
        "final_response": ("message", False),
        "context_messages": ("message", True),
        "tools": ("tool", True),
        "intermediate_responses": ("message", True),
        "intermediate_data": ("intermediate_data", False),
        "usage": ("usage", False),
        "tool_mock": ("tool_mock", False),
        "agents": ("executed_agent", True),
        "rubrics": ("rubric", True),
    },
)
_kind(
    "message",  # native {role, content} and trpc-agent-go's extras; genai Content is told apart in _kind_of
    "role content author adk_content name tool_calls tool_call_id tool_id tool_name content_parts reasoning_content",
)
_kind("content", "role", {"parts": ("part", True)})
_kind(
    "part",
    "text thought thought_signature inline_data file_data executable_code code_execution_result video_metadata "
    "media_resolution tool_call tool_response part_metadata audio_transcription media_processing speech_metadata",
    {"function_call": ("function_call", False), "function_response": ("function_response", False)},
)
_kind("function_call", "id name args partial_args will_continue")
_kind("function_response", "id name response parts scheduling will_continue")
_kind(
    "intermediate_data",
    "intermediate_responses",
    {
        "tool_uses": ("function_call", True),
        "tool_responses": ("function_response", True),
        "invocation_events": ("event", True),
    },
)
_kind(
    "event",
    "author grounding_metadata usage_metadata model_version invocation_index tool_use_index",
    {"content": ("message", False)},
)
_kind("tool", "id name arguments result mock_tool_output")
_kind("executed_agent", "invocation_id parent_invocation_id name branch")
_kind(
    "usage",
    "input_tokens output_tokens total_tokens prompt_tokens cached_tokens tool_use_tokens candidates_tokens "
    "reasoning_tokens model_calls model cost",
)
_kind("tool_mock", "replay", {"actual": ("mock_rule", True), "expected": ("mock_rule", True)})
_kind("mock_rule", "name result", {"arguments": ("mock_arguments", False), "llm_generator": ("llm_generator", False)})
_kind("mock_arguments", "ignore expected only_tree ignore_tree number_tolerance")
_kind("llm_generator", "prompt")
_kind("session", "app_name user_id state session_id")
_kind(
    "scenario",
    "driver starting_prompt conversation_plan stop_signal max_allowed_invocations user_persona",
)
_kind(
    "rubric",
    "metric_name id description type rubric_id source",
    {"content": ("rubric_content", False), "rubric_content": ("rubric_content", False)},
)
_kind("rubric_content", "text text_property")
_kind("scenarios", "", {"scenarios": ("scenario", True)})  # an ADK ConversationScenarios document
_kind(
    "legacy_row",
    "query reference",
    {
        "expected_tool_use": ("legacy_tool_use", True),
        "expected_intermediate_agent_responses": ("legacy_response", True),
    },
)
_kind("legacy_tool_use", "tool_name tool_input mock_tool_output")
_kind("legacy_response", "author text")
_kind("legacy_entry", "name initial_session", {"data": ("legacy_row", True)})

# kind -> (the ADK class, whether it refuses unknown keys): google-adk 2.13's pydantic ``extra`` settings
_ADK_CLASSES: dict[str, tuple[str, bool]] = {
    "set": ("EvalSet", False),  # a plain model: unknown keys are ignored
    "case": ("EvalCase", False),  # extra="allow": kept
    "session": ("SessionInput", False),  # extra="allow"
    "event": ("InvocationEvent", False),  # extra="ignore"
    "invocation": ("Invocation", True),
    "content": ("Content", True),
    "part": ("Part", True),
    "function_call": ("FunctionCall", True),
    "function_response": ("FunctionResponse", True),
    "intermediate_data": ("IntermediateData", True),
    "scenario": ("ConversationScenario", True),
    "scenarios": ("ConversationScenarios", True),
    "rubric": ("Rubric", True),
    "rubric_content": ("RubricContent", True),
}
_IGNORED_BY: dict[KeyRules, str] = {  # who reads the other files: none of them refuses an unknown key
    "native": "agentgauge and trpc-agent-go ignore it",
    "adk_camel": "ADK-TS ignores it",
    "legacy": "ADK's legacy reader ignores it",
}


def unknown_key_problem(
    file: str | None, path: str, key: str, known: tuple[str, ...] | frozenset[str], refused_by: str | None, who: str
) -> InputProblem:
    """The problem of one unknown ``key`` at ``path``: an error naming ``refused_by`` (``ADK's Invocation``) when
    set, else a warning saying ``who`` ignores or keeps it. The suggestion is spelled as the key is (snake_case or
    camelCase)."""
    if "_" in key:
        candidates: set[str] = set(known)
    elif any(c.isupper() for c in key):
        candidates = {to_camel(k) for k in known}
    else:
        candidates = set(known) | {to_camel(k) for k in known}
    suggestion = did_you_mean(key, candidates)
    hint = f" (did you mean {suggestion!r}?)" if suggestion else ""
    if refused_by is not None:
        return InputProblem(file, path, f"unknown key {key!r}{hint}; {refused_by} refuses it", "error", key, suggestion)
    return InputProblem(file, path, f"unknown key {key!r}{hint}; it has no effect ({who})", "warning", key, suggestion)


@dataclass(frozen=True, slots=True)
class _Unknown:
    path: str
    key: str
    kind: str
    modelled: bool  # False under a key ADK's models do not declare (see _NOT_ADK)


def _kind_of(kind: str, value: dict[str, Any]) -> str:
    if kind == "message" and "parts" in value and "content" not in value:
        return "content"  # a genai Content in an ADK file
    return kind


def _clean(value: Any, kind: str) -> bool:
    """Whether ``value`` holds no unknown key: what almost every case is, found without building a single path (a
    case that is not clean is walked again by :func:`_walk`, which names the keys)."""
    if type(value) is not dict:
        return True
    if kind == "message" and "parts" in value and "content" not in value:
        kind = "content"
    node = _SCHEMA[kind]
    if not node.known.issuperset(value):
        return False
    children = node.children
    if children:
        for key, item in value.items():
            child = children.get(key)
            if child is None:
                continue
            if not child[1]:
                if not _clean(item, child[0]):
                    return False
            elif type(item) is list:
                for element in item:
                    if not _clean(element, child[0]):
                        return False
    return True


def _walk(value: Any, kind: str, path: str, modelled: bool, out: list[_Unknown]) -> None:
    if not isinstance(value, dict):
        return
    kind = _kind_of(kind, value)
    node = _SCHEMA[kind]
    if not node.known.issuperset(value):  # the common case costs one set operation
        for key in value:
            if key not in node.known:
                out.append(_Unknown(f"{path}.{key}" if path else key, key, kind, modelled))
    if not node.children:
        return
    for key, item in value.items():
        child = node.children.get(key)
        if child is None:
            continue
        child_kind, many, adk = child
        where = f"{path}.{key}" if path else key
        if many:
            if isinstance(item, list):
                for index, element in enumerate(item):
                    _walk(element, child_kind, f"{where}[{index}]", modelled and adk, out)
        else:
            _walk(item, child_kind, where, modelled and adk, out)


def _problem(found: _Unknown, rules: KeyRules, file: str | None) -> InputProblem:
    known = _SCHEMA[found.kind].names
    if rules == "adk":
        cls, refuses = _ADK_CLASSES.get(found.kind, ("", False)) if found.modelled else ("", False)
        if refuses:
            return unknown_key_problem(file, found.path, found.key, known, f"ADK's {cls}", "")
        who = (
            f"ADK's {cls} {'keeps' if found.kind in ('case', 'session') else 'ignores'} it" if cls else "ADK ignores it"
        )
        return unknown_key_problem(file, found.path, found.key, known, None, who)
    return unknown_key_problem(file, found.path, found.key, known, None, _IGNORED_BY[rules])


class EvalSetKeys:
    """The unknown keys of one eval set document, gathered while a reader goes through it: :meth:`cases_under` when
    it meets the cases array, :meth:`case` with each raw case before it is converted and :meth:`top` with the other
    top-level members (or :meth:`document` with a whole parsed document); :meth:`problems` then judges each key by
    the rules of the document's dialect (``rules`` given: by those)."""

    def __init__(self, file: str | None, *, rules: KeyRules | None = None) -> None:
        self.file = file
        self._rules = rules
        self.clear()

    def clear(self) -> None:
        """Forget what was gathered (a streamed read that falls back to reading the whole document)."""
        self._facts = DialectFacts(False)
        self._top: list[_Unknown] = []
        self._found: list[_Unknown] = []
        self._cases_key = "evalCases"
        self._legacy = False

    def cases_under(self, key: str) -> None:
        """The document's cases are under ``key`` (``eval_cases``: an ADK snake_case file)."""
        self._cases_key = key
        self._facts.snake = key == "eval_cases"

    def top(self, top: Mapping[str, Any]) -> None:
        """The document's top-level members (its cases, if there, are skipped)."""
        _walk({k: v for k, v in top.items() if k not in ("eval_cases", "evalCases")}, "set", "", True, self._top)

    def case(self, raw: Any, index: int) -> None:
        """One raw case, the ``index``-th of the document."""
        self._facts.see_case(raw)
        if not _clean(raw, "case"):
            _walk(raw, "case", f"{self._cases_key}[{index}]", True, self._found)

    def document(self, doc: Any) -> None:
        """A whole parsed document: an eval set object, an ADK legacy array or a ConversationScenarios document."""
        if isinstance(doc, dict) and has_key(doc, "eval_cases"):
            key = "eval_cases" if "eval_cases" in doc else "evalCases"
            self.cases_under(key)
            self.top(doc)
            cases = doc[key]
            for index, raw in enumerate(cases if isinstance(cases, list) else ()):
                self.case(raw, index)
        elif isinstance(doc, dict) and "scenarios" in doc:
            self._facts.snake = True  # ADK's own document: ADK's rules
            _walk(doc, "scenarios", "", True, self._found)
        elif isinstance(doc, list) and doc and isinstance(doc[0], dict):
            self._legacy = True
            kind = "legacy_entry" if "data" in doc[0] and "query" not in doc[0] else "legacy_row"
            for index, item in enumerate(doc):
                _walk(item, kind, f"[{index}]", True, self._found)

    @property
    def rules(self) -> KeyRules:
        """The rules the keys are judged by: given, else those of the document's dialect."""
        if self._rules is not None:
            return self._rules
        return "legacy" if self._legacy else self._facts.dialect()

    def problems(self) -> list[InputProblem]:
        """One problem per unknown key: the top-level ones first, then the cases' in document order."""
        rules = self.rules
        return [_problem(found, rules, self.file) for found in (*self._top, *self._found)]


def check_eval_set_keys(doc: Any, file: str | None = None) -> list[InputProblem]:
    """The unknown keys of a parsed eval set document, judged by its dialect's rules (``[]`` for other documents)."""
    keys = EvalSetKeys(file)
    keys.document(doc)
    return keys.problems()


def case_key_rules(case: Any) -> KeyRules:
    """The rules one eval case sent on its own (an editor's request body) is judged by: google-adk's when it is in
    ADK's shape (genai invocations, or snake_case keys without native turns: what ADK's models would read),
    agentgauge's native ones otherwise (a native case saved into an ADK file is written in ADK's form)."""
    if not isinstance(case, dict):
        return "native"
    facts = DialectFacts("eval_id" in case)
    facts.see_case(case)
    return "native" if facts.dialect() == "native" else "adk"


def check_case_keys(case: Any, rules: KeyRules, prefix: str = "", file: str | None = None) -> list[InputProblem]:
    """The unknown keys of one eval case (native or ADK, as an editor sends it), judged by ``rules``; paths start
    with ``prefix``."""
    found: list[_Unknown] = []
    _walk(case, "case", prefix, True, found)
    return [_problem(item, rules, file) for item in found]
