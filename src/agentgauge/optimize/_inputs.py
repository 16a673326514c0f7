"""The eval sets an optimisation learns from and is judged on: the train and validation splits, their cases and
metrics, checked before anything runs."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import InputError
from ..model import EvalMetric, EvalSet

__all__ = ["Split", "SplitSpec", "load_split", "parse_split"]


@dataclass(frozen=True)
class SplitSpec:
    """A split as given: an eval set file and the cases chosen (none: all)."""

    path: Path
    case_ids: tuple[str, ...] = ()


def parse_split(arg: str) -> SplitSpec:
    """``FILE[:case1,case2]``, read as an eval set argument of ``eval`` (see
    :meth:`agentgauge.launch.EvalSetSpec.parse`)."""
    from ..launch import EvalSetSpec

    spec = EvalSetSpec.parse(arg)
    return SplitSpec(spec.path or Path(arg), spec.case_ids)


@dataclass
class Split:
    """One loaded split: its role (``train`` / ``validation``), eval set, chosen case ids and metrics."""

    name: str
    path: Path
    eval_set: EvalSet
    case_ids: list[str]
    metrics: list[EvalMetric] = field(default_factory=list)
    metrics_source: str = ""

    @property
    def eval_set_id(self) -> str:
        """The eval set's id."""
        return self.eval_set.eval_set_id

    def describe(self) -> str:
        """``train: calc (examples/calc.evalset.json, 12 cases)``."""
        return f"{self.name}: {self.eval_set_id} ({self.path}, {len(self.case_ids)} cases)"


def _metrics_beside(path: Path, eval_set: EvalSet) -> tuple[list[EvalMetric], str]:
    """``<evalSetId>.metrics.json`` or ``test_config.json`` beside the eval set, else ADK's default criteria."""
    from ..formats import default_adk_metrics, load_metrics

    for candidate in (path.parent / f"{eval_set.eval_set_id}.metrics.json", path.parent / "test_config.json"):
        try:
            found = candidate.is_file()
        except (OSError, ValueError):  # a name no file can have
            found = False
        if found:
            return load_metrics(candidate), str(candidate)
    return default_adk_metrics(), "ADK default criteria"


def load_split(
    name: str, spec: SplitSpec, metrics: Sequence[EvalMetric] | Path | None, *, metrics_source: str = ""
) -> Split:
    """Load the eval set of ``spec``, check its chosen cases and find its metrics: ``metrics`` (loaded, or a
    metrics file), else those beside the eval set. Problems raise :class:`InputError` naming the file."""
    from ..formats import load_eval_set, load_metrics
    from ..service import select_cases

    eval_set = load_eval_set(spec.path)
    try:
        cases = select_cases(eval_set, list(spec.case_ids) or None)
    except InputError as exc:
        raise InputError(exc.message, file=str(spec.path)) from None
    if not cases:
        raise InputError(f"the {name} split has no cases", file=str(spec.path))
    if isinstance(metrics, Path):
        found, source = load_metrics(metrics), str(metrics)
    elif metrics is not None:
        found, source = list(metrics), metrics_source
    else:
        found, source = _metrics_beside(spec.path, eval_set)
    return Split(name, spec.path, eval_set, [c.eval_id for c in cases], found, source)
