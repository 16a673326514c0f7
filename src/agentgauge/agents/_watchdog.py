"""Enforcing a case's timeout on async agent code that blocks the event loop (``time.sleep``, busy loops).

``asyncio.wait_for`` can only cancel a coroutine at an ``await``; an async agent that calls ``time.sleep(60)``
or computes for a minute holds the event loop, so no timeout fires and every other case waits too. The watchdog
covers that case:

- While a case's agent code runs, a context variable holds the case's :class:`Budget` (its deadline).
- A daemon thread sleeps until the earliest armed deadline (plus a short grace, within which a loop that is not
  blocked has already cancelled the case). If the budget is still armed then, the event loop is stuck: the
  thread sends ``SIGURG`` to the main thread, again every :data:`RESIGNAL_INTERVAL` seconds until the case ends.
- The Python handler for that signal runs in the main thread, in the context of whatever code is executing.
  When that code belongs to a case whose deadline has passed, it raises :class:`AgentTimeout` there — inside the
  blocked agent code — which the run engine turns into the case's timeout. Elsewhere the handler does nothing.

``SIGURG`` is ignored by default, so a signal arriving after the handler was restored is harmless. The handler is
installed while at least one budget is armed and the previous one restored afterwards; it is only used when the
event loop runs in the main thread of a POSIX process and nothing else handles ``SIGURG``. Otherwise
:func:`arm` returns ``None`` and timeouts work as before (only at ``await`` points).

Limits: code blocked in a C call that retries on ``EINTR`` without running Python signal handlers, and agent
code that catches ``BaseException`` and carries on blocking, keep the loop blocked (the signal is re-sent, so a
loop of short blocking calls is still interrupted).
"""

from __future__ import annotations

import contextvars
import signal
import sys
import threading
import time
from types import FrameType
from typing import Any

__all__ = ["RESIGNAL_INTERVAL", "AgentTimeout", "Budget", "active", "arm", "disarm"]

RESIGNAL_INTERVAL = 0.05
"""Seconds between signals to a loop that is still blocked; also the grace after a deadline before the first."""

_SIGNAL: int | None = getattr(signal, "SIGURG", None)


class AgentTimeout(BaseException):
    """Raised inside async agent code that kept the event loop blocked past its case's deadline.

    A ``BaseException`` so that an agent's ``except Exception`` does not swallow it.
    """


class Budget:
    """One case's deadline while its agent code runs (``monotonic`` seconds)."""

    __slots__ = ("armed", "deadline", "timeout")

    def __init__(self, timeout: float) -> None:
        self.timeout = timeout
        self.deadline = time.monotonic() + timeout
        self.armed = True


active: contextvars.ContextVar[Budget | None] = contextvars.ContextVar("agentgauge_case_budget", default=None)
"""The budget of the case whose agent code is running (set by the run engine around each agent call)."""


def _on_signal(signum: int, frame: FrameType | None) -> None:
    budget = active.get()
    if budget is not None and budget.armed and time.monotonic() >= budget.deadline:
        raise AgentTimeout(f"the agent blocked the event loop past the {budget.timeout:g} s timeout")


class _Watchdog:
    def __init__(self) -> None:
        self.lock = threading.Condition()
        self.budgets: set[Budget] = set()
        self.previous: Any = None
        self.installed = False
        self.thread: threading.Thread | None = None
        self.wake_at = 0.0  # when the thread next looks at the budgets (monotonic seconds)
        self.main_ident = threading.main_thread().ident

    def usable(self) -> bool:
        if _SIGNAL is None or not hasattr(signal, "pthread_kill"):
            return False
        if threading.current_thread() is not threading.main_thread():
            return False
        if self.installed:
            return True
        current = signal.getsignal(_SIGNAL)
        return current in (signal.SIG_DFL, signal.SIG_IGN, None)

    def arm(self, timeout: float) -> Budget | None:
        if not self.usable():
            return None
        budget = Budget(timeout)
        with self.lock:
            if not self.installed:
                assert _SIGNAL is not None
                self.previous = signal.signal(_SIGNAL, _on_signal)
                self.installed = True
            self.budgets.add(budget)
            if self.thread is None or not self.thread.is_alive():
                self.thread = threading.Thread(target=self.watch, name="agentgauge-loop-watchdog", daemon=True)
                self.thread.start()
            elif budget.deadline + RESIGNAL_INTERVAL < self.wake_at:  # O(1): starting a case stays cheap
                self.lock.notify()
        return budget

    def disarm(self, budget: Budget) -> None:
        with self.lock:
            budget.armed = False
            self.budgets.discard(budget)
            if not self.budgets and self.installed:
                assert _SIGNAL is not None
                signal.signal(_SIGNAL, self.previous if self.previous is not None else signal.SIG_DFL)
                self.installed = False  # the thread finds no budgets at its next wake and goes idle

    def watch(self) -> None:
        with self.lock:
            while True:
                now = time.monotonic()
                if not self.budgets:
                    # Idle: wait for the next case, and end the thread if none comes for a while.
                    self.wake_at = now + 5.0
                    if not self.lock.wait(timeout=5.0) and not self.budgets:
                        self.thread = None
                        return
                    continue
                due = min(b.deadline for b in self.budgets) + RESIGNAL_INTERVAL
                if now < due:
                    self.wake_at = due
                    self.lock.wait(timeout=due - now)
                    continue
                self.wake_at = now + RESIGNAL_INTERVAL
                if self.installed and self.main_ident is not None:
                    signal.pthread_kill(self.main_ident, _SIGNAL)  # type: ignore[arg-type]
                self.lock.wait(timeout=RESIGNAL_INTERVAL)


_watchdog = _Watchdog()


def arm(timeout: float | None) -> Budget | None:
    """Start watching a case with ``timeout`` seconds; ``None`` when there is no timeout or no watchdog here."""
    if timeout is None or sys.platform == "win32":
        return None
    return _watchdog.arm(timeout)


def disarm(budget: Budget | None) -> None:
    """Stop watching the case of ``budget`` (restores the signal handler after the last one)."""
    if budget is not None:
        _watchdog.disarm(budget)
