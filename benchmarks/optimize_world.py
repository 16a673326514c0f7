"""Two scripted worlds where an instruction the reflection model can find lifts an agent from failing to passing
(the optimise benchmark and ``tests/optimize``). Stdlib only.

- **ADK** (``write_adk_world``): an ADK agent folder whose scripted ``BaseLlm`` calls the ``lookup_capital`` tool only
  when its instruction says so (the trajectory metric wants the call), a reflection model registered with ADK's
  model registry that asks the loopback server (the one agentgauge's reflection client asks too), ADK eval sets and
  ADK's own sampler and optimizer config files, for ``agentgauge optimize`` and ``adk optimize`` side by side.
  ``CAPITALS_LATENCY`` (seconds, default 0) is how long the scripted model takes per call.
- **OpenAI-compatible** (``write_openai_world``): an ``OpenAIAgent`` whose model, on the loopback server, answers
  in capital letters only when the system prompt has :data:`OPENAI_HINT` (the exact-match metric wants them).

:class:`WorldServer` answers both worlds' models (after ``latency`` seconds each): :func:`openai_agent_answer` for
:data:`AGENT_MODEL`, :func:`reflection_answer` for every other model.
"""

from __future__ import annotations

import json
import re
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

APP = "capitals_adk"
ADK_HINT = "Always call the lookup_capital tool before you answer."
ADK_PROMPT = "You answer questions about capitals."
REFLECTION = "capitals-adk-reflect"

CITIES = {
    "France": "Paris",
    "Japan": "Tokyo",
    "Italy": "Rome",
    "Spain": "Madrid",
    "Egypt": "Cairo",
    "Kenya": "Nairobi",
    "Peru": "Lima",
    "Norway": "Oslo",
    "Greece": "Athens",
    "Cuba": "Havana",
    "Chile": "Santiago",
    "Poland": "Warsaw",
    "Austria": "Vienna",
    "Ireland": "Dublin",
    "Portugal": "Lisbon",
    "Hungary": "Budapest",
    "Sweden": "Stockholm",
    "Finland": "Helsinki",
    "Denmark": "Copenhagen",
    "Belgium": "Brussels",
    "Germany": "Berlin",
    "Canada": "Ottawa",
    "Mexico": "Mexico City",
    "Brazil": "Brasilia",
    "Argentina": "Buenos Aires",
    "Colombia": "Bogota",
    "India": "New Delhi",
    "China": "Beijing",
    "Thailand": "Bangkok",
    "Vietnam": "Hanoi",
    "Turkey": "Ankara",
    "Morocco": "Rabat",
}

AGENT_FILE = '''
"""The capitals ADK app of agentgauge's optimisation tests and benchmark."""

import asyncio
import json
import os
import re
import urllib.request

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
        found = re.search(r"capital of ([A-Za-z]+)", question)
        country = found[1] if found else "nowhere"
        if HINT in system and not answered:
            call = types.FunctionCall(id="c1", name="lookup_capital", args={{"country": country}})
            part = types.Part(function_call=call)
        else:
            part = types.Part(text="The capital is " + CITIES.get(country, "unknown") + ".")
        usage = types.GenerateContentResponseUsageMetadata(prompt_token_count=50, candidates_token_count=8)
        content = types.Content(role="model", parts=[part])
        yield LlmResponse(content=content, usage_metadata=usage, model_version="capitals-scripted")


def _ask(url, model, prompt):
    body = json.dumps({{"model": model, "messages": [{{"role": "user", "content": prompt}}]}}).encode()
    request = urllib.request.Request(url, body, {{"Content-Type": "application/json"}})
    with urllib.request.urlopen(request, timeout=60) as answer:
        return json.loads(answer.read())["choices"][0]["message"]["content"]


class Reflection(BaseLlm):
    """The reflection model adk optimize resolves by name: the loopback chat server."""

    @classmethod
    def supported_models(cls):
        return [{reflection!r}]

    async def generate_content_async(self, llm_request, stream=False):
        prompt = "".join(p.text or "" for c in llm_request.contents for p in (c.parts or []))
        url = os.environ["CAPITALS_MODEL_URL"] + "/chat/completions"
        text = await asyncio.to_thread(_ask, url, self.model, prompt)
        yield LlmResponse(content=types.Content(role="model", parts=[types.Part(text=text)]))


LLMRegistry.register(Reflection)

root_agent = LlmAgent(
    name="capitals", model=ScriptedCapitals(model="capitals-scripted"), instruction={prompt!r}, tools=[lookup_capital]
)
'''


OPENAI_HINT = "Answer with the city name in capital letters."
OPENAI_PROMPT = "You answer questions about geography."
AGENT_MODEL = "capitals-agent"

OPENAI_AGENT_FILE = """
import os

from agentgauge.agents import OpenAIAgent

root_agent = OpenAIAgent(
    "{model}", base_url=os.environ["CAPITALS_MODEL_URL"], api_key_env="CAPITALS_KEY", system_prompt={prompt!r}
)
"""


def reflection_answer(prompt: str) -> str:
    """The reflection model of both worlds. It reads the current text (the first fenced block, or the simple
    optimiser's ``<current_text>``); when a failing example expected a ``lookup_capital`` call it adds
    :data:`ADK_HINT`, when one expected an upper-case answer :data:`OPENAI_HINT`; otherwise the text comes back
    unchanged."""
    fenced = re.search(r"```\n(.*?)\n```", prompt, re.S)
    current = fenced or re.search(r"<current_text>\n(.*?)\n</current_text>", prompt, re.S)
    text = current[1] if current else ADK_PROMPT
    if "lookup_capital" in prompt and re.search(r"## score\n+0\.0\b", prompt) and ADK_HINT not in text:
        text = f"{text}\n{ADK_HINT}"
    elif "case failed" in prompt and re.search(r"\b[A-Z]{4,}\b", prompt) and OPENAI_HINT not in text:
        text = f"{text}\n{OPENAI_HINT}"
    return f"Here is the new text:\n```\n{text}\n```"


