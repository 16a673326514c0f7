"""Result selectors on the command line: where every command that reads a result looks it up (the SQL store of
``--store`` / ``$AGENTGAUGE_STORE``, else the result files under ``--output-dir``) and the help its RESULT argument
gives. The selectors themselves are resolved by :func:`agentgauge.storage.resolve_result`."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # pragma: no cover
    from ..sqlstore import SqlEvalResultManager
    from ..storage import ResultCatalog

__all__ = ["SELECTOR_FORMS", "open_store", "result_catalog"]

SELECTOR_FORMS = (
    "a result file (agentgauge, trpc-agent-go or ADK), a result id (under --output-dir, or in --store), "
    "label:KEY=VALUE[,KEY=VALUE] (the newest result with those labels) or latest (the newest result)"
)
"""What a RESULT argument may be, for its help (see docs/compare.md#naming-a-result)."""


def result_catalog(
    specs: Sequence[str],
    output_dir: Path,
    store: str | None,
    app_name: str | None,
    *,
    results: SqlEvalResultManager | None = None,
) -> ResultCatalog:
    """Where ``specs`` are looked up: the store's results (``results``, or the store of ``store`` /
    ``$AGENTGAUGE_STORE``, opened only when a spec is not a file), else the result files under ``output_dir``; of
    ``app_name`` when given."""
    from ..storage import ResultFiles, SelectorKind, parse_result_selector

    if results is None and any(parse_result_selector(spec).kind is not SelectorKind.FILE for spec in specs):
        from ..sqlstore import resolve_store_url

        url = resolve_store_url(store)
        if url is not None:
            from ..sqlstore._cli import open_result_store

            results = open_result_store(url)
    if results is not None:
        from ..sqlstore import StoredResultCatalog

        return StoredResultCatalog(results, app_name)
    return ResultFiles(output_dir, app_name)


def open_store(option: str | None) -> Any:
    """The result manager of ``--store`` / ``$AGENTGAUGE_STORE`` (``None``: results go to files); an unreachable or
    too new store is refused here, before anything runs."""
    from ..sqlstore import open_result_store, resolve_store_url

    url = resolve_store_url(option)
    return None if url is None else open_result_store(url)
