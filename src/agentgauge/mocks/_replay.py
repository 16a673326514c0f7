"""Serving a replayed turn's tool calls from its recording, and keeping account of what was served.

A replay's rules (``toolMock.replay``) are the turn's recorded calls in order, each with its recorded arguments and
result. Each rule answers one call. ``fifo`` hands the calls of one tool the recorded results in order whatever
their arguments (a call whose arguments differ is *drift*, still answered); ``strict`` answers a call only with a
recorded call of identical arguments and otherwise answers with an error the agent sees. A call the recording has no
result for (a tool it never saw, or one call too many) also gets an error: nothing runs for real during a replay.
"""

from __future__ import annotations

import json
import threading
from typing import Any

from ..criteria import json_difference
from ..model import ReplayCall, ReplayDrift, ReplayMode, ReplayRecord, ToolMockRule

__all__ = ["ReplayLedger", "refusal"]


def _recorded_arguments(rule: ToolMockRule) -> Any:
    return rule.arguments.expected if rule.arguments is not None and not rule.arguments.ignore else None


def _short(value: Any, limit: int = 200) -> str:
    text = json.dumps(value, ensure_ascii=False, default=str, sort_keys=True)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def refusal(name: str, arguments: Any, reason: str) -> dict[str, str]:
    """The tool result the agent sees for a call the recording cannot answer."""
    return {"error": f"replay: no recorded result for {name}({_short(arguments)}): {reason}"}


class ReplayLedger:
    """The recording of one replayed turn, consumed call by call (thread-safe: synchronous tools may run in worker
    threads at the same time). :meth:`record` says what happened."""

    def __init__(self, mode: ReplayMode, rules: list[ToolMockRule]) -> None:
        self.mode = mode
        self._rules = rules
        self._consumed = [False] * len(rules)
        # The unconsumed rules of each tool, in recorded order: a call looks only at its own tool's open rules,
        # not at the whole recording again.
        self._open: dict[str, list[int]] = {}
        for index, rule in enumerate(rules):
            self._open.setdefault(rule.name, []).append(index)
        self._lock = threading.Lock()
        self._record = ReplayRecord(mode=mode, recorded=len(rules))

    def answer(self, name: str, arguments: Any) -> Any:
        """The recorded result that answers this call, or the error the agent sees instead."""
        with self._lock:
            record = self._record
            call = len(record.answered) + len(record.drift) + len(record.unrecorded) + 1
            open_rules = self._open.get(name, [])
            if not open_rules:
                seen = name in self._open
                reason = "more calls of this tool than the recording has" if seen else "the recording never called it"
                record.unrecorded.append(ReplayCall(call=call, name=name, arguments=arguments, reason=reason))
                return refusal(name, arguments, reason)
            if self.mode == "strict":
                for index in open_rules:
                    if json_difference(arguments, _recorded_arguments(self._rules[index])) is None:
                        return self._serve(index, call, name, arguments)
            index = open_rules[0]
            recorded = _recorded_arguments(self._rules[index])
            difference = json_difference(arguments, recorded) if recorded is not None else None
            if difference is None:
                return self._serve(index, call, name, arguments)
            served = self.mode == "fifo"
            record.drift.append(
                ReplayDrift(
                    call=call,
                    recorded_call=index + 1,
                    name=name,
                    recorded=recorded,
                    arguments=arguments,
                    difference=difference,
                    served=served,
                )
            )
            if not served:
                return refusal(name, arguments, f"arguments differ from the recorded call ({difference})")
            self._consume(name, index)
            return self._rules[index].result

    def _consume(self, name: str, index: int) -> None:
        self._consumed[index] = True
        self._open[name].remove(index)

    def _serve(self, index: int, call: int, name: str, arguments: Any) -> Any:
        self._consume(name, index)
        self._record.answered.append(ReplayCall(call=call, name=name, arguments=arguments))
        return self._rules[index].result

    def record(self) -> ReplayRecord:
        """What the turn did with its recording so far, with the recorded results no call took."""
        with self._lock:
            unconsumed = [
                ReplayCall(call=i + 1, name=rule.name, arguments=_recorded_arguments(rule))
                for i, rule in enumerate(self._rules)
                if not self._consumed[i]
            ]
            return self._record.model_copy(deep=True, update={"unconsumed": unconsumed})
