"""Running blocking agent code off the event loop without letting it hold the process open."""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import functools
import threading
from collections.abc import Callable
from typing import Any, TypeVar

__all__ = ["run_in_daemon_thread"]

T = TypeVar("T")


def _settle(future: asyncio.Future[Any], result: Any, error: BaseException | None) -> None:
    if future.done():  # the awaiting case was cancelled (e.g. its timeout expired)
        return
    if error is not None:
        future.set_exception(error)
    else:
        future.set_result(result)


async def run_in_daemon_thread(fn: Callable[..., T], /, *args: Any, **kwargs: Any) -> T:
    """Call ``fn(*args, **kwargs)`` in a new daemon thread and await its result.

    Unlike :func:`asyncio.to_thread`, a call that never returns (a hung sync agent whose case already timed out)
    does not keep ``asyncio.run`` or the interpreter from exiting: the thread is a daemon and no executor waits
    for it. Context variables are propagated as with ``to_thread``.
    """
    loop = asyncio.get_running_loop()
    future: asyncio.Future[T] = loop.create_future()
    call = functools.partial(contextvars.copy_context().run, fn, *args, **kwargs)

    def target() -> None:
        result: Any = None
        error: BaseException | None = None
        try:
            result = call()
        except BaseException as exc:  # handed to the awaiting coroutine, which re-raises it
            error = exc
        with contextlib.suppress(RuntimeError):  # a closed loop: nobody is waiting any more
            loop.call_soon_threadsafe(_settle, future, result, error)

    threading.Thread(target=target, name=f"agentgauge-agent-{getattr(fn, '__name__', 'call')}", daemon=True).start()
    return await future
