"""The eval sets of a run: each opened (a large file as a stream), its cases selected, its metrics found by the one
metrics rule and checked; the app the results are saved under, and whether they can be saved there."""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import InputError, InvalidIdError
from ..formats import default_adk_metrics, load_agentevals_config, load_eval_set, load_metrics
from ..service import LoadedEvalSet, StreamedEvalSet, open_eval_set, select_cases
from ..sqlstore import check_result_id
from ..storage import RESULT_SUFFIX, InMemoryEvalResultManager, LocalEvalResultManager, check_segment

if TYPE_CHECKING:  # pragma: no cover
    from ..evaluators import Registry
    from ..formats import InputReport
    from ..model import EvalMetric, EvalSet
    from ..service import MetricSelection
    from ._checks import CheckedRequest
    from ._request import EvalSetSpec

__all__ = [
    "METRICS_FILES",
    "LoadedSet",
    "app_name_for",
    "check_result_places",
    "checked_metrics",
    "find_metrics",
    "given_metrics",
    "load_golden",
    "load_set",
    "metrics_file",
    "selected_case_ids",
]

METRICS_FILES = ("{id}.metrics.json", "test_config.json", "eval_config.yaml")
"""The metrics files looked for beside an eval set, in order (``{id}``: its ``evalSetId``)."""

_NAME_MAX = 255  # bytes in one file name on common file systems (ext4, APFS, NTFS)
_TEMP_EXTRA = len(".") + len(".0123456789ab.tmp")  # what atomic writes add to a file name for the temporary file


@dataclass(frozen=True)
class LoadedSet:
    """One eval set of a run, loaded and checked: the set (a large file's holds index-only cases, read case by case
    from ``stream`` during the run), the selected case ids, the metrics, where they came from (as messages name it,
    and the file itself), and those left out by the metric selection."""

    spec: EvalSetSpec
    eval_set: EvalSet
    selected: tuple[str, ...]
    metrics: list[EvalMetric]
    metrics_source: str
    metrics_file: Path | None = None
    skipped: tuple[str, ...] = ()
    stream: StreamedEvalSet | None = None

    @property
    def source(self) -> Any:
        """What the run reads its cases from."""
        return self.stream if self.stream is not None else LoadedEvalSet(self.eval_set)


def load_set(spec: EvalSetSpec, checked: CheckedRequest, registry: Registry, *, needs_agent: bool) -> LoadedSet:
    """Open ``spec``'s set, select its cases, find and check its metrics; without an agent every selected case must
    be in trace mode."""
    stream = None
    if spec.eval_set is not None:
        eval_set = spec.eval_set
    else:
        assert spec.path is not None
        loaded = open_eval_set(spec.path, report=checked.report)
        stream, eval_set = (loaded, loaded.header) if isinstance(loaded, StreamedEvalSet) else (None, loaded)
    selected = selected_case_ids(eval_set, spec)
    metrics, source, file = find_metrics(spec, eval_set.eval_set_id, checked, registry)
    metrics = checked.scored(metrics, source)
    skipped = checked_metrics(checked.selection, metrics, registry, source, checked.report)
    if needs_agent:
        wanted = set(selected)
        needing = [c.eval_id for c in eval_set.eval_cases if c.eval_id in wanted and not c.is_trace]
        if needing:
            usage = checked.surface.name("usage").replace("[AGENT] ", "AGENT ")
            raise InputError(
                f"an agent is required: case(s) {', '.join(needing)} are not in trace mode"
                + (f"; {usage}" if usage else ""),
                file=spec.source,
            )
    return LoadedSet(spec, eval_set, tuple(selected), metrics, source, file, tuple(skipped), stream)


def load_golden(spec: EvalSetSpec, checked: CheckedRequest) -> EvalSet:
    """The eval set ``spec`` names (whole: traces are matched against every case), its case selection checked."""
    golden = spec.eval_set if spec.eval_set is not None else load_eval_set(_path(spec), report=checked.report)
    selected_case_ids(golden, spec)
    return golden


def _path(spec: EvalSetSpec) -> Path:
    assert spec.path is not None, "an eval set spec names a file or holds the set"
    return spec.path


def selected_case_ids(eval_set: EvalSet, spec: EvalSetSpec) -> list[str]:
    """The ids of the cases ``spec`` selects (all when it names none); an unknown id is refused naming the file."""
    try:
        return [case.eval_id for case in select_cases(eval_set, spec.case_ids)]
    except InputError as exc:
        raise InputError(exc.message, file=spec.source) from None


def find_metrics(
    spec: EvalSetSpec, eval_set_id: str, checked: CheckedRequest, registry: Registry
) -> tuple[list[EvalMetric], str, Path | None]:
    """The metrics of an eval set, where they came from as messages name it, and their file -- the one rule of every
    caller: the request's ``config`` (the metrics, or their file), else the first of :data:`METRICS_FILES` beside
    the eval set's file, else ADK's default criteria."""
    found = given_metrics(checked, registry)
    if found is not None:
        return found
    if spec.path is not None:
        folder = spec.path.parent
        for name in METRICS_FILES:
            candidate = folder / name.format(id=eval_set_id)
            if _is_file(candidate):
                shown = Path(spec.name).parent / candidate.name if spec.name is not None else candidate
                return metrics_file(candidate, registry, checked.report), str(shown), candidate
    return default_adk_metrics(), "ADK default criteria", None


def given_metrics(checked: CheckedRequest, registry: Registry) -> tuple[list[EvalMetric], str, Path | None] | None:
    """The metrics of the request's ``config``, how messages name them and their file (``None`` without a
    ``config``)."""
    config = checked.request.config
    if config is None:
        return None
    if isinstance(config, Path):
        return metrics_file(config, registry, checked.report), str(config), config
    return list(config), checked.surface.name("config"), None


