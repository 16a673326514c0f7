"""The one check of a request (:func:`check_request`): every option in a fixed order, before anything is loaded,
and what the checks derive (labels, the metric selection, the engine, the remote settings) kept in a
:class:`CheckedRequest`."""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from ..agents.remote import is_remote_agent_spec
from ..errors import InputError
from ..evaluators import REPLAY_FIDELITY_METRIC, Registry
from ..formats import SCORING_DIALECTS, InputReport, with_scoring_dialect
from ..judges import JudgeSettings, RetryPolicy
from ..model import EvalMetric, parse_case_status_rule, parse_labels
from ..service import MetricSelection
from ..stats import check_reducer
from ._engine import EngineChoice, engine_choice
from ._inputs import check_set_args
from ._remote import REMOTE_OPTIONS, remote_settings
from ._request import EvalRequest, EvalSetSpec

if TYPE_CHECKING:  # pragma: no cover
    from ..agents.remote import RemoteAgentSettings
    from ..formats import InputProblem, ScoringDialectName
    from ..model import CaseStatusRule
    from ..service import EvaluatorSource
    from ._options import JudgeOptions, MetricOptions
    from ._surface import Surface

__all__ = ["CheckedRequest", "check_request", "make_registry"]


@dataclass(frozen=True)
class CheckedRequest:
    """A request that passed :func:`check_request`, with what the checks derived from it."""

    request: EvalRequest
    sets: tuple[EvalSetSpec, ...]
    """The eval sets of an agent run (empty for a trace run)."""
    trace_set: EvalSetSpec | None
    """The eval set a trace run compares with (``None``: reference-free)."""
    labels: dict[str, str]
    selection: MetricSelection | None
    judge_parallelism: int
    dialect: ScoringDialectName | None
    engine: EngineChoice
    remote: RemoteAgentSettings | None
    report: InputReport
    """What the input checks find while the inputs are read (unknown keys; with ``strict`` every warning is an
    error); settled once everything is read, see :meth:`settle_inputs`."""
    case_status: CaseStatusRule
    """How a case's status follows from its runs."""
    fail_on: str | None
    """The gate rule of the comparison with the baseline (``None``: none decides the verdict)."""

    @property
    def surface(self) -> Surface:
        """How messages name the request's fields."""
        return self.request.surface

    def settle_inputs(self, on_warning: Callable[[InputProblem], None]) -> None:
        """Once every input is read and checked: hand each warning to ``on_warning``, then refuse the inputs when the
        checks found an error (:class:`InputError`)."""
        for warning in self.report.warnings:
            on_warning(warning)
        self.report.raise_errors()

    def registry(self) -> Registry:
        """The registry the run scores with: the request's, else one built from its judge options."""
        request = self.request
        if request.registry is not None:
            return request.registry
        return make_registry(request.output_dir, request.judge, self.judge_parallelism)

    def registry_factory(self) -> Callable[[], EvaluatorSource]:
        """A picklable factory of the run's registry, for workers that build their own."""
        request = self.request
        return functools.partial(make_registry, request.output_dir, request.judge, self.judge_parallelism)

    def scored(self, metrics: list[EvalMetric], source: str) -> list[EvalMetric]:
        """``metrics`` reduced over runs by the request's reducer where they name none, and scored in its dialect
        (unchanged without either), with ``replay_fidelity`` first in a replay run where they lack it (a case's
        first failure reason is then what its replay found); :class:`InputError` for a metric the dialect cannot
        apply to."""
        if self.request.metrics.replay and not any(m.evaluator_key == REPLAY_FIDELITY_METRIC for m in metrics):
            metrics = [EvalMetric(metric_name=REPLAY_FIDELITY_METRIC, threshold=1.0), *metrics]
        reducer = self.request.metrics.reducer
        if reducer is not None:
            metrics = [m if m.reducer else m.model_copy(update={"reducer": reducer}) for m in metrics]
        if self.dialect is None:
            return metrics
        return with_scoring_dialect(metrics, self.dialect, source)


def make_registry(output_dir: Path, judge: JudgeOptions, judge_parallelism: int | None = None) -> Registry:
    """The registry of a run: judge answers cached under ``output_dir`` (unless ``judge.no_cache``), the judge time
    budget, the default judge of judge metrics that name none, the judge calls in flight per judge (``None``: the
    run's parallelism) and the plug-ins loaded."""
    retry = RetryPolicy() if judge.timeout is None else RetryPolicy(total_budget=judge.timeout)
    settings = JudgeSettings(
        cache_dir=judge.cache_dir(output_dir),
        retry=retry,
        default_judge_model=judge.default_model,
        max_concurrency=judge_parallelism,
    )
    registry = Registry(judge_settings=settings)
    registry.load_plugins(judge.plugins)
    return registry


