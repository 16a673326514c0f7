"""Running one candidate (a set of texts) on a split through :func:`agentgauge.launch.evaluate` -- the one place
the optimisation builds an evaluation request, so every candidate run has the engine's bounded parallelism, the judge
answer cache and time budgets, the agent answer cache and the saved, resumable result of an ``eval``.

A candidate's agent answers are cached under ``<out>/agent_cache`` keyed by the agent's source, the candidate's
texts and the evaluation's role (a search step, or the gate's evidence on one split): an interrupted optimisation
run again gets the answers it already had back, while the baseline's and the candidate's evidence stay independent
samples even when the candidate's texts equal the baseline's.
"""

from __future__ import annotations

import time
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import InputError
from ..launch import JudgeOptions
from ..model import CaseStatusRule, EvalCase, EvalCaseResult, EvalSetResult
from ._budget import Spending, chat_cost
from ._inputs import Split
from ._patch import patch_id
from ._surfaces import AgentSurfaces

if TYPE_CHECKING:  # pragma: no cover
    from ..service import AgentResponseCache

__all__ = ["AGENTS_KEPT", "CandidateRunner", "EngineSettings", "RunOutcome"]

AGENTS_KEPT = 8
"""Candidate agents kept ready to run again (GEPA evaluates a candidate on a minibatch, then on validation)."""


@dataclass(frozen=True)
class EngineSettings:
    """How candidate runs are made: cases in flight (``parallelism``), the per-case inference ``timeout``, where the
    gate's evidence is saved (``output_dir``, as ``eval --output-dir``) under ``app_name`` with ``labels``, the judges
    (``judge``: the default judge, per-call timeout, answer cache and metric plug-ins, as ``eval``'s), the price
    table file, the agent answer cache folder (``None``: none) and the rule of a case's status over its runs."""

    app_name: str
    output_dir: Path
    parallelism: int = 4
    timeout: float | None = None
    judge: JudgeOptions = field(default_factory=JudgeOptions)
    prices: Path | None = None
    agent_cache: Path | None = None
    labels: tuple[str, ...] = ()
    case_status: CaseStatusRule | None = None


@dataclass
class RunOutcome:
    """One candidate run: its result, wall time, the model calls its turns recorded, the case runs whose answers
    came from the agent answer cache (no model call made), and where it was saved."""

    result: EvalSetResult
    seconds: float
    model_calls: int = 0
    result_file: str | None = None
    cases: dict[str, EvalCase] = field(default_factory=dict)
    cached: int = 0

    @property
    def case_results(self) -> list[EvalCaseResult]:
        """Every case run of the result."""
        return list(self.result.eval_case_results)


class CandidateRunner:
    """Runs candidates of one agent (``surfaces``) with ``settings``, adding what they spend to ``spending``."""

    def __init__(self, surfaces: AgentSurfaces, settings: EngineSettings, spending: Spending) -> None:
        from ..launch import make_registry
        from ..model import prices_for_run

        if settings.judge.base_url and not settings.judge.model:
            raise InputError("--judge-base-url needs --judge-model")
        self.surfaces = surfaces
        self.settings = settings
        self.spending = spending
        self.registry = make_registry(settings.output_dir, settings.judge)
        self.prices = prices_for_run(settings.prices)
        self._identity: str | None = None
        self._agents: OrderedDict[str, object] = OrderedDict()

    def check(self, splits: Sequence[Split]) -> None:
        """Refuse, before anything runs, metrics the registry cannot score or judges without a key."""
        for split in splits:
            self.registry.validate_metrics(split.metrics, file=split.metrics_source)
            self.registry.check_judges_ready(split.metrics, file=split.metrics_source)

    def agent(self, texts: Mapping[str, str]) -> object:
        """The agent with ``texts``, ready to run: the same object for the same texts while it is among the last
        :data:`AGENTS_KEPT` used, so a candidate evaluated again keeps its clients and connections (an ADK agent its
        runner)."""
        from ..agents import as_agent

        key = patch_id(texts)
        agent = self._agents.pop(key, None)
        if agent is None:
            agent = as_agent(self.surfaces.patched(texts))
        self._agents[key] = agent
        while len(self._agents) > AGENTS_KEPT:
            self._agents.popitem(last=False)
        return agent

    def _cache(self, texts: Mapping[str, str], role: str) -> AgentResponseCache | None:
        if self.settings.agent_cache is None:
            return None
        from ..service import AgentResponseCache, agent_identity

        if self._identity is None:
            self._identity = agent_identity(self.surfaces.spec)
        return AgentResponseCache(self.settings.agent_cache, f"{self._identity}|{role}|{patch_id(texts)}")

    async def run(
        self,
        texts: Mapping[str, str],
        split: Split,
        *,
        role: str,
        case_ids: Sequence[str] | None = None,
        num_runs: int = 1,
        labels: Sequence[str] = (),
        save: bool = False,
    ) -> RunOutcome:
        """Evaluate the agent with ``texts`` on ``split`` (its chosen cases, or ``case_ids``), ``num_runs`` times.
        ``role`` keys the agent answer cache (see the module's description); ``save`` writes the result under the
        output folder with the settings' labels and ``labels``, else it is kept in memory only."""
        from ..launch import EvalRequest, EvalSetSpec, MetricOptions, evaluate
        from ..storage import InMemoryEvalResultManager

        settings = self.settings
        cache = self._cache(texts, role)
        chosen = tuple(case_ids) if case_ids is not None else tuple(split.case_ids)
        request = EvalRequest(
            agent=self.agent(texts),
            sets=(EvalSetSpec(split.path, chosen, split.eval_set, name=str(split.path)),),
            config=tuple(split.metrics),
            metrics=MetricOptions(case_status=settings.case_status),
            judge=settings.judge,
            num_runs=num_runs,
            parallelism=settings.parallelism,
            timeout=settings.timeout,
            agent_cache=cache,
            labels=(*settings.labels, *labels) if save else (),
            prices=settings.prices,
            app_name=settings.app_name,
            output_dir=settings.output_dir,
            results=None if save else InMemoryEvalResultManager(),
            registry=self.registry,
            agent_source=self.surfaces.spec,
            record_metadata=save,
        )
        started = time.perf_counter()
        [outcome] = await evaluate(request)
        seconds = time.perf_counter() - started
        result = outcome.eval_set_result
        calls = self._spend(result)
        cases = {c.eval_id: c for c in split.eval_set.eval_cases}
        path = str(outcome.result_path) if outcome.result_path is not None else None
        return RunOutcome(result, seconds, calls, path, cases, cache.hits if cache is not None else 0)

    def _spend(self, result: EvalSetResult) -> int:
        """Add the run's cost to the spending; the model calls its turns recorded."""
        from ..summary import case_usage

        calls = 0
        for case in result.eval_case_results:
            usage = case_usage(case)
            calls += usage.model_calls or 0
            self.spending.agent_cost += usage.cost or 0.0
            self.spending.agent_cost_missing += usage.cost_missing
        self.spending.model_calls += calls
        self._spend_judges()
        return calls

    def _spend_judges(self) -> None:
        """The judges' calls and cost so far (the registry counts over every run it scored)."""
        usage = self.registry.judge_usage()
        self.spending.judge_calls = sum(u.answers for u in usage.values())
        self.spending.judge_cost = sum(chat_cost(self.prices, model, u) or 0.0 for model, u in usage.items())
