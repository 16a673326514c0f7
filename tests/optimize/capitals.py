"""A scripted world for optimisation tests: an OpenAI-compatible agent that answers capitals correctly only when its
system prompt says to answer in capital letters, and a reflection model that proposes that instruction when the
failing examples it is sent show upper-case expected answers. Both are answered by one loopback chat server."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from chat_server import ChatServer, Reply, completion

HINT = "Answer with the city name in capital letters."
BASE_PROMPT = "You answer questions about geography."
AGENT_MODEL = "capitals-agent"
REFLECTION_MODEL = "capitals-reflect"

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
}

AGENT_FILE = """
import os

from agentgauge.agents import OpenAIAgent

root_agent = OpenAIAgent(
    "{model}", base_url=os.environ["CAPITALS_MODEL_URL"], api_key_env="CAPITALS_KEY", system_prompt={prompt!r}
)
"""


def _question(country: str) -> str:
    return f"What is the capital of {country}?"


def _system(body: dict[str, Any]) -> str:
    return next((m.get("content") or "" for m in body.get("messages", []) if m.get("role") == "system"), "")


def _user(body: dict[str, Any]) -> str:
    return next((m.get("content") or "" for m in reversed(body.get("messages", [])) if m.get("role") == "user"), "")


def agent_answer(body: dict[str, Any]) -> str:
    """The scripted agent model: the capital, in capitals only when the system prompt has :data:`HINT`."""
    found = re.search(r"capital of (\w+)", _user(body))
    city = CITIES.get(found[1], "unknown") if found else "unknown"
    return city.upper() if HINT in _system(body) else city


def reflection_answer(body: dict[str, Any]) -> str:
    """The scripted reflection model: it reads the current text (GEPA's first fenced block, or the simple
    optimiser's ``<current_text>``) and the examples; when an example failed and expected an upper-case answer, it
    adds :data:`HINT`, else it returns the text unchanged."""
    prompt = _user(body)
    fenced = re.search(r"```\n(.*?)\n```", prompt, re.S)
    current = fenced or re.search(r"<current_text>\n(.*?)\n</current_text>", prompt, re.S)
    text = current[1] if current else BASE_PROMPT
    failing = "case failed" in prompt and re.search(r"\b[A-Z]{4,}\b", prompt) is not None
    new = f"{text}\n{HINT}" if failing and HINT not in text else text
    return f"Here is the new text:\n```\n{new}\n```"


def responder(body: dict[str, Any]) -> Reply:
    """Answers both models of the world."""
    content = reflection_answer(body) if body.get("model") == REFLECTION_MODEL else agent_answer(body)
    return Reply(200, completion(content, model=str(body.get("model"))))


def start_world() -> ChatServer:
    """The loopback server of the world, started."""
    server = ChatServer().start()
    server.responder = responder
    return server


def _case(country: str) -> dict[str, Any]:
    return {
        "evalId": country.lower(),
        "conversation": [
            {
                "invocationId": f"{country.lower()}-1",
                "userContent": {"role": "user", "content": _question(country)},
                "finalResponse": {"role": "assistant", "content": CITIES[country].upper()},
            }
        ],
        "sessionInput": {"appName": "capitals", "userId": "user"},
    }


METRICS = [
    {
        "metricName": "final_response_avg_score",
        "threshold": 1,
        "criterion": {"finalResponse": {"text": {"matchStrategy": "exact"}}},
    }
]


def write_world(folder: Path, *, prompt: str = BASE_PROMPT) -> dict[str, Path]:
    """The agent file, the train and validation sets (8 countries each) and their metrics, under ``folder``."""
    folder.mkdir(parents=True, exist_ok=True)
    countries = list(CITIES)
    paths = {"agent": folder / "agent.py", "metrics": folder / "capitals.metrics.json"}
    paths["agent"].write_text(AGENT_FILE.format(model=AGENT_MODEL, prompt=prompt))
    paths["metrics"].write_text(json.dumps(METRICS))
    for name, chosen in (("train", countries[:8]), ("validation", countries[8:])):
        paths[name] = folder / f"{name}.evalset.json"
        document = {"evalSetId": name, "evalCases": [_case(c) for c in chosen]}
        paths[name].write_text(json.dumps(document))
    return paths
