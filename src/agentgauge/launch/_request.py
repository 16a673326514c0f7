"""What to run, as one frozen object: :class:`EvalRequest`, the eval sets it names (:class:`EvalSetSpec`) and
conversations received elsewhere (:class:`RecordedTraces`). :meth:`EvalRequest.check` checks it once."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from ._options import EngineOptions, GateOptions, JudgeOptions, MetricOptions, RemoteOptions, SimulationOptions
from ._surface import PYTHON, Surface

if TYPE_CHECKING:  # pragma: no cover
    from ..evaluators import Registry
    from ..model import EvalMetric, EvalSet
    from ..run import ResultSink
    from ..service import AgentResponseCache, Callbacks
    from ..traces import TraceConversation
    from ._checks import CheckedRequest

__all__ = ["DEFAULT_OUTPUT_DIR", "EvalRequest", "EvalSetSpec", "RecordedTraces"]

DEFAULT_OUTPUT_DIR = Path(".agentgauge/results")
"""Where results are saved (and judge answers cached) when a request names no folder: ``agentgauge eval``'s."""


@dataclass(frozen=True)
class EvalSetSpec:
    """One eval set of a request: its file (its metrics are found beside it, see
    :func:`~agentgauge.launch.find_metrics`) and/or the set itself, already loaded (the run reads it and never
    changes it), the cases that run (none: every case), and how messages name the file (default: its path; a
    server names it relative to its folder of eval sets)."""

    path: Path | None = None
    case_ids: tuple[str, ...] = ()
    eval_set: EvalSet | None = None
    name: str | None = None

    @classmethod
    def parse(cls, arg: str) -> EvalSetSpec:
        """``FILE[:case1,case2]`` (an existing file whose name holds ``:`` is taken whole; a drive letter is part
        of the path)."""
        path = Path(arg)
        if path.exists():
            return cls(path)
        start = 2 if len(arg) > 2 and arg[1] == ":" and arg[0].isalpha() else 0
        cut = arg.find(":", start)
        if cut < 0:
            return cls(path)
        cases = arg[cut + 1 :].split(":")[0]
        return cls(Path(arg[:cut]), tuple(c.strip() for c in cases.split(",") if c.strip()))

    @property
    def source(self) -> str:
        """How messages name the set: :attr:`name`, else its file, else its id."""
        if self.name is not None:
            return self.name
        if self.path is not None:
            return str(self.path)
        return self.eval_set.eval_set_id if self.eval_set is not None else "eval set"


@dataclass(frozen=True)
class RecordedTraces:
    """Agent conversations received elsewhere (e.g. a live session of the web server), scored as a trace file is:
    ``eval_set_id`` names the set they form without an eval set to compare with, ``app_name`` the app when neither
    the request nor a conversation names one, ``source`` where they came from (shown in the run's heading)."""

    conversations: tuple[TraceConversation, ...]
    eval_set_id: str
    app_name: str = "live"
    source: str = "received traces"


@dataclass(frozen=True)
class EvalRequest:
    """What to run, said once for every caller (the command line, the web server, the ADK drop-in, the pytest
    plugin, Python code); :meth:`check` checks it once, naming the option or field as ``surface`` spells it.

    - What runs: ``agent`` (a spec such as ``path/agent.py``, ``module:attr`` or a remote URL, or an agent object)
      over ``sets`` (``FILE[:case1,case2]`` strings or :class:`EvalSetSpec`), or recorded ``traces`` (a file or
      directory, or :class:`RecordedTraces`) compared with at most one eval set (in ``sets`` or ``eval_set``;
      none: reference-free metrics of ``config``), traces sharing a session id as one conversation with
      ``by_session``; ``require_all_cases``: a case of that eval set without a trace is an error (else it is listed
      as not run).
    - How it is scored: ``config`` (a metrics file for every set, or the metrics themselves; ``None``: each set's
      metrics file), ``metrics`` (which metrics, dialect, reducer),
      ``judge``, ``simulation`` (scenario cases, the expected agent), ``prices`` (a price table file).
    - How it runs: ``remote`` (reaching remote agents), ``engine``, ``num_runs`` per case, ``parallelism`` (cases
      and runs in flight), ``timeout`` (seconds per case's inference), ``resume`` (an interrupted run's result
      file, progress log or id), ``agent_cache`` (the folder of the agent's reused answers, or a cache the caller
      keys itself, for any agent), ``callbacks``.
    - Where results go: ``results`` (a result manager, e.g. a SQL store's), else files under ``output_dir``
      (``<app>/<id>.evalset_result.json``), saved under ``app_name`` (default: the cases' ``sessionInput.appName``)
      with ``labels`` (``KEY=VALUE``); ``keep_results=False`` reads case results back from where they were saved
      instead of keeping them; ``registry`` scores (default: one built from ``judge``); ``agent_source`` is the
      spec an agent object was loaded from (its source hash in the result's metadata); ``record_metadata=False``
      records no run metadata (git state, labels, agent source).
    - What it is compared with: ``gate`` (a baseline result, the gate rule and its significance level); the
      comparisons come with the run (:attr:`~agentgauge.launch.PreparedRun.baseline`).
    - ``strict``: every input warning (an unknown key the file's own tool ignores) is an error.
    """

    agent: object | None = None
    sets: tuple[EvalSetSpec | str, ...] = ()
    traces: Path | RecordedTraces | None = None
    eval_set: EvalSetSpec | str | None = None
    by_session: bool = False
    require_all_cases: bool = False
    config: Path | tuple[EvalMetric, ...] | None = None
    metrics: MetricOptions = field(default_factory=MetricOptions)
    judge: JudgeOptions = field(default_factory=JudgeOptions)
    simulation: SimulationOptions = field(default_factory=SimulationOptions)
    remote: RemoteOptions = field(default_factory=RemoteOptions)
    engine: EngineOptions = field(default_factory=EngineOptions)
    num_runs: int = 1
    parallelism: int = 4
    timeout: float | None = None
    resume: str | None = None
    agent_cache: Path | AgentResponseCache | None = None
    labels: tuple[str, ...] = ()
    prices: Path | None = None
    app_name: str | None = None
    output_dir: Path = DEFAULT_OUTPUT_DIR
    results: ResultSink | None = None
    keep_results: bool = True
    registry: Registry | None = None
    agent_source: str | None = None
    record_metadata: bool = True
    callbacks: Callbacks | None = None
    gate: GateOptions = field(default_factory=GateOptions)
    strict: bool = False
    surface: Surface = PYTHON

    @property
    def trace_mode(self) -> bool:
        """Whether the request scores recorded traces (or gives an option only trace runs take)."""
        return self.traces is not None or self.eval_set is not None or self.by_session or self.require_all_cases

    def check(self) -> CheckedRequest:
        """Every option checked, in a fixed order, before anything is loaded; :class:`~agentgauge.errors.InputError`
        names the first bad one as :attr:`surface` spells it."""
        from ._checks import check_request

        return check_request(self)
