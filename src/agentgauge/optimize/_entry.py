"""The one call of the Python API: :func:`optimize`."""

from __future__ import annotations

from collections.abc import Callable

from ._audit import AuditReport
from ._prepare import prepare
from ._request import OptimizeRequest

__all__ = ["optimize"]


async def optimize(request: OptimizeRequest, *, on_note: Callable[[str], None] | None = None) -> AuditReport:
    """Check ``request``, run the optimisation and return its audit report (also written in its ``--out`` folder);
    ``on_note`` hears progress lines. Bad input raises :class:`~agentgauge.errors.InputError` before anything
    runs."""
    from ._flow import run_optimization

    return await run_optimization(prepare(request, on_note=on_note), on_note=on_note)
