"""The server's warm-up: what the web UI's first page load asks for is made as soon as the server starts.

The page's first requests list the metric registry, the app's eval sets (each parsed) and the app's results (each
file read into a digest). Done on those requests, that first-time work makes the first page load after a start
several times slower than the next ones; done by a background thread started with the app, it is mostly finished
when the page asks. The warm-up fills the same memos the routes read (the registry, the parsed eval sets, the result
digests), so a request arriving meanwhile waits for a file being read instead of reading it again, and it reads
nothing the routes would not read. The digests come from the index the server saved when it last ran, for the files
unchanged since (:mod:`._digest_index`); the others are read, and the index is saved again.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
import time
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from typing import TYPE_CHECKING, Any

from ..errors import InputError, NotFoundError
from ..formats._jsonio import gc_paused

if TYPE_CHECKING:  # pragma: no cover
    from fastapi import FastAPI

    from ._state import ServerState

__all__ = ["WarmUp", "build_routes", "warm_up_lifespan"]

Lifespan = Callable[["FastAPI"], AbstractAsyncContextManager[Any]]

SAVE_DELAY = 2.0
"""Seconds between the end of the warm-up and the saving of the digests (the server's stop saves them at once)."""


class WarmUp:
    """One warm-up of a server's state, in a daemon thread: the metric registry, then per app (in the order the UI
    lists them) its eval sets and its results' digests, within the memos' sizes (warming more would only drop what
    was just made). :attr:`done` is set when it has finished or stopped, :attr:`saved` when the digests have been
    saved after it (:data:`SAVE_DELAY` later); :attr:`digests` counts the results it made or found ready."""

    def __init__(self, state: ServerState) -> None:
        self.state = state
        self.done = threading.Event()
        self.saved = threading.Event()
        self.digests = 0
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        """Start warming in the background."""
        self._thread = threading.Thread(target=self.run, name="agentgauge-warm-up", daemon=True)
        self._thread.start()

    def stop(self, timeout: float = 5.0) -> None:
        """Stop after the file being read, wait for the thread (at most ``timeout`` seconds) and save the digests
        made since the warm-up (the results of the server's runs, files changed meanwhile)."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout)
        if self.saved.is_set():  # a warm-up still running saves them itself as it stops
            self._attempt(self.state.results.save_index)

    def run(self) -> None:
        """Warm everything (what :meth:`start` runs in its thread), then save the digests. A step that fails is
        skipped, never the server's business: the request that needs what it would have made makes it and answers
        its error."""
        steps = (
            self.state.results.load_index,  # the digests saved by the server's last run, for unchanged files
            self.state.registry.infos,  # the first listing imports the judge metrics
            self._warm_apps,
        )
        try:
            for step in steps:
                if not self._stop.is_set():
                    self._attempt(step)
            self.done.set()
            # Written a little later: the first page's last requests, answered meanwhile, would wait for it.
            self._stop.wait(SAVE_DELAY)
            self._attempt(self.state.results.save_index)  # the next start reads one file, not every result
        finally:
            self.done.set()
            self.saved.set()

    @staticmethod
    def _attempt(step: Callable[[], object]) -> None:
        try:
            step()
        except Exception:  # an optimisation: a failure only leaves the work to the requests
            return

    def _warm_apps(self) -> None:
        """Each app's eval sets, then its results' digests, within the memos' sizes."""
        sets_left = self.state.eval_sets.max_cached
        digests_left = self.state.results.digests_kept
        for app in self.state.app_names():
            if self._stop.is_set() or digests_left <= 0:
                break
            sets_left -= self._warm_sets(app, sets_left)
            # The digests' many small tuples would have the cyclic collector rescan everything kept (the parsed
            # sets, the digests made) over and over; none is cyclic. At most the memo's size of files (seconds).
            with gc_paused():
                made = self.state.results.warm(app, limit=digests_left, pause=self._pause)
            self.digests += made
            digests_left -= made

    def _warm_sets(self, app: str, limit: int) -> int:
        """Parse the app's eval sets (at most ``limit``); returns how many were visited."""
        visited = 0
        for set_id in self.state.eval_sets.list(app)[: max(limit, 0)]:
            # A broken set keeps its error in the memo too; a removed one is gone.
            with contextlib.suppress(InputError, NotFoundError):
                self.state.eval_sets.snapshot(app, set_id)
            visited += 1
            if self._pause():
                break
        return visited

    def _pause(self) -> bool:
        # A zero sleep lets a request's thread take the interpreter between two files, so the pages and answers
        # served meanwhile are not held back by the warm-up; answers whether to stop.
        time.sleep(0)
        return self._stop.is_set()


def warm_up_lifespan(state: ServerState, inner: Lifespan | None = None) -> Lifespan:
    """A FastAPI lifespan that starts a :class:`WarmUp` of ``state`` when the app starts (kept as
    ``app.state.agentgauge_warm_up``) and stops it when the app stops, around ``inner`` (another lifespan) when
    given."""

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        warm_up = WarmUp(state)
        app.state.agentgauge_warm_up = warm_up
        warm_up.start()
        await build_routes(app)
        try:
            if inner is None:
                yield
            else:
                async with inner(app):
                    yield
        finally:
            await asyncio.to_thread(warm_up.stop)  # it stops after the file it is reading

    return lifespan


async def build_routes(app: FastAPI) -> None:
    """Have FastAPI prepare every route now, before the server listens, instead of on the first request.

    FastAPI prepares a route (its parameters, body and answer models) the first time a request is matched against
    it: the first request after a start pays for all the routes before its own (0.1-0.3 s here). A request for a path
    that no route has, given to the router alone (no middleware; its 404 goes nowhere), is matched against them all.
    """
    path = "/.agentgauge-warm-up"  # no route has it: a leading dot is no app, set or file name

    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(_: Any) -> None:
        return None

    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": "GET",
        "scheme": "http",
        "path": path,
        "raw_path": path.encode(),
        "query_string": b"",
        "root_path": "",
        "headers": [],
        "client": ("127.0.0.1", 0),
        "server": ("127.0.0.1", 0),
    }
    await app.router(scope, receive, send)
