"""How far a judge metric can be trusted: its verdicts compared with people's labels.

``calibrate(results, labels)`` returns a :class:`Calibration` (a pydantic model, the ``--format json`` output of
``agentgauge calibrate``): per judge metric, judge model and level (case or invocation), the accuracy, Cohen's kappa,
the confusion matrix and the verdicts people labelled the other way. :func:`render_calibration` presents it;
:func:`load_labelled_results` reads result files with the labels stored beside them (see
:mod:`agentgauge.storage` for the ``*.labels.jsonl`` format).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._util.lazy import lazy_exports

if TYPE_CHECKING:  # pragma: no cover
    from ._compute import LabelledResult, calibrate, judge_model_of
    from ._inputs import load_labelled_results
    from ._kappa import cohen_kappa, observed_agreement
    from ._model import Calibration, CalibrationGroup, Confusion, Disagreement
    from ._render import render_calibration

__all__ = [
    "Calibration",
    "CalibrationGroup",
    "Confusion",
    "Disagreement",
    "LabelledResult",
    "calibrate",
    "cohen_kappa",
    "judge_model_of",
    "load_labelled_results",
    "observed_agreement",
    "render_calibration",
]

__getattr__, __dir__ = lazy_exports(
    __name__,
    {
        "LabelledResult": "._compute",
        "calibrate": "._compute",
        "judge_model_of": "._compute",
        "load_labelled_results": "._inputs",
        "cohen_kappa": "._kappa",
        "observed_agreement": "._kappa",
        "Calibration": "._model",
        "CalibrationGroup": "._model",
        "Confusion": "._model",
        "Disagreement": "._model",
        "render_calibration": "._render",
    },
    __all__,
)
