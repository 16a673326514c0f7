"""ADK eval set documents exercising every shape the ADK reader handles (shared by several tests)."""

from __future__ import annotations

from typing import Any

COMPLEX_ADK_SET: dict[str, Any] = {
    "eval_set_id": "complex",
    "name": "",
    "eval_cases": [
        {
            "evalId": "c1",
            "final_session_state": {"k": 1},
            "session_input": {"appName": "a", "user_id": "u", "session_id": "s1", "state": {"z": [1]}},
            "rubrics": [
                {"rubric_id": "r1", "rubric_content": {"text_property": "concise"}, "type": "FINAL_RESPONSE_QUALITY"}
            ],
            "conversation": [
                {
                    "invocationId": "i1",
                    "userContent": {"role": "user", "parts": [{"text": "a"}, {"text": "b", "thought": True}]},
                    "finalResponse": {
                        "role": "model",
                        "parts": [{"text": "ok"}, {"functionCall": {"name": "f", "args": {"x": 1}}}],
                    },
                    "intermediateData": {
                        "toolUses": [{"name": "t1", "args": {"q": 1}}, {"id": "z", "name": "t2"}],
                        "toolResponses": [
                            {"id": "zz", "name": "orphan", "response": {"r": 1}},
                            {"id": "z", "name": "t2", "response": {"ok": True}},
                        ],
                        "intermediateResponses": [["sub", [{"text": "hi"}, {"text": "there"}]]],
                    },
                    "duration": 1.5,
                    "rubrics": [{"rubricId": "ir", "rubricContent": {"textProperty": "x"}}],
                    "app_details": {
                        "agent_details": {"root": {"name": "root", "instructions": "be nice", "tool_declarations": []}}
                    },
                },
                {
                    "invocation_id": "i2",
                    "user_content": {"role": "user", "parts": [{"text": "q"}]},
                    "intermediate_data": {
                        "invocation_events": [
                            {
                                "author": "root",
                                "content": {
                                    "role": "model",
                                    "parts": [
                                        {"text": "thinking"},
                                        {"function_call": {"id": "e1", "name": "g", "args": {"a": 2}}},
                                    ],
                                },
                            },
                            {
                                "author": "root",
                                "content": {
                                    "role": "user",
                                    "parts": [{"function_response": {"id": "e1", "name": "g", "response": {"v": 3}}}],
                                },
                            },
                            {
                                "author": "sub",
                                "content": {
                                    "role": "model",
                                    "parts": [
                                        {
                                            "function_call": {
                                                "id": "e2",
                                                "name": "transfer_to_agent",
                                                "args": {"agent_name": "x"},
                                            }
                                        }
                                    ],
                                },
                            },
                        ]
                    },
                },
                {
                    "invocation_id": "i3",
                    "user_content": {"role": "user", "parts": [{"text": "no data"}]},
                    "final_response": {"role": None, "parts": []},
                },
            ],
        },
        {
            "eval_id": "c2",
            "conversation_scenario": {"starting_prompt": "hi", "conversation_plan": "plan", "user_persona": None},
            "creation_timestamp": 12.5,
        },
    ],
    "creation_timestamp": 3.0,
}

ADK_TS_SET: dict[str, Any] = {
    "evalSetId": "ts",
    "evalCases": [
        {
            "evalId": "search",
            "conversation": [
                {
                    "invocationId": "t1",
                    "userContent": {"role": "user", "parts": [{"text": "Find TypeScript generics docs"}]},
                    "finalResponse": {"role": "model", "parts": [{"text": "Here is a summary."}]},
                    "intermediateData": {
                        "toolUses": [
                            {"name": "search_web", "args": {"query": "TypeScript generics"}},
                            {"name": "summarize", "args": {"maxLength": 200}},
                        ],
                        "intermediateResponses": [],
                    },
                }
            ],
        }
    ],
}
