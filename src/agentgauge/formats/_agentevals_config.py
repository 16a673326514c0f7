"""agentevals' ``eval_config.yaml`` (agentevals-cli 0.11) read as agentgauge metrics.

The file holds an ``evaluators`` list; each entry has a ``name`` and a ``type``:

- ``builtin``: an ADK metric (``tool_trajectory_avg_score``, ``response_match_score``, ``final_response_match_v2``,
  ``hallucinations_v1``, ``rubric_based_*``, ...) with optional ``threshold`` (agentevals' default 0.5),
  ``trajectory_match_type`` (``EXACT`` by default, ``IN_ORDER``, ``ANY_ORDER``), ``judge_model`` and ``rubrics``
  (strings or ``{id, text}``). It becomes a metric with an ADK criterion, so it is scored with ADK semantics.
- ``code`` with a ``.py`` ``path``: a Python evaluator speaking agentevals' JSON protocol on stdin/stdout (the
  ``agentevals-evaluator-sdk`` ``@evaluator`` scripts). It is returned as a :class:`CodeEvaluatorSpec`, which the
  caller registers as a plug-in evaluator under the entry's name (see
  :class:`agentgauge.evaluators.AgentevalsCodeEvaluator`).

Anything else (``remote`` evaluators fetched from GitHub, ``.js``/``.ts`` code, agentevals' removed legacy keys) is
refused with one :class:`~agentgauge.errors.InputError` line naming the file and the entry.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import InputError
from ..model import Criterion, EvalMetric
from ._metric_keys import agentevals_key_problems
from ._problems import InputReport

__all__ = [
    "AGENTEVALS_DEFAULT_THRESHOLD",
    "AgentevalsConfig",
    "CodeEvaluatorSpec",
    "load_agentevals_config",
    "read_yaml_mapping",
]

AGENTEVALS_DEFAULT_THRESHOLD = 0.5
"""The threshold agentevals gives an evaluator that names none."""

_LEGACY_KEYS = ("custom_evaluators", "judge_model", "metrics", "threshold", "trajectory_match_type")
_MATCH_TYPES = ("EXACT", "IN_ORDER", "ANY_ORDER")
_JUDGED = ("final_response_match_v2", "hallucinations_v1", "rubric_based_", "per_turn_user_simulator_quality_v1")


@dataclass(slots=True)
class CodeEvaluatorSpec:
    """A ``type: code`` evaluator: its metric ``name``, the script ``path`` (absolute), ``threshold``,
    ``timeout`` in seconds and the ``config`` object passed to it."""

    name: str
    path: Path
    threshold: float = AGENTEVALS_DEFAULT_THRESHOLD
    timeout: float = 30.0
    config: dict[str, Any] = field(default_factory=dict)


@dataclass(slots=True)
class AgentevalsConfig:
    """What an ``eval_config.yaml`` holds: the metrics in file order (code evaluators included, by name), the
    code evaluators to register, and the ``eval_set`` it names (resolved against the file's folder), if any."""

    metrics: list[EvalMetric]
    code_evaluators: list[CodeEvaluatorSpec]
    eval_set: Path | None = None


def _threshold(entry: dict[str, Any], source: str, where: str) -> float:
    value = entry.get("threshold")
    if value is None:
        return AGENTEVALS_DEFAULT_THRESHOLD
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value <= 1:
        raise InputError(f"threshold must be a number from 0 to 1 (got {value!r})", file=source, location=where)
    return float(value)


def _rubrics(value: Any, source: str, where: str) -> list[dict[str, Any]]:
    if not isinstance(value, list):
        raise InputError("rubrics must be a list of strings or {id, text} mappings", file=source, location=where)
    out = []
    for index, item in enumerate(value):
        if isinstance(item, str):
            rubric_id, text = f"rubric_{index}", item
        elif isinstance(item, dict) and isinstance(item.get("text"), str) and isinstance(item.get("id"), str):
            rubric_id, text = item["id"], item["text"]
        else:
            raise InputError("expected a string or an {id, text} mapping", file=source, location=f"{where}[{index}]")
        out.append({"rubric_id": rubric_id, "rubric_content": {"text_property": text}})
    return out


def _builtin(entry: dict[str, Any], source: str, where: str) -> EvalMetric:
    name = entry["name"]
    threshold = _threshold(entry, source, f"{where}.threshold")
    adk: dict[str, Any] = {"threshold": threshold}
    if name == "tool_trajectory_avg_score":
        match = entry.get("trajectory_match_type", entry.get("trajectoryMatchType")) or "EXACT"
        if not isinstance(match, str) or match.upper() not in _MATCH_TYPES:
            raise InputError(
                f"trajectory_match_type must be one of {', '.join(_MATCH_TYPES)} (got {match!r})",
                file=source,
                location=f"{where}.trajectory_match_type",
            )
        adk["match_type"] = match.upper()
    judge = entry.get("judge_model", entry.get("judgeModel"))
    if name.startswith(_JUDGED):
        adk["judge_model_options"] = {"judge_model": judge} if isinstance(judge, str) and judge else {}
    if entry.get("rubrics") is not None:
        adk["rubrics"] = _rubrics(entry["rubrics"], source, f"{where}.rubrics")
    return EvalMetric(metric_name=name, threshold=threshold, criterion=Criterion(adk=adk))


def _code(entry: dict[str, Any], folder: Path, source: str, where: str) -> CodeEvaluatorSpec:
    raw = entry.get("path")
    if not isinstance(raw, str) or not raw:
        raise InputError("a code evaluator needs a 'path'", file=source, location=f"{where}.path")
    path = Path(raw) if Path(raw).is_absolute() else folder / raw
    if path.suffix.lower() != ".py":
        raise InputError(
            f"code evaluator {entry['name']!r}: only Python (.py) evaluators run in agentgauge, not {path.suffix!r}",
            file=source,
            location=f"{where}.path",
        )
    if not path.is_file():
        raise InputError(f"evaluator file not found: {path}", file=source, location=f"{where}.path")
    config = entry.get("config") or {}
    if not isinstance(config, dict):
        raise InputError("config must be a mapping", file=source, location=f"{where}.config")
    timeout = entry.get("timeout", 30)
    if isinstance(timeout, bool) or not isinstance(timeout, int | float) or timeout <= 0:
        raise InputError(
            f"timeout must be a positive number (got {timeout!r})", file=source, location=f"{where}.timeout"
        )
    return CodeEvaluatorSpec(entry["name"], path.resolve(), _threshold(entry, source, f"{where}.threshold"),
                             float(timeout), config)  # fmt: skip


def _document(source: str) -> dict[str, Any]:
    """The YAML mapping of an ``eval_config.yaml`` (see :func:`read_yaml_mapping`)."""
    from ._jsonio import read_bytes

    return read_yaml_mapping(read_bytes(source), source, expected="'evaluators'")


def read_yaml_mapping(data: bytes, source: str, *, expected: str) -> dict[str, Any]:
    """The YAML mapping in ``data``: UTF-8 text (a byte order mark is skipped), nested at most
    :data:`~._jsonio.MAX_DEPTH` levels (checked on the parser's events, which need no recursion, before anything is
    built); anything else is one :class:`InputError` naming ``source`` and the line (``expected`` says what the
    mapping holds, for the message about a document that is not one)."""
    try:
        import yaml
    except ImportError:  # pragma: no cover - PyYAML is a dependency
        raise InputError("reading YAML needs PyYAML (pip install pyyaml)", file=source) from None

    text = _utf8_text(data, source)
    try:
        _check_yaml_depth(yaml.parse(text), source)
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"line {mark.line + 1}" if mark is not None else None
        raise InputError(f"invalid YAML: {getattr(exc, 'problem', None) or exc}", file=source, location=where) from None
    if not isinstance(data, dict):
        raise InputError(f"expected a YAML mapping with {expected} (got {type(data).__name__})", file=source)
    return data


def _utf8_text(data: bytes, source: str) -> str:
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        raise InputError("the file is UTF-16 text: save it as UTF-8 (agentevals reads UTF-8)", file=source)
    try:
        return data.decode("utf-8").removeprefix("\ufeff")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise InputError(
            f"not UTF-8 text: byte 0x{data[exc.start]:02x} cannot be read (save the file as UTF-8)",
            file=source,
            location=f"line {line}",
        ) from None


def _check_yaml_depth(events: Any, source: str) -> None:
    import yaml

    from ._jsonio import MAX_DEPTH

    depth = 0
    for event in events:
        if isinstance(event, yaml.CollectionStartEvent):
            depth += 1
            if depth > MAX_DEPTH:
                where = f"line {event.start_mark.line + 1}" if event.start_mark is not None else None
                message = f"nested deeper than {MAX_DEPTH} levels of mappings and lists"
                raise InputError(message, file=source, location=where)
        elif isinstance(event, yaml.CollectionEndEvent):
            depth -= 1


def load_agentevals_config(path: str | os.PathLike[str], *, report: InputReport | None = None) -> AgentevalsConfig:
    """Read an agentevals ``eval_config.yaml`` (see the module docstring); :class:`InputError` for anything it
    cannot run, with the entry's position (``evaluators[2].type``). ``report`` receives its unknown keys."""
    source = os.fspath(path)
    data = _document(source)
    legacy = [key for key in _LEGACY_KEYS if key in data]
    if legacy:
        raise InputError(
            f"agentevals' legacy keys ({', '.join(legacy)}) are not read: list the metrics under 'evaluators' "
            "(agentevals 0.11 refuses them too)",
            file=source,
        )
    entries = data.get("evaluators")
    if not isinstance(entries, list) or not entries:
        raise InputError("expected a non-empty 'evaluators' list", file=source, location="evaluators")
    if report is not None:
        report.extend(agentevals_key_problems(data, entries, source))
    folder = Path(source).resolve().parent
    metrics: list[EvalMetric] = []
    codes: list[CodeEvaluatorSpec] = []
    seen: set[str] = set()
    for index, entry in enumerate(entries):
        where = f"evaluators[{index}]"
        if not isinstance(entry, dict) or not isinstance(entry.get("name"), str) or not entry["name"]:
            raise InputError("expected a mapping with a 'name' and a 'type'", file=source, location=where)
        name, kind = entry["name"], entry.get("type")
        if name in seen:
            raise InputError(f"evaluator name {name!r} is used twice", file=source, location=f"{where}.name")
        seen.add(name)
        if kind == "builtin":
            metrics.append(_builtin(entry, source, where))
        elif kind == "code":
            spec = _code(entry, folder, source, where)
            codes.append(spec)
            metrics.append(EvalMetric(metric_name=name, threshold=spec.threshold))
        else:
            why = "remote evaluators are fetched by agentevals at run time" if kind == "remote" else "unknown type"
            raise InputError(
                f"evaluator {name!r} of type {kind!r} is not supported ({why}); agentgauge runs 'builtin' metrics and "
                "Python 'code' evaluators",
                file=source,
                location=f"{where}.type",
            )
    eval_set = data.get("eval_set")
    return AgentevalsConfig(metrics, codes, folder / eval_set if isinstance(eval_set, str) and eval_set else None)
