"""The results of a SQL store as a :class:`~agentgauge.storage.ResultCatalog`: what result selectors (an id,
``label:KEY=VALUE``, ``latest``) are resolved against when a command is given ``--store``."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..storage import FoundResult, Wanted
from ._cli import load_stored_result

if TYPE_CHECKING:  # pragma: no cover
    from ._results import SqlEvalResultManager

__all__ = ["StoredResultCatalog"]


@dataclass(frozen=True)
class StoredResultCatalog:
    """The store's results (of one app when ``app_name`` is given), newest first by the time they were stored."""

    results: SqlEvalResultManager
    app_name: str | None = None

    @property
    def where(self) -> str:
        """``in store <url>`` (the password masked)."""
        return f"in store {self.results.store.shown_url}"

    def by_id(self, result_id: str) -> FoundResult:
        """The stored result of this id (its app found from the id when not given and only one app has it)."""
        result = load_stored_result(self.results, result_id, self.app_name)
        app = self.app_name or next((i.app_name for i in self.results.find(result_id)), None)
        return FoundResult(result_id, app_name=app, result=result)

    def newest(self, wanted: Wanted) -> FoundResult | None:
        """The newest stored result matching ``wanted``."""
        infos = self.results.find(
            app=self.app_name,
            eval_set_id=wanted.eval_set_id,
            labels=wanted.labels or None,
            limit=len(wanted.exclude) + 1,
        )
        info = next((i for i in infos if i.eval_set_result_id not in wanted.exclude), None)
        if info is None:
            return None
        result = load_stored_result(self.results, info.eval_set_result_id, info.app_name)
        return FoundResult(info.eval_set_result_id, app_name=info.app_name, result=result)
