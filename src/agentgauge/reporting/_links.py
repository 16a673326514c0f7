"""Links from reports to a case's replay in the web UI (``agentgauge serve``): the terminal's *Did not pass* lines,
JUnit failures, the Markdown report and GitHub summary, and the HTML report name them when the UI's address is known
(``eval --ui-url``, env ``AGENTGAUGE_UI_URL``; the server's own report links into the page it is shown in).

The address is the UI's fragment (``static/nav.js`` reads the same keys): ``#app=..&set=..&tab=replay&result=..``
``&case=..&run=..``.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any
from urllib.parse import quote, urlencode

__all__ = ["case_link", "replay_link", "ui_links"]

_BASE: ContextVar[tuple[str, str] | None] = ContextVar("agentgauge_ui_url", default=None)


@contextmanager
def ui_links(base_url: str | None, app: str) -> Iterator[None]:
    """Reports of ``app``'s results rendered inside link their cases to the UI at ``base_url`` (``""``: the page
    the report is shown in; ``None``: no links)."""
    token = _BASE.set(None if base_url is None or not app else (base_url.rstrip("/"), app))
    try:
        yield
    finally:
        _BASE.reset(token)


def replay_link(eval_set_id: str, result_id: str, eval_id: str, run_id: int | None = None) -> str | None:
    """The UI's address of a case run's replay, or ``None`` when no UI address is set (see :func:`ui_links`)."""
    found = _BASE.get()
    if found is None or not result_id:
        return None
    base, app = found
    keys = {"app": app, "set": eval_set_id, "tab": "replay", "result": result_id, "case": eval_id}
    if run_id is not None:
        keys["run"] = str(run_id)
    return f"{base}/#{urlencode(keys, quote_via=quote)}"


def case_link(result: Any, eval_id: str, run_id: int | None = None) -> str | None:
    """:func:`replay_link` of a case of ``result`` (an :class:`~agentgauge.model.EvalSetResult`)."""
    return replay_link(result.eval_set_id, result.eval_set_result_id, eval_id, run_id)