def check_request(request: EvalRequest) -> CheckedRequest:
    """Check ``request`` (see :meth:`EvalRequest.check`)."""
    _check_counts(request)
    selection, judge_parallelism, dialect = _metric_choice(request.metrics, request.parallelism, request.surface)
    case_status = _case_status(request)
    fail_on = _gate(request)
    labels = _labels(request)
    engine = engine_choice(request.engine, request.surface)
    _check_modes(request, engine)
    sets, trace_set = _sets(request)
    judge = request.judge
    if judge.base_url and not judge.model:
        raise InputError(f"{request.surface.name('judge_base_url')} needs {request.surface.name('judge_model')}")
    remote = _remote(request)
    report = InputReport(strict=request.strict, strict_reason=request.surface.name("strict"))
    return CheckedRequest(
        request,
        sets,
        trace_set,
        labels,
        selection,
        judge_parallelism,
        dialect,
        engine,
        remote,
        report,
        case_status,
        fail_on,
    )


def _check_counts(request: EvalRequest) -> None:
    """The folder of the results, the runs, the parallelism and the time limits."""
    surface = request.surface
    name = surface.name
    output_dir = request.output_dir
    if output_dir.exists() and not output_dir.is_dir():
        raise InputError(f"{name('output_dir')} {output_dir}: not a directory")
    if not 1 <= request.num_runs <= surface.max_num_runs:
        raise InputError(f"{name('num_runs')} must be between 1 and {surface.max_num_runs}, got {request.num_runs}")
    highest = surface.max_parallelism
    if highest is None and request.parallelism < 1:
        raise InputError(f"{name('parallelism')} must be at least 1, got {request.parallelism}")
    if highest is not None and not 1 <= request.parallelism <= highest:
        raise InputError(f"{name('parallelism')} must be between 1 and {highest}, got {request.parallelism}")
    timeout = request.timeout
    if timeout is not None and not timeout > 0:  # written so that nan is refused too
        raise InputError(f"{name('timeout')} must be positive, got {timeout:g}")
    judge_timeout = request.judge.timeout
    if judge_timeout is not None and not 0 < judge_timeout < float("inf"):
        raise InputError(f"{name('judge_timeout')} must be a positive number of seconds, got {judge_timeout:g}")


def _metric_choice(
    options: MetricOptions, parallelism: int, surface: Surface
) -> tuple[MetricSelection | None, int, ScoringDialectName | None]:
    """The metric selection, the judge parallelism and the dialect (:class:`InputError` for an empty list, a
    parallelism below 1, an unknown dialect or reducer)."""
    name = surface.name
    if options.reducer is not None:
        try:
            check_reducer(options.reducer)
        except ValueError as exc:
            raise InputError(f"{name('reducer')}: {exc}") from None
    dialect = options.dialect
    if dialect is not None and dialect not in SCORING_DIALECTS:
        raise InputError(f"{name('dialect')} must be one of {', '.join(SCORING_DIALECTS)}, got {dialect!r}")
    judge_parallelism = options.judge_parallelism
    if judge_parallelism is not None and judge_parallelism < 1:
        raise InputError(f"{name('judge_parallelism')} must be at least 1, got {judge_parallelism}")
    for key, value in (("only_metrics", options.only), ("skip_metrics", options.skip)):
        if value is not None and not any(part.strip() for part in value.split(",")):
            raise InputError(f"{name(key)} needs at least one metric name, e.g. {name(key)} tool_trajectory_avg_score")
    selection = None
    if options.only is not None or options.skip is not None or options.no_judges:
        named = (name("only_metrics"), name("skip_metrics"), name("no_judges"))
        selection = MetricSelection(options.only, options.skip or (), not options.no_judges, options=named)
    chosen: ScoringDialectName | None = "adk-ts" if dialect == "adk-ts" else "adk" if dialect == "adk" else None
    return selection, judge_parallelism or parallelism, chosen


def _case_status(request: EvalRequest) -> CaseStatusRule:
    try:
        return parse_case_status_rule(request.metrics.case_status)
    except ValueError as exc:
        raise InputError(f"{request.surface.name('case_status')}: {exc}") from None


