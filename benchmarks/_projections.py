"""Benchmark-only variants that show what a proposed fix would gain; never used by the headline numbers.

Each projection changes one thing the profiles point at, from outside agentgauge's code:

- ``nocopy-stores``: in-memory eval-set and result managers (subclasses of the public ``EvalSetManager`` /
  ``EvalResultManager`` bases) that hand out and keep the stored objects instead of deep copies.
- ``gc-freeze`` (in ``ours.py``): ``gc.freeze()`` once the eval sets are loaded, so the collections triggered during
  the run no longer walk them.
"""

from __future__ import annotations

from typing import Any


def nocopy_stores() -> tuple[Any, Any]:
    """An eval-set manager and a result manager that store and return objects without copying them."""
    from agentgauge.storage import EvalResultManager, EvalSetManager

    class SharedEvalSets(EvalSetManager):
        def __init__(self) -> None:
            super().__init__()
            self.sets: dict[tuple[str, str], Any] = {}

        def _read(self, app: str, set_id: str) -> Any:
            return self.sets.get((app, set_id))

        def _write(self, app: str, eval_set: Any) -> None:
            self.sets[(app, eval_set.eval_set_id)] = eval_set

        def _remove(self, app: str, set_id: str) -> bool:
            return self.sets.pop((app, set_id), None) is not None

        def _ids(self, app: str) -> list[str]:
            return [s for a, s in self.sets if a == app]

    class SharedResults(EvalResultManager):
        def __init__(self) -> None:
            super().__init__()
            self.results: dict[tuple[str, str], Any] = {}

        def _read(self, app: str, result_id: str) -> Any:
            return self.results.get((app, result_id))

        def _write(self, app: str, result: Any) -> None:
            self.results[(app, result.eval_set_result_id)] = result

        def _ids(self, app: str) -> list[str]:
            return [r for a, r in self.results if a == app]

    return SharedEvalSets(), SharedResults()
