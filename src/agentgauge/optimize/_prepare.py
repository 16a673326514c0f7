"""Everything an optimisation needs, loaded and checked before the first agent call: the agent and its surfaces,
the splits and their metrics, the app, the optimiser, the reflection model, the run engine and the ``--out``
folder (a folder holding this optimisation's state is continued)."""

from __future__ import annotations

import dataclasses
import hashlib
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import InputError
from ..launch import JudgeOptions
from ._budget import Spending
from ._engine import CandidateRunner, EngineSettings
from ._inputs import Split, load_split
from ._output import OutDir
from ._plugins import load_optimizer, uses_reflection
from ._reflect import Reflector
from ._request import DEFAULT_OUT_ROOT, OptimizeRequest
from ._search import Optimizer
from ._surfaces import AgentSurfaces, surfaces_of

__all__ = ["Prepared", "prepare"]

Note = Callable[[str], None]


@dataclass
class Prepared:
    """A checked optimisation, ready to run."""

    request: OptimizeRequest
    surfaces: AgentSurfaces
    train: Split
    validation: Split
    app_name: str
    optimizer: Optimizer
    runner: CandidateRunner
    reflector: Reflector | None
    out: OutDir
    optimization_id: str
    fingerprint: str
    identity: str
    alpha: float
    resumed: bool = False
    spending: Spending = field(default_factory=Spending)
    notes: list[str] = field(default_factory=list)


def _app_name(request: OptimizeRequest, train: Split) -> str:
    from ..storage import check_segment

    if request.app_name:
        return check_segment(request.app_name, "app name")
    for case in train.eval_set.eval_cases:
        if case.session_input is not None and case.session_input.app_name:
            return check_segment(case.session_input.app_name, "app name")
    return check_segment(train.eval_set_id, "app name")


def _split_identity(split: Split) -> dict[str, object]:
    content = split.eval_set.model_dump_json(by_alias=True)
    return {
        "eval_set": hashlib.sha256(content.encode("utf-8")).hexdigest(),
        "cases": split.case_ids,
        "metrics": [m.model_dump(mode="json") for m in split.metrics],
    }


def _fingerprint(request: OptimizeRequest, identity: str, surfaces: AgentSurfaces, splits: list[Split]) -> str:
    """What the optimisation's runs depend on (not the budget nor the gate's rules: a run again may extend the
    one and change the other)."""
    search = request.search
    document = {
        "agent": identity,
        "surfaces": {s.surface_id: s.sha256 for s in surfaces.surfaces},
        "splits": [_split_identity(s) for s in splits],
        "optimizer": request.optimizer,
        "search": [search.seed, search.minibatch, search.iterations, search.batch_size, search.metric],
        "num_runs": request.num_runs,
        "case_status": request.case_status.value if request.case_status is not None else None,
    }
    return hashlib.sha256(json.dumps(document, sort_keys=True, default=str).encode("utf-8")).hexdigest()


def _check_metric(request: OptimizeRequest, splits: list[Split]) -> None:
    """The metric the gate (and the search) reads must be one the splits score."""
    from ..compare import PASS_RATE_METRIC

    for metric in {request.rules.metric, request.search.metric or PASS_RATE_METRIC} - {PASS_RATE_METRIC}:
        for split in splits:
            names = [m.metric_name for m in split.metrics]
            if metric not in names:
                raise InputError(
                    f"the gate's metric {metric!r} is not a metric of the {split.name} split (it has "
                    f"{', '.join(names) or 'none'}); give pass_rate or one of them",
                    file=split.metrics_source or str(split.path),
                )


def _protected(spec: str) -> list[Path]:
    path = Path(spec)
    if path.is_dir():
        return [path]
    return [path.parent] if path.is_file() else []


def _engine_settings(request: OptimizeRequest, app: str, out: OutDir) -> EngineSettings:
    return EngineSettings(
        app_name=app,
        output_dir=request.output_dir,
        parallelism=request.parallelism,
        timeout=request.timeout,
        judge=JudgeOptions(
            request.judge_model, request.judge_base_url, request.judge_timeout, request.no_cache, request.plugins
        ),
        prices=request.prices,
        agent_cache=out.agent_cache,
        labels=request.labels,
        case_status=request.case_status,
    )


def prepare(request: OptimizeRequest, *, on_note: Note | None = None) -> Prepared:
    """Check ``request`` and load what it needs (see the module's description); :class:`InputError` on bad input."""
    from ..agents import load_agent_object
    from ..agents.remote import is_remote_agent_spec
    from ..compare import rules_alpha
    from ..service import agent_identity

    note = on_note or (lambda _: None)
    if request.num_runs < 1 or request.num_runs > 1000:
        raise InputError(f"--num-runs must be between 1 and 1000, got {request.num_runs}")
    if request.parallelism < 1:
        raise InputError(f"--parallelism must be at least 1, got {request.parallelism}")
    if is_remote_agent_spec(request.agent):
        raise InputError(f"{request.agent}: a remote agent's texts live on its server; optimise it where it runs")
    optimizer = load_optimizer(request.optimizer)
    train = load_split("train", request.train, request.metrics, metrics_source=request.metrics_source)
    validation = (
        load_split("validation", request.validation, request.metrics, metrics_source=request.metrics_source)
        if request.validation is not None
        else Split("validation", train.path, train.eval_set, train.case_ids, train.metrics, train.metrics_source)
    )
    _check_metric(request, [train, validation])
    surfaces = surfaces_of(load_agent_object(request.agent), request.agent).choose(request.surfaces)
    app = _app_name(request, train)
    identity = agent_identity(request.agent)
    fingerprint = _fingerprint(request, identity, surfaces, [train, validation])
    optimization_id = f"{app}-{fingerprint[:12]}"
    out = OutDir(request.out if request.out is not None else DEFAULT_OUT_ROOT / optimization_id)
    resumed = out.check(fingerprint, _protected(request.agent))
    spending = Spending()
    runner = CandidateRunner(surfaces, _engine_settings(request, app, out), spending)
    runner.check([train, validation])
    reflector = None
    if uses_reflection(optimizer):
        cache = None if request.no_cache else request.output_dir / ".judge_cache"
        reflection = request.reflection.resolved(request.judge_model, request.judge_base_url)
        reflector = Reflector(dataclasses.replace(reflection, cache_dir=cache), spending, runner.prices)
        reflector.check()
    prepared = Prepared(
        request=request,
        surfaces=surfaces,
        train=train,
        validation=validation,
        app_name=app,
        optimizer=optimizer,
        runner=runner,
        reflector=reflector,
        out=out,
        optimization_id=optimization_id,
        fingerprint=fingerprint,
        identity=identity,
        alpha=rules_alpha(request.rules, request.alpha),
        resumed=resumed,
        spending=spending,
    )
    if request.validation is None:
        prepared.notes.append("no validation set: the train cases validate too, so the gate's evidence is not held out")
    if resumed:
        note(f"continuing the optimisation in {out.path}")
    return prepared
