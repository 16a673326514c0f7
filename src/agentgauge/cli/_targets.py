"""What every command that runs or reads eval sets shares: an ``EVAL_SET[:case1,case2]`` argument and what was
loaded for it, its metrics file, the selected cases, the app name, the evaluator registry, the default judge, the
result store of ``--store``.

Imports only ``_common`` and ``_options`` of the CLI (no command module); everything heavy is imported inside the
functions, so importing this module costs nothing at start-up.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ._common import fail_input

if TYPE_CHECKING:  # pragma: no cover
    from ..evaluators import Registry
    from ..formats import InputReport
    from ..model import EvalMetric, EvalSet
    from ..service import EvaluatorSource, MetricSelection, StreamedEvalSet
    from ._options import JudgeOptions

__all__ = [
    "Target",
    "app_name_for",
    "checked_metrics",
    "default_judge",
    "find_metrics",
    "is_file",
    "make_registry",
    "open_store",
    "registry_factory",
    "selected_case_ids",
    "settle_inputs",
    "split_case_filter",
]


@dataclass
class Target:
    """One EVAL_SET argument: the file, the selected case ids, and what was loaded for it."""

    path: Path
    case_ids: list[str]
    eval_set: EvalSet | None = None
    metrics: list[EvalMetric] = field(default_factory=list)
    metrics_source: str = ""
    stream: StreamedEvalSet | None = None  # a large file, read case by case during the run
    skipped: list[str] = field(default_factory=list)  # metrics left out by --only/--skip-metrics, --no-judges


def split_case_filter(arg: str) -> Target:
    """``FILE[:case1,case2]`` as a :class:`Target` (an existing file whose name holds ``:`` is taken whole)."""
    path = Path(arg)
    if path.exists():
        return Target(path, [])
    # A drive letter ("C:\\sets\\x.json") is part of the path, not a case filter.
    start = 2 if len(arg) > 2 and arg[1] == ":" and arg[0].isalpha() else 0
    cut = arg.find(":", start)
    if cut < 0:
        return Target(path, [])
    cases = arg[cut + 1 :].split(":")[0]
    return Target(Path(arg[:cut]), [c.strip() for c in cases.split(",") if c.strip()])


def is_file(path: Path) -> bool:
    """Whether ``path`` is a file; a name no file can have (e.g. one built from a 300-character ``evalSetId``, over
    the file system's limit) is not one: the id itself is refused, naming the eval set, once the run is planned."""
    try:
        return path.is_file()
    except (OSError, ValueError):  # ENAMETOOLONG; a NUL character
        return False


def find_metrics(target: Target, config: Path | None, report: InputReport | None = None) -> None:
    """Set the target's metrics: ``config``, else ``<evalSetId>.metrics.json`` or ``test_config.json`` beside the
    eval set, else ADK's default criteria; ``report`` receives the file's unknown keys outside its metrics."""
    from ..formats import default_adk_metrics, load_metrics

    assert target.eval_set is not None
    if config is not None:
        target.metrics, target.metrics_source = load_metrics(config, report=report), str(config)
        return
    folder = target.path.parent
    for candidate in (folder / f"{target.eval_set.eval_set_id}.metrics.json", folder / "test_config.json"):
        if is_file(candidate):
            target.metrics, target.metrics_source = load_metrics(candidate, report=report), str(candidate)
            return
    target.metrics, target.metrics_source = default_adk_metrics(), "ADK default criteria"


def selected_case_ids(target: Target) -> list[str]:
    """The ids of the cases the target selects (all when it names none); an unknown id is refused naming the file."""
    from ..errors import InputError
    from ..service import select_cases

    assert target.eval_set is not None
    try:
        return [case.eval_id for case in select_cases(target.eval_set, target.case_ids)]
    except InputError as exc:
        raise InputError(exc.message, file=str(target.path)) from None


def app_name_for(explicit: str | None, targets: list[Target]) -> str:
    """``--app-name``, else the first ``sessionInput.appName`` of the selected sets, else the first set's id."""
    from ..errors import InputError
    from ..storage import check_segment

    # (name, file, JSON path) of each candidate: a name that is refused is reported where it was written
    candidates: list[tuple[str, str | None, str]] = [(explicit, None, "--app-name")] if explicit else []
    for target in targets:
        assert target.eval_set is not None
        candidates += [
            (case.session_input.app_name, str(target.path), f"evalCases[{index}].sessionInput.appName")
            for index, case in enumerate(target.eval_set.eval_cases)
            if case.session_input is not None
        ]
        candidates.append((target.eval_set.eval_set_id, str(target.path), "evalSetId"))
    found = next((candidate for candidate in candidates if candidate[0]), None)
    if found is None:
        raise InputError(
            "must not be empty: it names the app when neither --app-name nor a case's sessionInput.appName does",
            file=str(targets[0].path),
            location="evalSetId",
        )
    name, file, location = found
    try:
        return check_segment(name, "app name")
    except InputError as exc:
        raise InputError(exc.message, file=file, location=location) from None


def default_judge(model: str | None, base_url: str | None) -> dict[str, str] | None:
    """The ``judgeModel`` block given by ``--judge-model`` / ``--judge-base-url`` (a URL needs a model: exit 2)."""
    if base_url and not model:
        fail_input("--judge-base-url needs --judge-model")
    return {"modelName": model, **({"baseURL": base_url} if base_url else {})} if model else None


def make_registry(output_dir: Path, judge: JudgeOptions, judge_parallelism: int | None = None) -> Registry:
    """The evaluator registry of a run: judge cache under ``output_dir``, the judge time budget, the default judge
    for metrics that name none, the judge calls at once per judge (``None``: the run's parallelism) and the
    plug-ins loaded."""
    from ..evaluators import Registry
    from ..judges import JudgeSettings, RetryPolicy

    retry = RetryPolicy() if judge.timeout is None else RetryPolicy(total_budget=judge.timeout)
    settings = JudgeSettings(
        cache_dir=judge.cache_dir(output_dir),
        retry=retry,
        default_judge_model=default_judge(judge.model, judge.base_url),
        max_concurrency=judge_parallelism,
    )
    registry = Registry(judge_settings=settings)
    registry.load_plugins(judge.plugins)
    return registry


def registry_factory(
    output_dir: Path, judge: JudgeOptions, judge_parallelism: int | None
) -> Callable[[], EvaluatorSource]:
    """A picklable factory of :func:`make_registry` with these arguments, for workers."""
    return functools.partial(make_registry, output_dir, judge, judge_parallelism)


def checked_metrics(
    selection: MetricSelection | None,
    metrics: Sequence[EvalMetric],
    registry: Registry,
    source: str,
    report: InputReport | None = None,
) -> list[str]:
    """Check the metrics file ``source`` before anything runs -- names of the selection, then the metrics that
    will run (names, criteria, thresholds, judge configuration and keys) -- and return the names left out (exit 2
    on a problem; unknown keys go to ``report``, see :func:`settle_inputs`)."""
    skipped: list[str] = []
    if selection is not None:
        _, skipped = selection.select(metrics, registry, file=source)
    registry.validate_metrics(metrics, file=source, skip=skipped, report=report)
    registry.check_judges_ready(metrics, file=source, skip=skipped)  # e.g. no API key: exit 2
    return skipped


def settle_inputs(report: InputReport) -> None:
    """After every input is read and checked: print each warning (one line on stderr: ``warning: FILE: PATH:
    message``; they never change the exit code), then refuse the inputs when the checks found an error
    (:class:`~agentgauge.errors.InputError`: exit 2). With ``--strict`` every warning is an error."""
    from ._common import echo_problems

    echo_problems(report.warnings)
    report.raise_errors()


def open_store(option: str | None) -> Any:
    """The result manager of ``--store`` / ``$AGENTGAUGE_STORE`` (``None``: results go to files); an unreachable or
    too new store is refused here, before anything runs."""
    from ..sqlstore import resolve_store_url

    url = resolve_store_url(option)
    if url is None:
        return None
    from ..sqlstore._cli import open_result_store

    return open_result_store(url)
