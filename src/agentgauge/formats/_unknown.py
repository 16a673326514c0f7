"""Keys of an eval set document that no reader knows: almost always a typo (``conversaton``) that would otherwise
fail, or silently do nothing, only at run time.

Known keys are those of the native model, of Google ADK's models (with genai ``Content`` / ``Part`` /
``FunctionCall`` / ``FunctionResponse``), trpc-agent-go's message extras and the keys agentgauge itself writes into
ADK files (the ``agentgauge`` stash). Either spelling (``eval_id`` / ``evalId``) is known. Values that are the user's
own data (tool arguments and results, session state, app details, metadata) are never looked into.

This is a separate pass over the parsed document, run by ``validate`` and the server's editor routes only: the
readers used by ``eval`` stay as fast as they are.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from typing import Any

from pydantic.alias_generators import to_camel

from ._dialect import Dialect, document_dialect
from ._keys import has_key, snake_key
from ._stash import STASH_KEY

__all__ = ["KeyReport", "UnknownKey", "check_keys", "unknown_case_keys", "unknown_keys"]


@dataclass(frozen=True)
class UnknownKey:
    """One unknown key: its JSON path (as spelled in the document), the key, and the closest known key if any."""

    path: str
    key: str
    suggestion: str | None

    def message(self) -> str:
        """``unknown key 'conversaton' (did you mean 'conversation'?)``."""
        hint = f" (did you mean {self.suggestion!r}?)" if self.suggestion else ""
        return f"unknown key {self.key!r}{hint}"

    def as_json(self) -> dict[str, Any]:
        """``{"path", "key", "didYouMean"}`` for HTTP answers."""
        return {"path": self.path, "key": self.key, "didYouMean": self.suggestion}


# kind -> (known snake_case keys, {key: (kind of its value, whether the value is an array of that kind)})
_Children = dict[str, tuple[str, bool]]
_SCHEMA: dict[str, tuple[frozenset[str], _Children]] = {}


def _kind(name: str, keys: str, children: _Children | None = None) -> None:
    _SCHEMA[name] = (frozenset(keys.split()) | frozenset(children or ()), children or {})


_kind("set", "eval_set_id name description creation_timestamp adk_empty_fields", {"eval_cases": ("case", True)})
_kind(
    "case",
    f"eval_id eval_mode creation_timestamp expected_runner_enabled final_session_state {STASH_KEY}",
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
    "invocation_id creation_timestamp duration model_duration tool_duration app_details trace_id "
    "adk_intermediate_data adk_no_intermediate_data unpaired_tool_responses",
    {
        "user_content": ("message", False),
        "final_response": ("message", False),
        "context_messages": ("message", True),
        "tools": ("tool", True),
        "intermediate_responses": ("message", True),
        "intermediate_data": ("intermediate_data", False),
        "usage": ("usage", False),
        "tool_mock": ("tool_mock", False),
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
_kind("tool", "id name arguments result")
_kind(
    "usage",
    "input_tokens output_tokens total_tokens prompt_tokens cached_tokens tool_use_tokens candidates_tokens "
    "reasoning_tokens model_calls model cost",
)
_kind("tool_mock", "", {"actual": ("mock_rule", True), "expected": ("mock_rule", True)})
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


def _kind_of(kind: str, value: dict[str, Any]) -> str:
    if kind == "message" and "parts" in value and "content" not in value:
        return "content"  # a genai Content in an ADK file
    return kind


def _suggest(key: str, known: frozenset[str]) -> str | None:
    # Offer the spelling the document uses: snake_case for keys with '_', camelCase for keys with capitals.
    if "_" in key:
        candidates = sorted(known)
    elif any(c.isupper() for c in key):
        candidates = sorted({to_camel(k) for k in known})
    else:
        candidates = sorted(known | {to_camel(k) for k in known})
    found = difflib.get_close_matches(key, candidates, n=1, cutoff=0.6)
    return found[0] if found else None


def _walk(value: Any, kind: str, path: str, out: list[UnknownKey]) -> None:
    if not isinstance(value, dict):
        return
    kind = _kind_of(kind, value)
    known, children = _SCHEMA[kind]
    for key, item in value.items():
        name = snake_key(key) if key.isascii() else key
        if name not in known:
            out.append(UnknownKey(f"{path}.{key}" if path else key, key, _suggest(key, known)))
            continue
        child = children.get(name)
        if child is None:
            continue
        child_kind, many = child
        where = f"{path}.{key}" if path else key
        if many and isinstance(item, list):
            for index, element in enumerate(item):
                _walk(element, child_kind, f"{where}[{index}]", out)
        elif not many:
            _walk(item, child_kind, where, out)


def unknown_keys(doc: Any) -> list[UnknownKey]:
    """Every unknown key of an eval set object document, in document order (``[]`` for other documents)."""
    out: list[UnknownKey] = []
    if isinstance(doc, dict) and has_key(doc, "eval_cases"):  # not an ADK scenarios document or legacy array
        _walk(doc, "set", "", out)
    return out


def unknown_case_keys(case: Any, prefix: str = "") -> list[UnknownKey]:
    """Every unknown key of one eval case (native or ADK, as the editor sends it); paths start with ``prefix``."""
    out: list[UnknownKey] = []
    _walk(case, "case", prefix, out)
    return out


@dataclass(frozen=True)
class KeyReport:
    """The unknown keys of an eval set document and the dialect that decides how much they matter."""

    dialect: Dialect
    unknown: list[UnknownKey]

    @property
    def blocking(self) -> bool:
        """True when the document is an ADK file with unknown keys: ADK's models refuse them, so it is invalid."""
        return self.dialect != "native" and bool(self.unknown)


def check_keys(doc: Any) -> KeyReport:
    """The :class:`KeyReport` of a parsed eval set document."""
    return KeyReport(document_dialect(doc), unknown_keys(doc))
