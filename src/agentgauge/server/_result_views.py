"""Stored results as the replay and the timeline read them: parsed whole once per version of the file.

A result file is parsed again only when it changes (:class:`~agentgauge.server._cache.FileMemo`); a result in a SQL
store has no file version and is read each time. The lists (results, cases, history) read the result's digest
instead (:meth:`~agentgauge.server._history.ResultHistory.digest`), which needs no full parse.
"""

from __future__ import annotations

from pathlib import Path

from ..model import EvalCaseResult, EvalSetResult
from ._cache import FileMemo
from ._safety import public_result
from ._state import ServerState

__all__ = ["case_runs", "load_result"]

_RESULTS: FileMemo[EvalSetResult] = FileMemo(8)
"""Parsed results (a 5,000-case result is a few MB: only the last few opened are kept)."""


def _path(state: ServerState, app: str, result_id: str) -> Path | None:
    return state.results.source_of(app, result_id).path_for(app, result_id)


def load_result(state: ServerState, app: str, result_id: str) -> EvalSetResult:
    """The result as it may be sent over HTTP (no tracebacks unless ``--debug``); :class:`NotFoundError` when no
    source holds it."""

    def parse(_: Path) -> EvalSetResult:
        return state.results.get(app, result_id)

    path = _path(state, app, result_id)
    found = _RESULTS.get(path, parse) if path is not None else None
    # Tracebacks are dropped per request: servers with and without --debug may share the memo.
    return public_result(found if found is not None else parse(Path()), state.config.debug)


def case_runs(result: EvalSetResult, eval_id: str) -> list[EvalCaseResult]:
    """The runs of one case in the result, by run id."""
    return sorted((c for c in result.eval_case_results if c.eval_id == eval_id), key=lambda c: c.run_id)