def _gate(request: EvalRequest) -> str | None:
    """The gate rule (``fail_on_regression`` is ``fail_on="broken"``), refused without a baseline, unknown, or
    given twice differently; the significance level, refused outside (0, 1)."""
    from ..compare import FailOn, check_alpha, fail_on_rule

    gate, name = request.gate, request.surface.name
    for given, key in ((gate.fail_on_regression, "fail_on_regression"), (gate.fail_on is not None, "fail_on")):
        if given and gate.baseline is None:
            raise InputError(f"{name(key)} needs {name('baseline_result')}")
    rule = FailOn.BROKEN.value if gate.fail_on_regression else None
    if gate.fail_on is not None:
        fail_on_rule(gate.fail_on, given_as=name("fail_on"))
        if gate.fail_on_regression and gate.fail_on != FailOn.BROKEN:
            raise InputError(
                f"{name('fail_on_regression')} is {name('fail_on')} broken: it cannot be given with "
                f"{name('fail_on')} {gate.fail_on}"
            )
        rule = gate.fail_on
    check_alpha(gate.alpha, given_as=name("alpha"))
    return rule


def _labels(request: EvalRequest) -> dict[str, str]:
    try:
        return parse_labels(request.labels)
    except ValueError as exc:
        raise InputError(f"{request.surface.name('label')}: {exc}") from None


def _check_modes(request: EvalRequest, engine: EngineChoice) -> None:
    """Options that do not fit together: the agent cache on Ray, agent-run options in a trace run."""
    name = request.surface.name
    if request.agent_cache is not None and engine.kind != "local":
        raise InputError(
            f"{name('agent_cache')} is not available with {name('executor')} ray (each worker would keep its own cache)"
        )
    if not request.trace_mode:
        if isinstance(request.agent_cache, Path) and not isinstance(request.agent, str):
            raise InputError(
                f"{name('agent_cache')} needs the agent given by its spec (a file, module:attribute or a remote URL): "
                "the cache is kept per agent source"
            )
        return
    if engine.kind != "local":
        raise InputError(f"{name('executor')} ray is not available with {name('traces')}")
    if request.metrics.replay:
        raise InputError(
            f"{name('replay')} runs an agent on replay cases; recorded traces ({name('traces')}) are scored as they are"
        )
    if request.simulation.given:
        simulation = ", ".join(name(key) for key in ("user_simulator", "simulator_model", "expected_agent"))
        raise InputError(f"{simulation} and {name('max_turns')} cannot be used with {name('traces')}")
    if request.resume is not None or request.agent_cache is not None or request.remote.given:
        raise InputError(
            f"{_listed(('resume', 'agent_cache', *REMOTE_OPTIONS), name)} apply to agent runs, not to {name('traces')}"
        )
    if request.traces is None:
        raise InputError(
            f"{name('eval_set')}, {name('by_session')} and {name('require_all_cases')} are only used with "
            f"{name('traces')} (give "
            "eval sets as arguments otherwise)"
        )


def _sets(request: EvalRequest) -> tuple[tuple[EvalSetSpec, ...], EvalSetSpec | None]:
    """The eval sets of an agent run, or the one a trace run compares with."""
    if not request.trace_mode:
        check_set_args(request.agent, request.sets, request.surface)
        return tuple(_spec(s) for s in request.sets), None
    specs = [*request.sets, *([request.eval_set] if request.eval_set is not None else [])]
    if len(specs) > 1 or request.agent is not None:
        shown = ", ".join(s if isinstance(s, str) else s.source for s in specs)
        raise InputError(
            f"with {request.surface.name('traces')} give at most one eval set (positional or "
            f"{request.surface.name('eval_set')}) and no agent; got {shown}"
        )
    return (), _spec(specs[0]) if specs else None


def _spec(given: EvalSetSpec | str) -> EvalSetSpec:
    return EvalSetSpec.parse(given) if isinstance(given, str) else given


def _remote(request: EvalRequest) -> RemoteAgentSettings | None:
    """The remote-agent settings, refused when no agent of the run is remote."""
    surface = request.surface
    settings = remote_settings(request.remote, "--agent-" if surface.style == "option" else "remote ")
    if settings is None:
        return None
    specs = (request.agent, request.simulation.expected_agent)
    if not any(isinstance(spec, str) and is_remote_agent_spec(spec) for spec in specs):
        name = request.surface.name
        agent = request.agent
        shown = agent if isinstance(agent, str) else "recorded traces" if agent is None else "an agent object"
        raise InputError(
            f"{_listed(REMOTE_OPTIONS, name)} apply to remote agents (a2a+http://, adk+http://, agui+http://, "
            f"trpcagent+http://, http://), not to {shown}"
        )
    return settings


def _listed(keys: tuple[str, ...], name: Callable[[str], str]) -> str:
    """``a, b and c`` of the options ``keys`` as the caller spells them."""
    named = [name(key) for key in keys]
    return f"{', '.join(named[:-1])} and {named[-1]}"