def _is_file(path: Path) -> bool:
    """Whether ``path`` is a file; a name no file can have (e.g. one built from a 300-character ``evalSetId``, over
    the file system's limit) is not one: the id itself is refused, naming the eval set, once the run is planned."""
    try:
        return path.is_file()
    except (OSError, ValueError):  # ENAMETOOLONG; a NUL character
        return False


def metrics_file(path: Path, registry: Registry, report: InputReport | None = None) -> list[EvalMetric]:
    """The metrics of a metrics file: native, ADK ``test_config.json``, or agentevals' ``eval_config.yaml``
    (``.yaml`` / ``.yml``), whose Python code evaluators are registered in ``registry`` as plug-ins; ``report``
    receives the file's unknown keys outside its metrics."""
    if path.suffix.lower() not in (".yaml", ".yml"):
        return load_metrics(path, report=report)
    from ..evaluators import AgentevalsCodeEvaluator

    config = load_agentevals_config(path, report=report)
    for spec in config.code_evaluators:
        evaluator = AgentevalsCodeEvaluator(spec.name, spec.path, config=spec.config, timeout=spec.timeout)
        registry.register(evaluator, name=spec.name)
    return config.metrics


def checked_metrics(
    selection: MetricSelection | None,
    metrics: Sequence[EvalMetric],
    registry: Registry,
    source: str,
    report: InputReport | None = None,
) -> list[str]:
    """Check the metrics of ``source`` before anything runs -- names of the selection, then the metrics that will
    run (names, criteria, thresholds, judge configuration and keys) -- and return the names left out (unknown keys
    go to ``report``)."""
    skipped: list[str] = []
    if selection is not None:
        _, skipped = selection.select(metrics, registry, file=source)
    registry.validate_metrics(metrics, file=source, skip=skipped, report=report)
    registry.check_judges_ready(metrics, file=source, skip=skipped)  # e.g. no API key
    return skipped


def app_name_for(explicit: str | None, sets: Sequence[LoadedSet], explicit_name: str) -> str:
    """``explicit`` (the request's app name, named ``explicit_name`` in messages), else the first
    ``sessionInput.appName`` of the sets, else the first set's id."""
    candidates: list[tuple[str, str | None, str]] = [(explicit, None, explicit_name)] if explicit else []
    for loaded in sets:
        source = loaded.spec.source
        candidates += [
            (case.session_input.app_name, source, f"evalCases[{index}].sessionInput.appName")
            for index, case in enumerate(loaded.eval_set.eval_cases)
            if case.session_input is not None
        ]
        candidates.append((loaded.eval_set.eval_set_id, source, "evalSetId"))
    found = next((candidate for candidate in candidates if candidate[0]), None)
    if found is None:
        raise InputError(
            f"must not be empty: it names the app when neither {explicit_name} nor a case's sessionInput.appName does",
            file=sets[0].spec.source if sets else None,
            location="evalSetId",
        )
    name, file, location = found
    try:
        return check_segment(name, "app name")
    except InputError as exc:
        raise InputError(exc.message, file=file, location=location) from None


def check_result_places(sets: Sequence[LoadedSet], app: str, results: object, output_dir: Path) -> None:
    """A result that cannot be saved must fail now, not after the run: files under ``output_dir`` (or the local
    result manager's folder) need valid, short enough names; a SQL store's ids must fit its columns."""
    if isinstance(results, InMemoryEvalResultManager):
        return
    folder = results.base_dir if isinstance(results, LocalEvalResultManager) else output_dir
    for loaded in sets:
        set_id, source = loaded.eval_set.eval_set_id, loaded.spec.source
        if results is None or isinstance(results, LocalEvalResultManager):
            check_result_location(Path(folder), app, set_id, source)
        else:
            check_result_id(app, set_id, source)


def check_result_location(output_dir: Path, app: str, eval_set_id: str, source: str) -> None:
    """Check that the result of eval set ``eval_set_id`` (from ``source``) of app ``app`` can be saved under
    ``output_dir``: a non-empty id, path segments that are valid names and a file name the file system accepts
    (with room for the temporary file of the atomic write)."""
    if not eval_set_id:
        raise InputError(
            "must not be empty: results are saved under the eval set id", file=source, location="evalSetId"
        )
    sample_id = f"{app}_{eval_set_id}_00000000-0000-0000-0000-000000000000"  # the form of the real id
    try:
        path = LocalEvalResultManager(base_dir=output_dir).path_for(app, sample_id)
    except InvalidIdError as exc:
        if exc.limit is None:  # not a matter of length: the name itself is refused
            raise InputError(exc.message, file=source, location="evalSetId") from None
        path = output_dir / app / f"{sample_id}{RESULT_SUFFIX}"  # too long: said below, naming the file
    name_max = _name_max(output_dir)
    for part, extra in ((app, 0), (path.name, _TEMP_EXTRA)):
        size = len(os.fsencode(part)) + extra
        if size > name_max:
            raise InputError(
                f"too long: the result file name {path.name[:60]!r}... would need {size} bytes, over the file "
                f"system's limit of {name_max} (shorten the app name or the evalSetId)",
                file=source,
                location="evalSetId",
            )


def _name_max(folder: Path) -> int:
    for candidate in (folder, *folder.absolute().parents):
        if candidate.is_dir():
            try:
                return min(_NAME_MAX, os.pathconf(candidate, "PC_NAME_MAX"))
            except (OSError, ValueError, AttributeError):
                break
    return _NAME_MAX
