"""The option groups of a request: judges, simulated users, remote agents, the engine, the metric choice and the
baseline the run is compared with.

Plain, picklable data as the caller gave it (Ray workers build their registry and simulation settings from it);
:meth:`~agentgauge.launch.EvalRequest.check` checks every group once.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

__all__ = ["EngineOptions", "GateOptions", "JudgeOptions", "MetricOptions", "RemoteOptions", "SimulationOptions"]


@dataclass(frozen=True)
class JudgeOptions:
    """How judge metrics call their models: the default judge (``model``, ``base_url``) of judge metrics that
    name none, the time one judge call may take (``timeout`` seconds, retries included), the answer cache under
    the results folder (``no_cache``: none) and plug-in modules whose ``register(registry)`` runs first."""

    model: str | None = None
    base_url: str | None = None
    timeout: float | None = None
    no_cache: bool = False
    plugins: tuple[str, ...] = ()

    def cache_dir(self, output_dir: Path) -> Path | None:
        """The judge answer cache of a run saving under ``output_dir`` (``None`` with ``no_cache``)."""
        return None if self.no_cache else output_dir / ".judge_cache"

    @property
    def default_model(self) -> dict[str, str] | None:
        """The ``judgeModel`` block of :attr:`model` / :attr:`base_url` (``None`` without a model)."""
        if not self.model:
            return None
        return {"modelName": self.model, **({"baseURL": self.base_url} if self.base_url else {})}


@dataclass(frozen=True)
class SimulationOptions:
    """Simulated users, the expected agent and generated tool mocks (see docs/simulation.md): a user simulator file
    (``file.py[:attribute]``), the model playing the user (and generating ``llmGenerator`` tool results), the agent
    producing expected invocations, and the user-turn limit of every scenario (0: unlimited)."""

    user_simulator: str | None = None
    simulator_model: str | None = None
    simulator_base_url: str | None = None
    expected_agent: str | None = None
    max_turns: int | None = None

    @property
    def given(self) -> bool:
        """Whether any simulation option was given."""
        return any(value is not None for value in vars(self).values())


@dataclass(frozen=True)
class RemoteOptions:
    """How remote agents are reached (see docs/agents.md): headers as ``'Name: value'`` (``${ENV}`` expanded when
    the agent is loaded), a JSON config file (headers, timeouts, retries, TLS, a plain service's request), the
    seconds one turn may take in all, the largest answer read (MB) and whether redirects to another origin are
    followed (``None`` / ``False``: the config file or the default decides)."""

    headers: tuple[str, ...] = ()
    config: Path | None = None
    turn_timeout: float | None = None
    max_response_mb: float | None = None
    follow_redirects: bool = False

    @property
    def given(self) -> bool:
        """Whether any remote-agent option was given."""
        limits = self.turn_timeout is not None or self.max_response_mb is not None
        return bool(self.headers) or self.config is not None or self.follow_redirects or limits


@dataclass(frozen=True)
class EngineOptions:
    """Where cases run: ``"local"`` (this process) or ``"ray"`` (a Ray cluster at ``ray_address``, with
    ``ENDPOINT=RPM[/CONCURRENT]`` rate limits)."""

    executor: str = "local"
    ray_address: str | None = None
    rate_limits: tuple[str, ...] = ()


@dataclass(frozen=True)
class MetricOptions:
    """Which metrics of a set score (``only`` / ``skip``: comma-separated names; ``no_judges``: none of the LLM
    judges), judge calls in flight per judge model (``None``: the run's parallelism), whose rules score ADK metrics
    (``dialect``: ``adk`` or ``adk-ts``; ``None``: as the metrics file says), how a case's runs combine for the
    metrics that name no ``reducer`` (``mean``, ``median``, ``at_least_K``, ...) and how a case's status follows
    from its runs (``case_status``: ``mean``, ``all``, ``majority`` or ``any``; ``None``: ``mean``, see
    :class:`~agentgauge.model.CaseStatusRule`). ``replay``: the sets hold replay cases (docs/replay.md), scored with
    ``replay_fidelity`` (added first, at threshold 1, where the metrics lack it)."""

    only: str | None = None
    skip: str | None = None
    no_judges: bool = False
    judge_parallelism: int | None = None
    dialect: str | None = None
    reducer: str | None = None
    case_status: str | None = None
    replay: bool = False


@dataclass(frozen=True)
class GateOptions:
    """The result the run is compared with and how the comparison decides the verdict (see docs/compare.md):
    ``baseline`` (a result file, a result id, ``label:KEY=VALUE[,KEY=VALUE]`` or ``latest``: the newest earlier
    result of each eval set run), ``fail_on`` (``broken``, ``significant``, ``any-change`` or ``never``; ``None``:
    the cases' statuses decide), ``fail_on_regression`` (the older spelling of ``fail_on="broken"``) and ``alpha``,
    the significance level of the comparison's tests."""

    baseline: str | None = None
    fail_on: str | None = None
    fail_on_regression: bool = False
    alpha: float = 0.05
