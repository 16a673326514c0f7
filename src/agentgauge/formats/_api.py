"""Public load / parse / save functions and document-kind detection."""

from __future__ import annotations

import io
import os
from pathlib import Path
from typing import Any, Literal, TypeVar

from .._util.fileio import atomic_write
from ..errors import InputError
from ..model import EvalMetric, EvalSet, EvalSetResult
from ._adk_write import to_adk_eval_set
from ._evalset_read import describe_document, eval_set_from_document, is_scenarios_document
from ._jsonio import dump_json, open_input, parse_json, read_bytes
from ._keys import has_key
from ._legacy import is_legacy_document
from ._metrics import metrics_from_document, to_test_config
from ._problems import InputReport
from ._results import result_from_document, to_adk_result
from ._stream import stream_eval_set
from ._unknown import EvalSetKeys

__all__ = [
    "DocumentKind",
    "Format",
    "NeitherSetNorResultError",
    "default_id_for",
    "detect_kind",
    "dump_metrics",
    "eval_set_of_document",
    "load_eval_set",
    "load_metrics",
    "load_result",
    "load_set_or_result",
    "parse_eval_set",
    "parse_metrics",
    "parse_result",
    "save_eval_set",
    "save_metrics",
    "save_result",
]

_T = TypeVar("_T")

Format = Literal["native", "adk"]
DocumentKind = Literal["eval_set", "metrics", "result"]

_SUFFIXES = (".evalset_result.json", ".evalset.json", ".metrics.json", ".test.json", ".json")


def default_id_for(source: str) -> str:
    """The id a file implies: its name without ``.evalset.json`` / ``.test.json`` / ``.json``."""
    name = Path(source).name
    for suffix in _SUFFIXES:
        if name.endswith(suffix) and len(name) > len(suffix):
            return name[: -len(suffix)]
    return name or "eval_set"


def detect_kind(doc: Any) -> DocumentKind | None:
    """Which kind of document a parsed JSON value is, or ``None`` when it is none of them."""
    if isinstance(doc, str):
        return "result" if doc.lstrip().startswith("{") else None
    if isinstance(doc, dict):
        if has_key(doc, "eval_cases") or is_scenarios_document(doc):
            return "eval_set"
        if has_key(doc, "eval_case_results") or has_key(doc, "eval_set_result_id"):
            return "result"
        if "criteria" in doc:
            return "metrics"
        return None
    if isinstance(doc, list):
        if is_legacy_document(doc):
            return "eval_set"
        if not doc or (isinstance(doc[0], dict) and has_key(doc[0], "metric_name")):
            return "metrics"
    return None


def _check_format(fmt: str) -> None:
    if fmt not in ("native", "adk"):
        raise InputError(f"unknown format {fmt!r}: expected 'native' or 'adk'")


def parse_eval_set(data: bytes | str, *, source: str = "<input>", report: InputReport | None = None) -> EvalSet:
    """Parse an eval set in any supported format (native/trpc, ADK, ADK-TS, ADK legacy) into the native model;
    ``report`` receives its unknown keys (see :class:`InputReport`)."""
    if isinstance(data, str):
        data = data.encode("utf-8", "surrogatepass")
    keys = EvalSetKeys(source) if report is not None else None
    streamed = stream_eval_set(io.BytesIO(data).read, source, keys)
    if streamed is not None:
        return _reported(keys, report, streamed)
    return eval_set_of_document(parse_json(data, source), source, report=report)


def load_eval_set(path: str | os.PathLike[str], *, report: InputReport | None = None) -> EvalSet:
    """Load an eval set file in any supported format; errors name the file and JSON path. ``report`` receives its
    unknown keys (those of the cases read so far when the file is refused)."""
    source = os.fspath(path)
    keys = EvalSetKeys(source) if report is not None else None
    with open_input(source) as handle:  # refuses FIFOs, devices and directories before reading
        try:
            # An eval set object is read one case at a time, keeping memory low; anything else is read whole.
            streamed = stream_eval_set(handle.read, source, keys)
        except OSError:
            streamed = None  # read_bytes reports it
    if streamed is not None:
        return _reported(keys, report, streamed)
    data = read_bytes(source)
    doc = parse_json(data, source)
    del data  # the parsed tree is all we need from here on
    return eval_set_of_document(doc, source, report=report)


def eval_set_of_document(doc: Any, source: str, *, report: InputReport | None = None) -> EvalSet:
    """The eval set of a parsed document (which is consumed: read it again for anything else), its id defaulting
    to ``source``'s file name; ``report`` receives its unknown keys, also those met before a case that is refused."""
    keys = EvalSetKeys(source) if report is not None else None
    try:
        eval_set = eval_set_from_document(doc, source, default_id=default_id_for(source), consume=True, keys=keys)
    except InputError:
        _reported(keys, report, None)
        raise
    return _reported(keys, report, eval_set)


