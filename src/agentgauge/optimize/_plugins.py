"""``--optimizer``: the built-in optimisers by name, or a plug-in (see :mod:`._search`)."""

from __future__ import annotations

import inspect

from ..errors import InputError
from ._search import Optimizer

__all__ = ["BUILT_IN", "load_optimizer", "uses_reflection"]

BUILT_IN = ("gepa", "simple")
"""The optimisers ``--optimizer`` names without a plug-in."""


def load_optimizer(spec: str) -> Optimizer:
    """``gepa``, ``simple``, or ``module:attribute`` / ``path/to/file.py:attribute`` naming an optimiser, or a class
    or function called without arguments that returns one; anything else raises :class:`InputError`."""
    if spec == "gepa":
        from ._gepa import GepaOptimizer

        return GepaOptimizer()
    if spec == "simple":
        from ._simple import SimpleOptimizer

        return SimpleOptimizer()
    if ":" not in spec and not spec.endswith(".py"):
        raise InputError(f"--optimizer: unknown optimizer {spec!r}; choose gepa, simple or module:attribute")
    from ..agents import load_named_object

    found = load_named_object(spec, defaults=("optimizer",), what="optimizer")
    if inspect.isclass(found) or (callable(found) and not hasattr(found, "search")):
        try:
            found = found()
        except Exception as exc:
            raise InputError(f"could not make the optimizer: {type(exc).__name__}: {exc}", file=spec) from None
    search = getattr(found, "search", None)
    if not inspect.iscoroutinefunction(search) or not isinstance(getattr(found, "name", None), str):
        raise InputError("not an optimizer: it needs a name and an async search(session) method", file=spec)
    return found  # type: ignore[return-value]


def uses_reflection(optimizer: Optimizer) -> bool:
    """Whether the optimiser asks the reflection model (plug-ins may say ``uses_reflection = False``)."""
    return bool(getattr(optimizer, "uses_reflection", True))
