"""Comparing two evaluation results: which cases were fixed or broke, how metric means moved, pass@k, and whether a
change is statistically significant.

``compare_results(base, new)`` returns a :class:`Comparison` (a pydantic model, the ``--json`` output of
``agentgauge compare``) with the verdict of its gate (``fail_on``: a :class:`FailOn` rule or any :class:`GateRule`;
:func:`judge_gate` judges a comparison by another rule); :func:`print_comparison`, :func:`render_markdown` and
:func:`render_html` present it (:func:`render_html_section` is the HTML as a section of another page).
Both inputs may be native or ADK result files (read with :func:`agentgauge.formats.load_result`).
"""

from ._compute import compare_results
from ._gate import DEFAULT_FAIL_ON, FailOn, GateRule, check_alpha, fail_on_rule, judge_gate
from ._model import (
    CaseChange,
    ChangeKind,
    Comparison,
    EstimateDelta,
    GateVerdict,
    MetricDelta,
    PassAtK,
    ResultRef,
    Significance,
)
from ._render import gate_lines, headline, render_html, render_html_section, render_markdown
from ._significance import fisher_exact, mcnemar_exact
from ._terminal import print_comparison

__all__ = [
    "DEFAULT_FAIL_ON",
    "CaseChange",
    "ChangeKind",
    "Comparison",
    "EstimateDelta",
    "FailOn",
    "GateRule",
    "GateVerdict",
    "MetricDelta",
    "PassAtK",
    "ResultRef",
    "Significance",
    "check_alpha",
    "compare_results",
    "fail_on_rule",
    "fisher_exact",
    "gate_lines",
    "headline",
    "judge_gate",
    "mcnemar_exact",
    "print_comparison",
    "render_html",
    "render_html_section",
    "render_markdown",
]
