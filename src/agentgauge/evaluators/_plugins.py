"""Plug-ins: user evaluators, named compares and ROUGE tokenizers, found without any Python glue.

Sources, loaded in this order (a later registration of the same name replaces an earlier one):

1. installed packages' entry points:

   - ``agentgauge.evaluators``: ``<metric name> = pkg.module:obj``. ``obj`` is an evaluator (``name``,
     ``description``, ``async evaluate(actuals, expecteds, metric)``), or a class / factory called without
     arguments that returns one;
   - ``agentgauge.compares``: ``<kind>.<compare name> = pkg.module:fn`` with kind ``text``, ``json``,
     ``tool_trajectory`` or ``final_response``: the function a criterion's ``compareName`` refers to;
   - ``agentgauge.tokenizers``: ``<tokenizer name> = pkg.module:fn``, ``fn(text) -> list[str]`` for ROUGE;

2. ``[tool.agentgauge] plugins = ["module", ...]`` in the nearest ``pyproject.toml`` (its folder is importable);
3. ``--plugin module`` on the command line (the current folder is importable).

A plug-in module defines ``register(registry)`` and registers what it offers there (``registry.register(...)``,
``registry.compares.register_text(...)``, ``registry.compares.register_rouge_tokenizer(...)``). A plug-in that
fails to import or register is an :class:`~agentgauge.errors.InputError` naming it (the CLI prints one line and
exits 2).
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from ..errors import InputError

if TYPE_CHECKING:
    from ..criteria import CompareRegistry
    from ._base import Evaluator

__all__ = [
    "COMPARE_GROUP",
    "EVALUATOR_GROUP",
    "TOKENIZER_GROUP",
    "load_plugins",
    "plugins_from_pyproject",
]


class PluginTarget(Protocol):
    """What a plug-in registers into (:class:`~agentgauge.evaluators.Registry` satisfies it): evaluators by name and
    the comparisons and tokenizers of ``compares``. Typed here so that this module needs nothing above it."""

    compares: CompareRegistry

    def register(self, evaluator: Evaluator, *, name: str | None = None) -> None:
        """Add ``evaluator`` under ``name`` (default: its own name)."""
        ...


EVALUATOR_GROUP = "agentgauge.evaluators"
COMPARE_GROUP = "agentgauge.compares"
TOKENIZER_GROUP = "agentgauge.tokenizers"


def _one_line(exc: BaseException) -> str:
    text = " ".join(str(exc).split())
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def plugins_from_pyproject(start: Path | None = None) -> tuple[Path | None, list[str]]:
    """The nearest ``pyproject.toml`` at or above ``start`` (default: the current folder) and its
    ``[tool.agentgauge] plugins`` list; ``(None, [])`` when there is no such file."""
    from .._util.pyproject import agentgauge_table

    found = agentgauge_table(start)
    if found is None:
        return None, []
    path, section = found
    plugins = section.get("plugins", [])
    if not isinstance(plugins, list) or not all(isinstance(p, str) and p.strip() for p in plugins):
        raise InputError("must be a list of module names", file=str(path), location="tool.agentgauge.plugins")
    return path, [p.strip() for p in plugins]


def _as_evaluator(obj: Any, label: str) -> Any:
    candidate = obj
    if not hasattr(candidate, "evaluate") or isinstance(candidate, type):
        if not callable(candidate):
            raise TypeError(f"{label} is neither an evaluator nor a factory of one")
        candidate = candidate()
    if not callable(getattr(candidate, "evaluate", None)):
        raise TypeError(f"{label} did not give an evaluator (an object with async evaluate(...))")
    return candidate


def _load_entry_points(registry: PluginTarget) -> list[str]:
    from importlib.metadata import entry_points

    loaded: list[str] = []
    found = entry_points()  # one scan of the installed distributions for all three groups
    for group in (EVALUATOR_GROUP, COMPARE_GROUP, TOKENIZER_GROUP):
        for ep in found.select(group=group):
            label = f"entry point {ep.name!r} ({group} = {ep.value})"
            try:
                obj = ep.load()
                if group == EVALUATOR_GROUP:
                    registry.register(_as_evaluator(obj, label), name=ep.name)
                elif group == COMPARE_GROUP:
                    kind, _, name = ep.name.partition(".")
                    if not name:
                        raise ValueError("the name must be <kind>.<compare name>, e.g. text.same_prefix")
                    registry.compares.register(kind, name, obj)  # type: ignore[arg-type]
                else:
                    registry.compares.register_rouge_tokenizer(ep.name, obj)
            except Exception as exc:  # a broken plug-in is bad input, reported in one line
                raise InputError(f"plugin {label} failed to load ({_one_line(exc)})") from None
            loaded.append(f"{group}:{ep.name}")
    return loaded


def _importable(folder: Path) -> None:
    entry = str(folder)
    if entry not in sys.path:
        sys.path.insert(0, entry)


def _load_module(registry: PluginTarget, name: str, origin: str) -> None:
    try:
        module = importlib.import_module(name)
    except Exception as exc:  # ImportError, SyntaxError, or whatever the module raised at import time
        raise InputError(f"plugin module {name!r} ({origin}) failed to import ({_one_line(exc)})") from None
    register = getattr(module, "register", None)
    if not callable(register):
        raise InputError(f"plugin module {name!r} ({origin}) has no register(registry) function")
    try:
        register(registry)
    except Exception as exc:
        raise InputError(f"plugin module {name!r} ({origin}) failed to register ({_one_line(exc)})") from None


def load_plugins(
    registry: PluginTarget,
    modules: Sequence[str] = (),
    *,
    start: Path | None = None,
    entry_points: bool = True,
    pyproject: bool = True,
) -> list[str]:
    """Load every plug-in source into ``registry`` (see the module docstring); returns what was loaded.

    ``modules`` are the ``--plugin`` names; ``start`` is where the ``pyproject.toml`` search begins (default: the
    current folder).
    """
    loaded = _load_entry_points(registry) if entry_points else []
    if pyproject:
        path, names = plugins_from_pyproject(start)
        if path is not None and names:
            _importable(path.parent)
            for name in names:
                _load_module(registry, name, str(path))
                loaded.append(name)
    if modules:
        _importable(Path.cwd())
        for name in modules:
            _load_module(registry, name, "--plugin")
            loaded.append(name)
    return loaded