def _system(body: dict[str, Any]) -> str:
    return next((m.get("content") or "" for m in body.get("messages", []) if m.get("role") == "system"), "")


def openai_agent_answer(body: dict[str, Any]) -> str:
    """The OpenAI world's agent model: the capital, in capitals only when the system prompt has the hint."""
    found = re.search(r"capital of ([A-Za-z]+)", last_user(body))
    city = CITIES.get(found[1], "unknown") if found else "unknown"
    return city.upper() if OPENAI_HINT in _system(body) else city


def world_answer(body: dict[str, Any]) -> str:
    """What :class:`WorldServer` answers to a chat-completions request."""
    return openai_agent_answer(body) if body.get("model") == AGENT_MODEL else reflection_answer(last_user(body))


def completion(content: str, model: str) -> dict[str, Any]:
    """A chat.completion body answering ``content``."""
    return {
        "id": "chatcmpl-capitals",
        "object": "chat.completion",
        "created": 0,
        "model": model,
        "choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 200, "completion_tokens": 20, "total_tokens": 220},
    }


def last_user(body: dict[str, Any]) -> str:
    """The last user message of a chat-completions request."""
    return next((m.get("content") or "" for m in reversed(body.get("messages", [])) if m.get("role") == "user"), "")


class WorldServer(ThreadingHTTPServer):
    """Both worlds' models on 127.0.0.1: answers every chat completion with :func:`world_answer` after ``latency``
    seconds; counts the calls."""

    daemon_threads = True
    request_queue_size = 256  # every case's call may connect at once (a backlog of 5 makes connects wait 1 s)

    def __init__(self, latency: float = 0.0) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.latency = latency
        self.calls = 0
        self.lock = threading.Lock()
        self.thread = threading.Thread(target=self.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        """The OpenAI-compatible base URL."""
        return f"http://127.0.0.1:{self.server_address[1]}/v1"

    def __enter__(self) -> WorldServer:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.shutdown()
        self.server_close()
        self.thread.join(timeout=5)


class _Handler(BaseHTTPRequestHandler):
    server: WorldServer
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", "0"))) or b"{}")
        with self.server.lock:
            self.server.calls += 1
        time.sleep(self.server.latency)
        data = json.dumps(completion(world_answer(body), str(body.get("model")))).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


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
    """The agent folder ``root/capitals_adk`` with its train and validation sets (``cases`` each, at most 16), and
    the sampler and optimizer configs."""
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


def _openai_case(country: str) -> dict[str, Any]:
    return {
        "evalId": country.lower(),
        "conversation": [
            {
                "invocationId": f"{country.lower()}-1",
                "userContent": {"role": "user", "content": f"What is the capital of {country}?"},
                "finalResponse": {"role": "assistant", "content": CITIES[country].upper()},
            }
        ],
        "sessionInput": {"appName": "capitals", "userId": "user"},
    }


OPENAI_METRICS = [
    {
        "metricName": "final_response_avg_score",
        "threshold": 1,
        "criterion": {"finalResponse": {"text": {"matchStrategy": "exact"}}},
    }
]


def write_openai_world(folder: Path, *, cases: int = 8, prompt: str = OPENAI_PROMPT) -> dict[str, Path]:
    """The agent file, the train and validation sets (``cases`` countries each) and their metrics, under
    ``folder``."""
    folder.mkdir(parents=True, exist_ok=True)
    countries = list(CITIES)
    paths = {"agent": folder / "agent.py", "metrics": folder / "capitals.metrics.json"}
    paths["agent"].write_text(OPENAI_AGENT_FILE.format(model=AGENT_MODEL, prompt=prompt))
    paths["metrics"].write_text(json.dumps(OPENAI_METRICS))
    for name, chosen in (("train", countries[:cases]), ("validation", countries[cases : 2 * cases])):
        paths[name] = folder / f"{name}.evalset.json"
        paths[name].write_text(json.dumps({"evalSetId": name, "evalCases": [_openai_case(c) for c in chosen]}))
    return paths


def adk_command(paths: dict[str, Path]) -> list[str]:
    """The command line ``adk optimize`` and ``agentgauge optimize`` both get for the ADK world (after the
    program's name)."""
    return [
        "optimize",
        str(paths["agent"]),
        "--sampler_config_file_path",
        str(paths["sampler"]),
        "--optimizer_config_file_path",
        str(paths["optimizer"]),
        "--print_detailed_results",
        "--log_level",
        "WARNING",
    ]


def adk_details(stdout: str) -> dict[str, Any]:
    """The JSON ``adk optimize --print_detailed_results`` prints after ``Detailed GEPA optimization metrics:``."""
    after = stdout[stdout.index("Detailed GEPA optimization metrics:") :]
    return dict(json.loads(after[after.index("{") : after.rindex("}") + 1]))


def split_options(paths: dict[str, Path]) -> list[str]:
    """``--train``, ``--validation`` and ``--metrics`` of the OpenAI world."""
    return [
        "--train",
        str(paths["train"]),
        "--validation",
        str(paths["validation"]),
        "--metrics",
        str(paths["metrics"]),
    ]
