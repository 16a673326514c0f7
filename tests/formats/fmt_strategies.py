"""Hypothesis strategies for native eval sets and ADK eval set documents."""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from agentgauge.model import CaseRubric, EvalCase, EvalSet, Invocation, Message, RubricContent, SessionInput, Tool

text = st.text(alphabet=st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=12)
ident = st.text(alphabet="abcdefghij_-0123456789", min_size=1, max_size=8)
json_scalar = st.none() | st.booleans() | st.integers(-(2**53), 2**53) | text
json_value = st.recursive(
    json_scalar, lambda inner: st.lists(inner, max_size=3) | st.dictionaries(ident, inner, max_size=3), max_leaves=6
)
json_object = st.dictionaries(ident, json_value, max_size=3)
roles = st.sampled_from(["user", "assistant", "system", "tool"])


@st.composite
def messages(draw: st.DrawFn, role: Any = roles) -> Message:
    msg = Message(role=draw(role), content=draw(text))
    if draw(st.booleans()):
        msg.author = draw(ident)  # an extra key, preserved
    return msg


@st.composite
def tools(draw: st.DrawFn) -> Tool:
    return Tool(id=draw(ident), name=draw(ident), arguments=draw(json_object | json_value), result=draw(json_value))


@st.composite
def invocations(draw: st.DrawFn) -> Invocation:
    inv = Invocation(
        invocation_id=draw(ident),
        user_content=draw(messages()),
        final_response=draw(st.none() | messages()),
        tools=draw(st.lists(tools(), max_size=3, unique_by=lambda t: t.id)),
        intermediate_responses=draw(st.lists(messages(st.just("assistant")), max_size=2)),
        context_messages=draw(st.lists(messages(), max_size=1)),
        creation_timestamp=draw(st.none() | st.floats(0, 2e9)),
    )
    return inv


@st.composite
def eval_cases(draw: st.DrawFn) -> EvalCase:
    return EvalCase(
        eval_id=draw(ident),
        conversation=draw(st.lists(invocations(), max_size=3)),
        session_input=draw(
            st.none()
            | st.builds(
                SessionInput, app_name=ident, user_id=ident, state=st.dictionaries(ident, json_value, max_size=2)
            )
        ),
        rubrics=draw(
            st.lists(
                st.builds(
                    CaseRubric,
                    id=ident,
                    metric_name=st.none() | ident,
                    content=st.builds(RubricContent, text=ident),
                    type=st.none() | st.sampled_from(["FINAL_RESPONSE_QUALITY", "TOOL_USE_QUALITY"]),
                ),
                max_size=2,
                unique_by=lambda r: r.id,
            )
        ),
        context_messages=draw(st.lists(messages(), max_size=1)),
        creation_timestamp=draw(st.none() | st.floats(0, 2e9)),
    )


@st.composite
def _eval_sets(draw: st.DrawFn) -> EvalSet:
    return EvalSet(
        eval_set_id=draw(ident),
        name=draw(st.none() | ident),
        description=draw(st.none() | text),
        eval_cases=draw(st.lists(eval_cases(), max_size=3, unique_by=lambda c: c.eval_id)),
    )


eval_sets = _eval_sets()

# ---- ADK documents -------------------------------------------------------------------------------------------

_part_text = st.builds(lambda t: {"text": t}, text)
_part_thought = st.builds(lambda t: {"text": t, "thought": True}, text)
_part_call = st.builds(lambda n, a: {"function_call": {"name": n, "args": a}}, ident, json_object)
parts = st.lists(_part_text | _part_thought | _part_call, max_size=3)


def contents(role: Any) -> Any:
    return st.builds(lambda r, p: {"role": r, "parts": p}, role, parts)


@st.composite
def adk_intermediate(draw: st.DrawFn) -> dict[str, Any]:
    ids = draw(st.lists(st.none() | ident, max_size=3))
    calls = []
    for call_id in ids:
        call: dict[str, Any] = {"name": draw(ident)}
        if call_id is not None:
            call["id"] = call_id
        if draw(st.booleans()):
            call["args"] = draw(json_object)
        calls.append(call)
    responses = [
        {"id": c.get("id"), "name": c["name"], "response": draw(json_object)} for c in calls if draw(st.booleans())
    ]
    if draw(st.booleans()):
        responses.append({"id": "orphan", "name": "x", "response": {}})
    out: dict[str, Any] = {"tool_uses": calls, "tool_responses": responses}
    if draw(st.booleans()):
        out["intermediate_responses"] = draw(
            st.lists(st.tuples(ident, st.lists(_part_text, max_size=2)).map(list), max_size=2)
        )
    return out


@st.composite
def adk_events(draw: st.DrawFn) -> dict[str, Any]:
    events = []
    for _ in range(draw(st.integers(0, 3))):
        events.append({"author": draw(ident), "content": draw(contents(st.sampled_from(["model", "user"])))})
    return {"invocation_events": events}


@st.composite
def adk_invocations(draw: st.DrawFn) -> dict[str, Any]:
    inv: dict[str, Any] = {
        "invocation_id": draw(ident),
        "user_content": draw(contents(st.sampled_from(["user", None]))),
    }
    if draw(st.booleans()):
        inv["final_response"] = draw(contents(st.sampled_from(["model", None])))
    data = draw(st.none() | adk_intermediate() | adk_events())
    if data is not None:
        inv["intermediate_data"] = data
    if draw(st.booleans()):
        inv["duration"] = draw(st.floats(0, 100))
    return inv


@st.composite
def adk_eval_sets(draw: st.DrawFn) -> dict[str, Any]:
    cases = []
    for n in range(draw(st.integers(0, 3))):
        case: dict[str, Any] = {"eval_id": f"case{n}", "conversation": draw(st.lists(adk_invocations(), max_size=3))}
        if draw(st.booleans()):
            case["session_input"] = {"app_name": draw(ident), "user_id": draw(ident), "session_id": draw(ident)}
        if draw(st.booleans()):
            case["final_session_state"] = draw(json_object)
        cases.append(case)
    return {"eval_set_id": draw(ident), "name": draw(st.none() | st.just("") | ident), "eval_cases": cases}
