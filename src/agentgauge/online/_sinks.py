"""Where online scores go: the result store (one result per rule and period, a run in History), OTLP
``gen_ai.evaluation.result`` events parented to the evaluated span, and a webhook.

The OTLP export and the webhook are sent through the HTTP layer of remote agents
(:class:`~agentgauge.agents.remote.RemoteEndpoint`: pooled connections, the shared retry policy of
:mod:`agentgauge._util.retry`, bounded answers, redirects kept to the endpoint's origin, masked messages).
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from ..errors import NotFoundError
from ._limits import period_start

if TYPE_CHECKING:  # pragma: no cover
    from ..agents.remote import RemoteEndpoint
    from ..model import EvalCaseResult, EvalSetResult
    from ..storage import EvalResultManager
    from ._rules import WebhookSink

__all__ = ["PeriodResults", "SinkPost", "period_label", "result_id_for"]

_KEPT_PERIODS = 4  # periods of each rule kept in memory (older ones are saved and let go)


def period_label(start: int, per: str) -> str:
    """A period's start as it appears in ids: ``20261201T23`` (an hour) or ``20261201`` (a day), UTC."""
    when = datetime.fromtimestamp(start, UTC)
    return when.strftime("%Y%m%dT%H" if per == "hour" else "%Y%m%d")


def result_id_for(rule: str, start: int, per: str) -> str:
    """The result id of a rule's period: ``online_<rule>_<period>``."""
    return f"online_{rule}_{period_label(start, per)}"


@dataclass
class _Period:
    app: str
    result: EvalSetResult
    dirty: bool = False
    case_ids: list[str] = field(default_factory=list)


class PeriodResults:
    """The online results of the server's result store: for each rule and period (a clock hour or day, UTC) one
    eval set result ``online_<rule>_<period>`` of eval set ``online_<rule>``, a case per scored session. A period
    already saved (before a restart) is continued, not replaced. Saving rewrites the period's file atomically; it is
    done by :meth:`flush` (the engine calls it every few seconds and on shutdown), never per session."""

    def __init__(self, results: EvalResultManager) -> None:
        self._results = results
        self._periods: dict[tuple[str, str, int], _Period] = {}
        self._lock = threading.Lock()

    def add(self, rule: str, per: str, app: str, case: EvalCaseResult, now: float | None = None) -> str:
        """Add a scored session's case to its rule's current period; returns the period's result id."""
        start = period_start(time.time() if now is None else now, per)
        key = (rule, app, start)
        with self._lock:
            period = self._periods.get(key)
            if period is None:
                period = self._periods[key] = self._open(rule, per, app, start)
            case.eval_set_id = period.result.eval_set_id
            period.result.eval_case_results.append(case)
            period.case_ids.append(case.eval_id)
            period.dirty = True
            result_id = period.result.eval_set_result_id
        return result_id

    def _open(self, rule: str, per: str, app: str, start: int) -> _Period:
        from ..model import EvalSetResult

        result_id = result_id_for(rule, start, per)
        try:
            found = self._results.get(app, result_id)
        except (NotFoundError, ValueError):
            found = None
        if found is None:
            label = datetime.fromtimestamp(start, UTC).strftime("%Y-%m-%d %H:00" if per == "hour" else "%Y-%m-%d")
            found = EvalSetResult(
                eval_set_result_id=result_id,
                eval_set_result_name=f"online {rule} {label} UTC",
                eval_set_id=f"online_{rule}",
                creation_timestamp=float(start),
            )
        period = _Period(app, found, case_ids=[c.eval_id for c in found.eval_case_results])
        stale = sorted(k for k in self._periods if k[0] == rule and k[1] == app)[:-_KEPT_PERIODS]
        for old in stale:  # saved below by flush if dirty, then let go
            self._save(self._periods.pop(old))
        return period

    def _save(self, period: _Period) -> None:
        from ..summary import summarize_results

        if not period.dirty:
            return
        result = period.result.model_copy()
        result.eval_case_results = list(result.eval_case_results)
        result.summary = summarize_results(result.eval_case_results, case_ids=period.case_ids, num_runs=1).full()
        self._results.save(period.app, result)
        period.dirty = False

    def flush(self) -> int:
        """Save every period changed since the last flush; returns how many were saved."""
        with self._lock:
            changed = [p for p in self._periods.values() if p.dirty]
            for period in changed:
                self._save(period)
        return len(changed)


class SinkPost:
    """One JSON endpoint posted to (an OTLP/HTTP logs URL or a webhook), through the HTTP layer of remote agents
    with its retry policy."""

    def __init__(self, label: str, url: str, *, headers: dict[str, str] | None = None, timeout: float = 10.0) -> None:
        from ..agents.remote import RemoteAgentSettings, RemoteEndpoint

        settings = RemoteAgentSettings(
            headers=headers or {},
            connect_timeout=timeout,
            read_timeout=timeout,
            turn_timeout=timeout * 4,
            max_response_mb=1.0,
            retries=2,
        )
        self.url = url
        self._endpoint: RemoteEndpoint = RemoteEndpoint(label, url, settings)

    @classmethod
    def webhook(cls, sink: WebhookSink) -> SinkPost:
        """The poster of a rule's webhook."""
        return cls("online webhook", sink.url, headers=sink.headers, timeout=sink.timeout)

    @classmethod
    def otlp_logs(cls, endpoint: str) -> SinkPost:
        """The poster of OTLP/HTTP logs to ``endpoint`` (``/v1/logs`` appended unless present)."""
        url = endpoint if endpoint.rstrip("/").endswith("/v1/logs") else endpoint.rstrip("/") + "/v1/logs"
        return cls("online OTLP export", url)

    async def post(self, document: dict[str, Any]) -> None:
        """Send ``document``; an :class:`~agentgauge.errors.AgentError` naming the endpoint when it fails after its
        retries (a turn limit bounds it all)."""
        async with self._endpoint.turn():
            await self._endpoint.request("POST", self._endpoint.url, json=document)

    async def aclose(self) -> None:
        """Close the connections of the running loop."""
        await self._endpoint.aclose()
