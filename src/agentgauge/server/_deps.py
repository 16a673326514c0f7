"""What a route gets from the application it is served by: the server's state, as a FastAPI dependency.

Routes are declared at module level on ``APIRouter``s and read the state through :data:`StateDep`, so a router can be
mounted on any app holding a :class:`~agentgauge.server._state.ServerState` in ``app.state.agentgauge`` (or tested
with ``app.dependency_overrides[server_state]``).
"""

from __future__ import annotations

from typing import Annotated, Any, cast

from fastapi import Depends, Request

from ._state import ServerState

__all__ = ["StateDep", "as_json", "server_state"]


async def server_state(request: Request) -> ServerState:
    """The state of the app serving ``request`` (set by :func:`~agentgauge.server.create_app`)."""
    # async: a lookup of microseconds, not worth a hop to the thread pool that sync dependencies take.
    return cast(ServerState, request.app.state.agentgauge)


StateDep = Annotated[ServerState, Depends(server_state)]
"""A route parameter holding the server's state."""


def as_json(model: Any) -> Any:
    """A pydantic model as JSON data (native field names)."""
    return model.model_dump(mode="json")
