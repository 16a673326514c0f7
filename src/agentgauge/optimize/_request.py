"""What to optimise and how, said once: :class:`OptimizeRequest` (what ``agentgauge optimize`` builds from its
options or from ADK's config files)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from ..compare import GateRules
from ..model import CaseStatusRule, EvalMetric
from ._budget import Budget
from ._inputs import SplitSpec
from ._reflect import ReflectionSettings
from ._search import SearchSettings

__all__ = ["DEFAULT_OUT_ROOT", "OptimizeRequest"]

DEFAULT_OUT_ROOT = Path(".agentgauge/optimize")
"""Where an optimisation's folder is made when ``--out`` is not given (under the web UI's data folder, which lists
the audit reports found there)."""


@dataclass(frozen=True)
class OptimizeRequest:
    """One optimisation.

    - ``agent``: the agent's spec (``agent.py``, an ADK agent folder, ``module:attribute``); ``surfaces``: the ids
      of the texts that may change (none: all).
    - ``train`` / ``validation`` (``None``: the train cases validate too); ``metrics``: a metrics file or the
      metrics themselves for both splits (``None``: each set's, found beside it), ``metrics_source`` names them.
    - ``optimizer``: ``gepa``, ``simple`` or a plug-in spec; ``search``: its settings; ``budget``; ``reflection``:
      the reflection model.
    - ``rules`` and ``alpha`` (``None``: the rules file's, else 0.05): the gate; ``num_runs``: runs per case of
      the gate's evidence, ``case_status``: how a case's status follows from them (``None``: ``mean``).
    - ``judge_model`` / ``judge_base_url`` / ``judge_timeout`` / ``no_cache`` and ``plugins`` (modules whose
      ``register(registry)`` runs first): the judges of every run, as ``eval``'s.
    - How runs are made (:class:`~agentgauge.optimize.EngineSettings`'s fields) and where things go: ``out`` (the
      optimisation's folder; ``None``: one under :data:`DEFAULT_OUT_ROOT` named after the app and the settings, so
      the same command run again continues), ``output_dir`` (the gate's results, as ``eval --output-dir``).
    """

    agent: str
    train: SplitSpec
    validation: SplitSpec | None = None
    metrics: Path | tuple[EvalMetric, ...] | None = None
    metrics_source: str = ""
    surfaces: tuple[str, ...] = ()
    optimizer: str = "gepa"
    search: SearchSettings = field(default_factory=SearchSettings)
    budget: Budget = field(default_factory=Budget)
    reflection: ReflectionSettings = field(default_factory=ReflectionSettings)
    rules: GateRules = field(default_factory=GateRules)
    alpha: float | None = None
    num_runs: int = 1
    case_status: CaseStatusRule | None = None
    parallelism: int = 4
    timeout: float | None = None
    app_name: str | None = None
    judge_model: str | None = None
    judge_base_url: str | None = None
    judge_timeout: float | None = None
    no_cache: bool = False
    plugins: tuple[str, ...] = ()
    prices: Path | None = None
    labels: tuple[str, ...] = ()
    output_dir: Path = Path(".agentgauge/results")
    out: Path | None = None
