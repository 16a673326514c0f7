"""A plug-in optimiser for ``agentgauge optimize --optimizer examples/optimize/faq_optimizer.py:FaqOptimizer``: it
learns from the train cases the FAQ agent fails, without a model. For each failing case it adds the rule the
agent would need -- the question's topic word and the expected answer -- to the instruction, and proposes that
instruction. Whether the rules carry over to questions it has not seen is for the gate to find out, on validation.

A plug-in is any object with ``name`` and ``async search(session)`` returning a ``SearchOutcome`` (see
docs/optimize.md); ``uses_reflection = False`` says it needs no reflection model.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

from agentgauge.optimize import SearchCandidate, SearchOutcome, SearchSession

_spec = importlib.util.spec_from_file_location("_faq_agent", Path(__file__).with_name("agent.py"))
assert _spec is not None and _spec.loader is not None
faq = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(faq)


class FaqOptimizer:
    """Adds a rule per failing train case (see the module's description)."""

    name = "faq-rules"
    uses_reflection = False

    async def search(self, session: SearchSession) -> SearchOutcome:
        seed = session.seed["instruction"]
        before = await session.evaluate(session.seed, "train", feedback=True)
        rules = []
        for case in before.cases:
            if case.passed or case.feedback is None or not case.feedback.get("expected"):
                continue
            question = case.feedback["user turns"][0]
            answer = case.feedback["expected"][0]["response"]
            rules.append(f"When the question mentions {faq.topic(question)}, answer: {answer}")
        if not rules:
            return SearchOutcome([SearchCandidate({"instruction": seed}, before.mean)], None)
        texts = {"instruction": "\n".join([seed, *dict.fromkeys(rules)])}
        after = await session.evaluate(texts, "validation")
        candidates = [SearchCandidate({"instruction": seed}), SearchCandidate(texts, after.mean, [0])]
        return SearchOutcome(candidates, 1, {"rules": rules})
