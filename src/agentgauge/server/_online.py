"""Online evaluation in the server (``serve --otlp --online rules.yaml``): the engine of :mod:`agentgauge.online`
scoring received sessions through the Live tab's scoring entry (:func:`~._live_score.score_conversations`, in
worker processes over a server state of their own), while the app runs, and ``/api/live/online``: its counts,
latest scores and trends per rule, and its rules file (read and replaced: a replaced file is checked first, then
written atomically and used at once)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

from fastapi import APIRouter, Body, FastAPI, Request
from fastapi.responses import JSONResponse
from pydantic import BaseModel, Field

from ..errors import NotFoundError
from ._deps import StateDep

if TYPE_CHECKING:  # pragma: no cover
    from ..online import OnlineEvaluator, OnlineRule, ScoredSession
    from ..traces import TraceConversation
    from ._config import ServerConfig
    from ._live_hub import LiveHub
    from ._state import ServerState

__all__ = [
    "OnlineRulesBody",
    "OnlineScorer",
    "build_online",
    "make_scorer",
    "online_evaluator",
    "online_lifespan",
    "router",
]

router = APIRouter(tags=["Online evaluation"])
"""The online-evaluation routes (mounted under ``/api``)."""


class OnlineScorer:
    """Scores a session for a rule as the Live tab's *Score* does (against the rule's eval set, matched as
    ``eval --traces --by-session`` matches, or with its reference-free metrics); the result stays in memory: the
    online engine saves it with its rule's period."""

    def __init__(self, state: ServerState) -> None:
        self.state = state

    async def __call__(self, rule: OnlineRule, key: str, conversations: list[TraceConversation]) -> ScoredSession:
        """The session's case results and pairing (see :class:`~agentgauge.online.SessionScorer`)."""
        from ..online import ScoredSession
        from ..storage import InMemoryEvalResultManager
        from ._live_bodies import LiveScoreBody
        from ._live_score import score_conversations

        body = LiveScoreBody(app_name=rule.app, eval_set_id=rule.eval_set, metrics=rule.metrics)
        results = InMemoryEvalResultManager()
        scoring = await score_conversations(
            self.state, key, conversations, body, results=results, record_metadata=False
        )
        result = scoring.outcome.eval_set_result
        cases = list(result.eval_case_results) if result is not None else []
        return ScoredSession(scoring.app, cases, [(m["caseId"], m["by"]) for m in scoring.matches])


def make_scorer(config: ServerConfig) -> OnlineScorer:
    """The scorer of an online worker process: over a server state of its own, on the same files."""
    from ._state import ServerState

    return OnlineScorer(ServerState(config))


def build_online(state: ServerState, hub: LiveHub, rules_file: Path) -> OnlineEvaluator:
    """The online engine of the rules in ``rules_file`` (:class:`~agentgauge.errors.InputError` when they are
    wrong), watching ``hub``'s store, scoring in worker processes (:func:`make_scorer`), saving with the server's
    results."""
    from ..online import OnlineEvaluator, load_rules

    rules = load_rules(rules_file)
    scorer = (make_scorer, state.config)
    return OnlineEvaluator(rules, hub.store, scorer, state.results.writer, source=rules_file.name)


def online_lifespan(engine: OnlineEvaluator, inner: Callable[[FastAPI], Any] | None) -> Callable[[FastAPI], Any]:
    """A FastAPI lifespan that runs ``engine`` while the app runs (around ``inner`` when given); stopping saves
    every period's result."""

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        engine.start()
        try:
            if inner is None:
                yield
            else:
                async with inner(app):
                    yield
        finally:
            await asyncio.to_thread(engine.stop)

    return lifespan


def online_evaluator(request: Request) -> OnlineEvaluator:
    """The app's online engine; 404 naming the options when the server runs none."""
    engine = getattr(request.app.state, "agentgauge_online", None)
    if engine is None:
        raise NotFoundError("online evaluation needs a rules file: start the server with 'serve --otlp --online FILE'")
    return engine  # type: ignore[no-any-return]


class OnlineRulesBody(BaseModel):
    """``PUT /api/live/online/rules``: the new rules file's text (YAML or JSON)."""

    text: str = Field(max_length=1 << 20)


@router.get("/live/online")
def online_status(request: Request) -> JSONResponse:
    """Online evaluation now: each rule's counts (sessions ended, sampled, left out by its filter, over its hourly
    cap, dropped from the full queue, scored, errored, failed deliveries), its judge budget, its latest scores and
    its trend per period (sessions, passed, failed, errors, each metric's mean); the queue."""
    return JSONResponse(online_evaluator(request).status())


@router.get("/live/online/rules")
def online_rules(request: Request, state: StateDep) -> JSONResponse:
    """The rules file in use: its name and text."""
    online_evaluator(request)
    path = state.config.online_rules
    assert path is not None
    return JSONResponse({"file": path.name, "text": path.read_text(encoding="utf-8", errors="replace")})


@router.put("/live/online/rules")
def replace_online_rules(request: Request, state: StateDep, body: Annotated[OnlineRulesBody, Body()]) -> JSONResponse:
    """Replace the rules file: checked first (a mistake is a 400 naming the rule and key), then written atomically
    and used from the next ended session on; a rule keeping its name keeps its counts."""
    from ..online import parse_rules
    from ..storage import atomic_write

    engine = online_evaluator(request)
    path = state.config.online_rules
    assert path is not None
    data = body.text.encode("utf-8")
    rules = parse_rules(data, path.name)
    engine.replace_rules(rules)
    atomic_write(path, data)
    return JSONResponse({"file": path.name, "rules": [rule.name for rule in rules.rules]})