def _reported(keys: EvalSetKeys | None, report: InputReport | None, eval_set: _T) -> _T:
    """``eval_set``, once the unknown keys gathered in ``keys`` are in ``report``."""
    if keys is not None and report is not None:
        report.extend(keys.problems())
    return eval_set


def save_eval_set(eval_set: EvalSet, path: str | os.PathLike[str], *, fmt: Format = "native") -> None:
    """Write an eval set atomically, as native camelCase JSON (default) or as an ADK EvalSet (``fmt="adk"``)."""
    atomic_write(path, dump_json(eval_set_document(eval_set, fmt)))


def eval_set_document(eval_set: EvalSet, fmt: Format = "native") -> Any:
    """The JSON document :func:`save_eval_set` writes, as Python data."""
    _check_format(fmt)
    return to_adk_eval_set(eval_set) if fmt == "adk" else eval_set.model_dump(mode="json")


def parse_metrics(
    data: bytes | str, *, source: str = "<input>", expand: bool = True, report: InputReport | None = None
) -> list[EvalMetric]:
    """Parse a native metrics array or an ADK ``test_config.json``; ``expand`` controls judgeModel env expansion;
    ``report`` receives the unknown keys of the document outside its metrics."""
    return metrics_from_document(parse_json(data, source), source, expand=expand, report=report)


def load_metrics(
    path: str | os.PathLike[str], *, expand: bool = True, report: InputReport | None = None
) -> list[EvalMetric]:
    """Load a native ``.metrics.json`` array (``${VAR}``/``$VAR`` expanded in judgeModel providerName, modelName,
    variant, baseURL and apiKey only) or an ADK ``test_config.json`` (one metric per criterion, ADK semantics);
    ``report`` receives the unknown keys of the document outside its metrics."""
    source = os.fspath(path)
    return metrics_from_document(parse_json(read_bytes(source), source), source, expand=expand, report=report)


def dump_metrics(metrics: list[EvalMetric], *, fmt: Format = "native", source: str = "<metrics>") -> bytes:
    """Metrics as JSON bytes: a native array, or (``fmt="adk"``) a ``test_config.json`` object. API keys are blanked.

    ``source`` names the file the metrics came from in the error raised when one has no ADK form.
    """
    _check_format(fmt)
    doc: Any = to_test_config(metrics, source) if fmt == "adk" else [m.model_dump(mode="json") for m in metrics]
    return dump_json(doc)


def save_metrics(
    metrics: list[EvalMetric], path: str | os.PathLike[str], *, fmt: Format = "native", source: str = "<metrics>"
) -> None:
    """Write metrics atomically (see :func:`dump_metrics`)."""
    atomic_write(path, dump_metrics(metrics, fmt=fmt, source=source))


def parse_result(data: bytes | str, *, source: str = "<input>") -> EvalSetResult:
    """Parse a result: native, ADK (snake/camel, int statuses) or ADK's legacy string-wrapped JSON."""
    return result_from_document(parse_json(data, source), source)


def load_result(path: str | os.PathLike[str]) -> EvalSetResult:
    """Load a result file (native, ADK, or ADK's legacy string-wrapped JSON)."""
    source = os.fspath(path)
    return result_from_document(parse_json(read_bytes(source), source), source)


class NeitherSetNorResultError(InputError):
    """A JSON document that is neither an eval set nor a result (recorded traces, say, to a caller that reads
    those too)."""


def load_set_or_result(path: str | os.PathLike[str]) -> tuple[EvalSet | EvalSetResult, Format]:
    """Load a file that is either an eval set or a result (any supported format), with the format it is written
    in (``adk`` for Google ADK's snake_case or camelCase forms, else ``native``); :class:`NeitherSetNorResultError`
    for a JSON document that is neither."""
    from ._dialect import document_dialect

    source = os.fspath(path)
    doc = parse_json(read_bytes(source), source)
    kind = detect_kind(doc)
    if kind == "result":
        snake = isinstance(doc, str) or (isinstance(doc, dict) and "eval_set_result_id" in doc)
        return result_from_document(doc, source), "adk" if snake else "native"
    if kind != "eval_set":
        raise NeitherSetNorResultError(f"neither an eval set nor a result: {describe_document(doc)}", file=source)
    dialect = document_dialect(doc)
    return eval_set_from_document(doc, source, default_id=default_id_for(source), consume=True), (
        "native" if dialect == "native" else "adk"
    )


def save_result(result: EvalSetResult, path: str | os.PathLike[str], *, fmt: Format = "native") -> None:
    """Write a result atomically, native camelCase (default) or ADK EvalSetResult (``fmt="adk"``)."""
    atomic_write(path, dump_json(result_document(result, fmt)))


def result_document(result: EvalSetResult, fmt: Format = "native") -> Any:
    """The JSON document :func:`save_result` writes, as Python data."""
    _check_format(fmt)
    return to_adk_result(result) if fmt == "adk" else result.model_dump(mode="json")


def describe(doc: Any) -> str:
    """A short description of a parsed document (for 'unknown document' messages)."""
    return describe_document(doc)
