"""Names a package's ``__init__`` exports but imports from their module only when first read (PEP 562).

The packages on the path of every ``agentgauge eval`` (agents, criteria, judges) keep the parts most runs never use
out of start-up this way, while ``from agentgauge.judges import OpenAIJudge`` and ``dir()`` work as before.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Iterable, Mapping
from typing import Any

__all__ = ["lazy_exports"]


def lazy_exports(
    package: str, module_of: Mapping[str, str], listed: Iterable[str]
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """The ``__getattr__`` and ``__dir__`` of ``package``: a name of ``module_of`` is imported from that module
    (relative to the package, e.g. ``"._openai"``) when first read and then kept in the package's namespace;
    ``__dir__`` lists ``listed`` too."""
    namespace = sys.modules[package].__dict__  # a package being initialised is in sys.modules already
    names = frozenset(listed)

    def __getattr__(name: str) -> Any:
        module = module_of.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(module, package), name)
        namespace[name] = value
        return value

    def __dir__() -> list[str]:
        return sorted({*namespace, *names, *module_of})

    return __getattr__, __dir__
