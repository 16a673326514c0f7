"""A simple optimiser, after ADK's ``SimplePromptOptimizer``: a few candidates, one rewrite at a time.

Each iteration draws a batch of train cases, scores the best texts so far on it (that run's failures are what the
reflection model reads), asks for a rewrite of one surface (round robin) and scores the rewrite on the same batch;
the rewrite becomes the best when it scores higher. ADK scores each candidate on a new batch against the best's
earlier score; scoring both on one batch compares like with like. The best texts are finally scored on validation.
"""

from __future__ import annotations

import json
import re
from typing import Any

from ._search import ScoredBatch, SearchCandidate, SearchOutcome, SearchSession

__all__ = ["SimpleOptimizer"]

_PROMPT = """You improve the texts an AI agent works with. This one is its {what}:
<current_text>
{text}
</current_text>

With its current texts the agent scored {score:.2f} (1.0 is best) on these tasks:
{examples}

Rewrite the text so that the agent does better on tasks like these without breaking what already works.
Output only the new, complete text: no explanation, no markdown fences."""

_WHAT = {
    "instruction": "instruction",
    "system_prompt": "system prompt",
    "skill": "skill's instructions",
    "tool": "tool description",
}
_FENCE = re.compile(r"^```[^\n]*\n(?P<body>.*?)\n?```\s*$", re.S)


def _examples(batch: ScoredBatch) -> str:
    failing = [c for c in batch.cases if c.score < 1.0] or batch.cases
    return "\n\n".join(json.dumps(c.feedback or {"case": c.eval_id}, ensure_ascii=False, indent=1) for c in failing)


def answer_text(answer: str) -> str:
    """The text of a model's answer: the body of a single fenced block when it is one, else the answer trimmed."""
    stripped = answer.strip()
    match = _FENCE.match(stripped)
    return match["body"].strip() if match else stripped


class SimpleOptimizer:
    """The simple optimiser (see the module's description)."""

    name = "simple"
    uses_reflection = True

    async def search(self, session: SearchSession) -> SearchOutcome:
        """Up to ``iterations`` rewrites, each scored on ``batch_size`` train cases."""
        settings = session.settings
        size = min(settings.batch_size, len(session.train_ids))
        candidates = [SearchCandidate(texts=dict(session.seed))]
        best = 0
        history: list[dict[str, Any]] = []
        order = list(session.surfaces)
        for iteration in range(settings.iterations):
            if session.exhausted() is not None:
                break
            batch = session.random.sample(session.train_ids, size)
            current = await session.evaluate(candidates[best].texts, "train", batch, feedback=True)
            surface = order[iteration % len(order)]
            prompt = _PROMPT.format(
                what=_WHAT.get(surface.kind, f"text '{surface.surface_id}'"),
                text=candidates[best].texts[surface.surface_id],
                score=current.mean,
                examples=_examples(current),
            )
            rewrite = answer_text(await session.reflect(prompt))
            texts = {**candidates[best].texts, surface.surface_id: rewrite}
            trial = await session.evaluate(texts, "train", batch)
            accepted = bool(rewrite) and trial.mean > current.mean
            step = {"iteration": iteration + 1, "surface": surface.surface_id, "batch": batch}
            history.append({**step, "best": current.mean, "candidate": trial.mean, "accepted": accepted})
            if accepted:
                candidates.append(SearchCandidate(texts=texts, parents=[best]))
                best = len(candidates) - 1
        if best == 0:
            return SearchOutcome(candidates, None, {"iterations": history})
        final = await session.evaluate(candidates[best].texts, "validation")
        candidates[best].score = final.mean
        return SearchOutcome(candidates, best, {"iterations": history, "validation_score": final.mean})
