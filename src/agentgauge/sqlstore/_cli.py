"""What the command line needs from a store: open it (checked before anything runs), name where a result went,
find a stored result by id, and list results."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..errors import InputError, NotFoundError

if TYPE_CHECKING:  # pragma: no cover
    from ..model import EvalSetResult
    from ._results import SqlEvalResultManager

__all__ = ["check_result_id", "load_stored_result", "open_result_store"]

_ID_MAX = 255  # VARCHAR(255), as in trpc-agent-go's tables


def open_result_store(url: str) -> SqlEvalResultManager:
    """The result manager of the store at ``url``, connected and with its schema checked (or created): a store
    that is unreachable, refused or too new fails here, before an agent runs."""
    from . import open_store

    results = open_store(url).results()
    results.store.ping()
    return results


def check_result_id(app: str, eval_set_id: str, source: str) -> None:
    """Refuse, before anything runs, an app / eval set whose result id would not fit the store's id columns."""
    sample = f"{app}_{eval_set_id}_00000000-0000-0000-0000-000000000000"
    if not eval_set_id:
        raise InputError(
            "must not be empty: results are stored under the eval set id", file=source, location="evalSetId"
        )
    if len(sample) > _ID_MAX:
        raise InputError(
            f"too long: the result id {sample[:60]!r}... would have {len(sample)} characters, over the store's "
            f"limit of {_ID_MAX} (shorten the app name or the evalSetId)",
            file=source,
            location="evalSetId",
        )


def load_stored_result(results: SqlEvalResultManager, result_id: str, app: str | None) -> EvalSetResult:
    """A stored result by id; the app is found from the id when ``app`` is not given and only one app has it."""
    if app is None:
        apps = sorted({info.app_name for info in results.find(result_id)})
        if not apps:
            raise NotFoundError(f"eval set result {result_id!r} not found in store {results.store.shown_url}")
        if len(apps) > 1:
            raise InputError(
                f"eval set result {result_id!r} exists for several apps ({', '.join(apps)}): choose one with --app-name"
            )
        app = apps[0]
    try:
        return results.get(app, result_id)
    except NotFoundError:
        raise NotFoundError(
            f"eval set result {result_id!r} of app {app!r} not found in store {results.store.shown_url}"
        ) from None
