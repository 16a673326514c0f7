"""ADK's evaluation routes: every 2.13 route under ``/dev/apps/{app}/...`` and the 1.x prefix ``/apps/{app}/...``,
each in its current (kebab-case) and legacy (snake_case) spelling, with ADK's request and response shapes.

The routes live with their resource: eval sets in :mod:`._adk_sets`, cases in :mod:`._adk_cases`, runs, results
and metrics info in :mod:`._adk_runs`; this module mounts them under each prefix."""

from __future__ import annotations

from fastapi import APIRouter

from . import _adk_cases, _adk_runs, _adk_sets

__all__ = ["PREFIXES", "adk_eval_router"]

PREFIXES = ("/dev", "")
"""ADK 2.x serves its eval routes under ``/dev``; ADK 1.x (and trpc-agent-go's debug server) without it."""


def adk_eval_router(prefix: str) -> APIRouter:
    """The eval routes under ``prefix`` (``"/dev"`` or ``""``)."""
    router = APIRouter(prefix=f"{prefix}/apps/{{app_name}}", tags=[f"ADK eval ({prefix or '1.x'} prefix)"])
    for part in (_adk_sets.router, _adk_cases.router, _adk_runs.router):
        router.include_router(part)
    return router
