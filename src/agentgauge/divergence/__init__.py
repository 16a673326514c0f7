"""Where two runs of a case first diverge.

A run is a sequence of steps (:class:`Step`): per turn, each tool call (name, canonical arguments, result), then
the final answer. :func:`first_divergence` aligns two such sequences with an edit distance and reports the first
place they differ (:class:`Divergence`: its turn and step, its :class:`DivergenceKind` — different tool, different
arguments, different tool result, extra call, missing call, different answer, extra or missing turn — both sides,
and where the runs re-converge). :func:`run_divergence` takes the runs' invocations (a result's actual turns, a
trace's conversation, a case's golden conversation), :func:`case_run_divergence` the runs of a case in two saved
results and :func:`golden_divergence` a run against its expected turns; :func:`divergence_text` says it in one line.

Arguments and results compare as the trajectory criterion compares them by default
(:func:`agentgauge.criteria.json_difference`). Pure: no I/O, below every package that shows a comparison.
"""

from ._align import (
    MAX_CELLS,
    AlignedStep,
    Alignment,
    align_steps,
    alignment_divergence,
    first_divergence,
    invocation_steps,
    run_divergence,
)
from ._model import Divergence, DivergenceKind, Step, StepKind, StepRef
from ._runs import case_run_divergence, golden_divergence, pick_run, run_invocations
from ._text import KIND_LABELS, divergence_text, step_text

__all__ = [
    "KIND_LABELS",
    "MAX_CELLS",
    "AlignedStep",
    "Alignment",
    "Divergence",
    "DivergenceKind",
    "Step",
    "StepKind",
    "StepRef",
    "align_steps",
    "alignment_divergence",
    "case_run_divergence",
    "divergence_text",
    "first_divergence",
    "golden_divergence",
    "invocation_steps",
    "pick_run",
    "run_divergence",
    "run_invocations",
    "step_text",
]
