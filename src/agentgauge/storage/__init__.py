"""Storage for eval sets, metrics and results: local files and in-memory managers, locators, atomic writes.

All managers are synchronous. In-memory managers are thread-safe; local managers change a file only while holding
its lock (``.agentgauge-locks/<file>.lock`` beside it), so they are safe across threads, instances and processes.
Ids that become path segments are validated (no ``/``, ``\\``, NUL, ``.``/``..``, absolute or empty ids); a missing
item raises :class:`~agentgauge.errors.NotFoundError`. Writes are atomic and go through symbolic links; FIFOs,
devices, sockets and directories are refused as targets (:func:`check_output_target`).

A result a command reads is named by a selector (a file, an id, ``label:KEY=VALUE``, ``latest``):
:func:`resolve_result` finds it in a :class:`ResultCatalog` (:class:`ResultFiles`: the files under a folder).
"""

from .._util.fileio import NotARegularFileError, atomic_write, check_output_target
from ._evalset import EvalSetManager, InMemoryEvalSetManager, LocalEvalSetManager
from ._ids import check_segment
from ._labels import LABELS_SUFFIX, LabelFile, dump_labels, labels_path_for, parse_labels, read_labels
from ._locator import (
    EVALSET_SUFFIX,
    METRICS_SUFFIX,
    RESULT_SUFFIX,
    Locator,
    SuffixLocator,
    default_evalset_locator,
    default_metrics_locator,
    default_result_locator,
)
from ._metric import InMemoryMetricManager, LocalMetricManager, MetricManager
from ._result import EvalResultManager, InMemoryEvalResultManager, LocalEvalResultManager
from ._selector import (
    LABEL_SELECTOR,
    LATEST_SELECTOR,
    FoundResult,
    ResultCatalog,
    ResultFiles,
    ResultSelector,
    SelectorKind,
    Wanted,
    parse_result_selector,
    resolve_pair,
    resolve_result,
)

__all__ = [
    "EVALSET_SUFFIX",
    "LABELS_SUFFIX",
    "LABEL_SELECTOR",
    "LATEST_SELECTOR",
    "METRICS_SUFFIX",
    "RESULT_SUFFIX",
    "EvalResultManager",
    "EvalSetManager",
    "FoundResult",
    "InMemoryEvalResultManager",
    "InMemoryEvalSetManager",
    "InMemoryMetricManager",
    "LabelFile",
    "LocalEvalResultManager",
    "LocalEvalSetManager",
    "LocalMetricManager",
    "Locator",
    "MetricManager",
    "NotARegularFileError",
    "ResultCatalog",
    "ResultFiles",
    "ResultSelector",
    "SelectorKind",
    "SuffixLocator",
    "Wanted",
    "atomic_write",
    "check_output_target",
    "check_segment",
    "default_evalset_locator",
    "default_metrics_locator",
    "default_result_locator",
    "dump_labels",
    "labels_path_for",
    "parse_labels",
    "parse_result_selector",
    "read_labels",
    "resolve_pair",
    "resolve_result",
]
