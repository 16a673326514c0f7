"""A shop's FAQ agent whose knowledge is all in its instruction: no model, so the optimisation example runs
anywhere. Each line ``When the question mentions <word>, answer: <text>`` of the instruction is a rule; a question
gets the answer of the first rule whose word it mentions (``refunds`` mentions ``refund``), else ``I don't know.``

The agent's instruction is its one rewritable text (``agentgauge.agents.TextFields``): ``agentgauge optimize``
reads it, proposes a new one and evaluates the agent with it, never changing this file.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from agentgauge.agents import AgentRequest

RULE = re.compile(r"^When the question mentions (?P<word>[\w-]+), answer: (?P<answer>.+)$", re.M)
STOP = {"about", "there", "which", "would", "could", "should", "where", "what", "your", "does", "when", "with"}


def stem(word: str) -> str:
    """How the agent compares words: lower case, a plural's final ``s`` dropped."""
    word = word.lower()
    return word[:-1] if word.endswith("s") and len(word) > 3 else word


def words(question: str) -> list[str]:
    """The stems of the question's words."""
    return [stem(w) for w in re.findall(r"[A-Za-z-]+", question)]


def topic(question: str) -> str:
    """The question's most specific word: its longest word that is not a stop word (what a rule should name)."""
    candidates = [w for w in re.findall(r"[A-Za-z-]+", question) if w.lower() not in STOP]
    return stem(max(candidates, key=len)) if candidates else ""


class FaqAgent:
    """The FAQ agent (see the module's description)."""

    def __init__(self, instruction: str = "You answer customers' questions about the shop.") -> None:
        self.instruction = instruction
        self.rules = [(stem(m["word"]), m["answer"].strip()) for m in RULE.finditer(instruction)]

    def text_fields(self) -> dict[str, str]:
        return {"instruction": self.instruction}

    def with_text_fields(self, texts: Mapping[str, str]) -> FaqAgent:
        return FaqAgent(texts.get("instruction", self.instruction))

    def run(self, request: AgentRequest) -> str:
        asked = set(words(request.user_content.content))
        return next((answer for word, answer in self.rules if word in asked), "I don't know.")


root_agent = FaqAgent()
