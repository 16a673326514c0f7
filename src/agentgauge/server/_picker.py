"""``/api`` routes of the metric picker: every registered metric with its description, value range, default
threshold and whether it needs a judge, marked with the eval set's current choice (threshold, judge settings without
any key value), and saving a choice to the set's metrics file in that file's own dialect.

The set's metrics file is the one ``agentgauge eval`` reads: ``<evalSetId>.metrics.json`` beside the set, else
ADK's ``test_config.json`` beside it. A native file (a JSON array) stays an array; an ADK file (an object with
``criteria``) stays an ADK file that google-adk loads, its other keys and the criteria's own options kept. Without
a file, the choice is saved as ``<evalSetId>.metrics.json``, in ADK's shape when the eval set is an ADK file.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Response
from pydantic import AfterValidator, Field, StringConstraints

from ..errors import InputError, NotFoundError
from ._answers import Answer
from ._deps import StateDep
from ._requests import _Body, _valid_text
from ._state import LOCK_DIR, ServerState

__all__ = ["PickerAnswer", "PickerChoice", "PickerMetric", "PickerSaveBody", "router"]

router = APIRouter()
"""``/apps/{app}/eval-sets/{set_id}/metric-picker`` (mounted under ``/api``)."""

_SECRET_WORDS = ("key", "secret", "token", "password", "credential")
_JUDGE_KEYS = ("judge_model_options", "judgeModelOptions")
_LLM_KEYS = ("llmJudge", "llm_judge")


class PickerMetric(Answer):
    """A registered metric and the set's current choice of it (``chosen``, ``threshold``, ``judge``: the judge
    settings its file gives, key values never shown)."""

    name: str
    description: str
    min_value: float
    max_value: float | None = None
    default_threshold: float
    needs_expected: bool
    needs_judge: bool
    chosen: bool = False
    threshold: float | None = None
    judge: dict[str, str] = Field(default_factory=dict)


class PickerAnswer(Answer):
    """The metrics file of the set (``file``: its name, ``None`` when there is none and a save would create
    ``saveAs``), its dialect (``native``: an array; ``adk``: ADK's ``test_config.json`` object), its scoring dialect
    (``adk-ts`` when it says so) and every registered metric."""

    file: str | None = None
    save_as: str
    dialect: Literal["native", "adk"]
    scoring_dialect: str | None = None
    metrics: list[PickerMetric]


class PickerChoice(_Body):
    """One chosen metric: its name, threshold and (for a judge metric) the judge model's name."""

    metric_name: Annotated[str, StringConstraints(min_length=1, max_length=255), AfterValidator(_valid_text)]
    threshold: float = Field(allow_inf_nan=False)
    judge_model: Annotated[str, StringConstraints(max_length=255), AfterValidator(_valid_text)] | None = None


class PickerSaveBody(_Body):
    """``PUT .../metric-picker``: ``{metrics: [{metricName, threshold, judgeModel?}]}`` (the whole choice)."""

    metrics: list[PickerChoice]


def _metrics_file(state: ServerState, app: str, set_id: str) -> tuple[Path | None, Path, Literal["native", "adk"]]:
    """``(existing file or None, file a save writes, dialect)``."""
    folder = state.config.eval_root / app
    own = folder / f"{set_id}.metrics.json"
    for candidate in (own, folder / "test_config.json"):
        if candidate.is_file():
            try:
                document = json.loads(candidate.read_bytes())
            except (OSError, ValueError) as exc:
                raise InputError(f"cannot read the metrics file: {exc}", file=str(candidate)) from None
            return candidate, candidate, "adk" if isinstance(document, dict) else "native"
    try:
        dialect = state.eval_sets.dialect(app, set_id)
    except NotFoundError:
        raise NotFoundError(f"eval set {set_id!r} of app {app!r} not found") from None
    return None, own, "adk" if str(dialect).startswith("adk") else "native"


def _safe(settings: dict[str, Any], prefix: str = "") -> dict[str, str]:
    """Judge settings as text, key values replaced (``apiKey: (set, hidden)``)."""
    out: dict[str, str] = {}
    for key, value in settings.items():
        name = f"{prefix}{key}"
        if any(word in str(key).lower() for word in _SECRET_WORDS) and "env" not in str(key).lower():
            out[name] = "(set, hidden)" if value else "(empty)"
        elif isinstance(value, dict):
            out.update(_safe(value, f"{name}."))
        elif value is not None and not isinstance(value, list):
            out[name] = str(value)
    return out


def _judge_of(entry: Any) -> dict[str, str]:
    if not isinstance(entry, dict):
        return {}
    criterion = entry.get("criterion") if isinstance(entry.get("criterion"), dict) else entry
    for key in (*_JUDGE_KEYS, *_LLM_KEYS):
        if isinstance(criterion, dict) and isinstance(criterion.get(key), dict):
            block = criterion[key]
            return _safe(block)
    return {}


def _current(path: Path | None) -> tuple[dict[str, Any], Any]:
    """The file's entries by metric name (the threshold number or the entry object) and its whole document."""
    if path is None:
        return {}, None
    document = json.loads(path.read_bytes())
    if isinstance(document, dict):
        criteria = document.get("criteria")
        return (dict(criteria) if isinstance(criteria, dict) else {}), document
    entries = {str(e.get("metricName", e.get("metric_name"))): e for e in document if isinstance(e, dict)}
    return entries, document


def _threshold_of(entry: Any) -> float | None:
    if isinstance(entry, (int, float)) and not isinstance(entry, bool):
        return float(entry)
    if isinstance(entry, dict) and isinstance(entry.get("threshold"), (int, float)):
        return float(entry["threshold"])
    return None


def _default_threshold(name: str, low: float, high: float) -> float:
    from ..formats import ADK_DEFAULT_CRITERIA

    if name in ADK_DEFAULT_CRITERIA:
        return ADK_DEFAULT_CRITERIA[name]
    return high if not math.isinf(high) else low  # a score must reach the top of its range unless told otherwise


@router.get("/apps/{app}/eval-sets/{set_id}/metric-picker")
def get_picker(app: str, set_id: str, state: StateDep) -> PickerAnswer:
    """Every registered metric (description, range, default threshold, judge?) with the set's current choice from
    its metrics file, the file's name and dialect."""
    state.check_app(app)
    found, target, dialect = _metrics_file(state, app, set_id)
    entries, document = _current(found)
    metrics = []
    for info in state.registry.infos():
        entry = entries.get(info.name)
        metrics.append(
            PickerMetric(
                name=info.name,
                description=info.description,
                min_value=info.min_value,
                max_value=None if math.isinf(info.max_value) else info.max_value,
                default_threshold=_default_threshold(info.name, info.min_value, info.max_value),
                needs_expected=info.needs_expected,
                needs_judge=info.needs_judge,
                chosen=info.name in entries,
                threshold=_threshold_of(entry),
                judge=_judge_of(entry),
            )
        )
    scoring = document.get("dialect") if isinstance(document, dict) else None
    return PickerAnswer(
        file=found.name if found is not None else None,
        save_as=target.name,
        dialect=dialect,
        scoring_dialect=scoring if isinstance(scoring, str) else None,
        metrics=metrics,
    )


def _adk_entry(old: Any, choice: PickerChoice) -> Any:
    if isinstance(old, dict):
        entry = {**old, "threshold": choice.threshold}
    elif choice.judge_model:
        entry = {"threshold": choice.threshold}
    else:
        return choice.threshold  # a bare threshold, as ADK writes one
    if choice.judge_model:
        options: dict[str, Any] = next((entry[k] for k in _JUDGE_KEYS if isinstance(entry.get(k), dict)), {})
        entry["judge_model_options"] = {**options, "judge_model": choice.judge_model}
        entry.pop("judgeModelOptions", None)
    return entry


def _native_entry(old: Any, choice: PickerChoice) -> dict[str, Any]:
    entry: dict[str, Any] = dict(old) if isinstance(old, dict) else {"metricName": choice.metric_name}
    entry["threshold"] = choice.threshold
    if choice.judge_model:
        kept = entry.get("criterion")
        criterion: dict[str, Any] = dict(kept) if isinstance(kept, dict) else {}
        found = criterion.get("llmJudge") or criterion.pop("llm_judge", None)
        llm: dict[str, Any] = dict(found) if isinstance(found, dict) else {}
        llm["judgeModel"] = {**(llm.get("judgeModel") or {}), "modelName": choice.judge_model}
        criterion["llmJudge"] = llm
        entry["criterion"] = criterion
    return entry


def _new_document(body: PickerSaveBody, entries: dict[str, Any], document: Any, dialect: str) -> Any:
    names = [c.metric_name for c in body.metrics]
    duplicates = sorted({n for n in names if names.count(n) > 1})
    if duplicates:
        raise InputError(f"metrics: metric {duplicates[0]!r} is chosen twice")
    if dialect == "adk":
        criteria = {c.metric_name: _adk_entry(entries.get(c.metric_name), c) for c in body.metrics}
        kept = dict(document) if isinstance(document, dict) else {}
        custom = kept.get("custom_metrics")
        if isinstance(custom, dict):  # a custom metric's code stays with its criterion, and goes with it
            kept["custom_metrics"] = {k: v for k, v in custom.items() if k in criteria}
        return {**kept, "criteria": criteria}
    return [_native_entry(entries.get(c.metric_name), c) for c in body.metrics]


@router.put("/apps/{app}/eval-sets/{set_id}/metric-picker")
def save_picker(app: str, set_id: str, body: PickerSaveBody, state: StateDep, response: Response) -> PickerAnswer:
    """Save the chosen metrics to the set's metrics file in its dialect (names, thresholds, keys and judge models
    are checked first, as ``agentgauge validate`` checks them; an entry's other options are kept); answers the
    picker as it now stands, the file's input warnings in the ``X-Agentgauge-Warnings`` header."""
    from .._util.fileio import atomic_write
    from ..formats import MetricPaths
    from ..formats._jsonio import dump_json
    from ..formats._metrics import metrics_from_document
    from ..storage._lock import file_lock
    from ._editor import refuse_errors, server_report, warnings_header

    state.check_app(app)
    _, target, dialect = _metrics_file(state, app, set_id)
    report = server_report(state)
    with file_lock(target, lock_dir=state.config.data_dir / LOCK_DIR):
        found = target if target.is_file() else None
        entries, document = _current(found)
        new = _new_document(body, entries, document, dialect)
        metrics = metrics_from_document(new, source="metrics", expand=False, report=report)
        paths = MetricPaths("test_config") if dialect == "adk" else MetricPaths()
        state.registry.validate_metrics(metrics, file="metrics", report=report, paths=paths)
        refuse_errors(report, "metrics not saved")
        atomic_write(target, dump_json(new))
    response.headers.update(warnings_header(report))
    return get_picker(app, set_id, state)
