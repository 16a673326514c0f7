"""The capitals world as a Google ADK app, for ``agentgauge optimize`` and ``adk optimize`` side by side: an ADK
agent folder whose scripted ``BaseLlm`` calls the ``lookup_capital`` tool only when its instruction tells it to (the
trajectory metric wants the call), a reflection model registered with ADK's model registry that asks the loopback
chat server (the one agentgauge's reflection client asks too), ADK eval sets and ADK's own sampler and optimizer
config files."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from capitals import CITIES
from chat_server import ChatServer, Reply, completion

APP = "capitals_adk"
ADK_HINT = "Always call the lookup_capital tool before you answer."
ADK_PROMPT = "You answer questions about capitals."
REFLECTION = "capitals-adk-reflect"

AGENT_FILE = '''
"""The capitals ADK app of agentgauge's optimisation tests."""

import asyncio
import os
import re

import httpx
from google.adk.agents import LlmAgent
from google.adk.models.base_llm import BaseLlm
from google.adk.models.llm_response import LlmResponse
from google.adk.models.registry import LLMRegistry
from google.genai import types

HINT = {hint!r}
CITIES = {cities!r}
LATENCY = float(os.environ.get("CAPITALS_LATENCY", "0"))


def lookup_capital(country: str) -> dict:
    """The capital of a country."""
    return {{"capital": CITIES.get(country, "unknown")}}


class ScriptedCapitals(BaseLlm):
    """Calls lookup_capital first when the instruction says so, else answers from memory."""

    async def generate_content_async(self, llm_request, stream=False):
        if LATENCY:
            await asyncio.sleep(LATENCY)
        system = str(llm_request.config.system_instruction or "")
        answered = [p.function_response for c in llm_request.contents for p in (c.parts or []) if p.function_response]
        question = " ".join(p.text or "" for c in llm_request.contents for p in (c.parts or []) if c.role == "user")
        found = re.search(r"capital of (\\w+)", question)
        country = found[1] if found else "nowhere"
        if HINT in system and not answered:
            call = types.FunctionCall(id="c1", name="lookup_capital", args={{"country": country}})
            part = types.Part(function_call=call)
        else:
            part = types.Part(text="The capital is " + CITIES.get(country, "unknown") + ".")
        usage = types.GenerateContentResponseUsageMetadata(prompt_token_count=50, candidates_token_count=8)
        yield LlmResponse(content=types.Content(role="model", parts=[part]), usage_metadata=usage,
                          model_version="capitals-scripted")


class Reflection(BaseLlm):
    """The reflection model adk optimize resolves by name: the loopback chat server."""

    @classmethod
    def supported_models(cls):
        return [{reflection!r}]

    async def generate_content_async(self, llm_request, stream=False):
        prompt = "".join(p.text or "" for c in llm_request.contents for p in (c.parts or []))
        async with httpx.AsyncClient(timeout=30) as client:
            answer = await client.post(
                os.environ["CAPITALS_MODEL_URL"] + "/chat/completions",
                json={{"model": self.model, "messages": [{{"role": "user", "content": prompt}}]}},
            )
        text = answer.json()["choices"][0]["message"]["content"]
        yield LlmResponse(content=types.Content(role="model", parts=[types.Part(text=text)]))


LLMRegistry.register(Reflection)

root_agent = LlmAgent(
    name="capitals", model=ScriptedCapitals(model="capitals-scripted"), instruction={prompt!r}, tools=[lookup_capital]
)
'''


def reflection_answer(body: dict[str, Any]) -> str:
    """The reflection model of both tools: when a failing example expected a ``lookup_capital`` call, it adds the
    hint to the current text (the first fenced block); otherwise the text comes back unchanged."""
    prompt = next((m.get("content") or "" for m in reversed(body.get("messages", [])) if m.get("role") == "user"), "")
    current = re.search(r"```\n(.*?)\n```", prompt, re.S)
    text = current[1] if current else ADK_PROMPT
    failing = "lookup_capital" in prompt and re.search(r"## score\n+0\.0\b", prompt) is not None
    new = f"{text}\n{ADK_HINT}" if failing and ADK_HINT not in text else text
    return f"```\n{new}\n```"


def serve(server: ChatServer) -> None:
    """Make ``server`` the reflection model of this world."""
    server.responder = lambda body: Reply(200, completion(reflection_answer(body), model=str(body.get("model"))))


def _case(country: str) -> dict[str, Any]:
    city = CITIES[country]
    return {
        "eval_id": country.lower(),
        "conversation": [
            {
                "invocation_id": f"{country.lower()}-1",
                "user_content": {"role": "user", "parts": [{"text": f"What is the capital of {country}?"}]},
                "final_response": {"role": "model", "parts": [{"text": f"The capital is {city}."}]},
                "intermediate_data": {
                    "tool_uses": [{"name": "lookup_capital", "args": {"country": country}}],
                    "tool_responses": [],
                    "intermediate_responses": [],
                },
            }
        ],
        "session_input": {"app_name": APP, "user_id": "user", "state": {}},
    }


def write_adk_world(root: Path, *, max_metric_calls: int = 40, cases: int = 8) -> dict[str, Path]:
    """The agent folder ``root/capitals_adk`` with its eval sets, and the sampler and optimizer configs."""
    folder = root / APP
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "__init__.py").write_text("from . import agent\n")
    text = AGENT_FILE.format(hint=ADK_HINT, cities=CITIES, reflection=REFLECTION, prompt=ADK_PROMPT)
    (folder / "agent.py").write_text(text)
    countries = list(CITIES)
    for name, chosen in (("train", countries[:cases]), ("validation", countries[cases : 2 * cases])):
        document = {"eval_set_id": name, "eval_cases": [_case(c) for c in chosen]}
        (folder / f"{name}.evalset.json").write_text(json.dumps(document))
    sampler = root / "sampler.json"
    sampler.write_text(
        json.dumps(
            {
                "eval_config": {"criteria": {"tool_trajectory_avg_score": 1.0}},
                "app_name": APP,
                "train_eval_set": "train",
                "validation_eval_set": "validation",
            }
        )
    )
    optimizer = root / "gepa.json"
    config = {"optimizer_model": REFLECTION, "model_configuration": {}, "max_metric_calls": max_metric_calls}
    optimizer.write_text(json.dumps({**config, "reflection_minibatch_size": 3}))
    return {"agent": folder, "sampler": sampler, "optimizer": optimizer}
