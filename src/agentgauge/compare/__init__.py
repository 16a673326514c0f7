"""Comparing two evaluation results: which cases were fixed or broke, how metric means moved, pass@k, and whether a
change is statistically significant.

``compare_results(base, new)`` returns a :class:`Comparison` (a pydantic model, the ``--json`` output of
``agentgauge compare``); :func:`print_comparison`, :func:`render_markdown` and :func:`render_html` present it
(:func:`render_html_section` is the HTML as a section of another page).
Both inputs may be native or ADK result files (read with :func:`agentgauge.formats.load_result`).
"""

from ._compute import compare_results
from ._model import CaseChange, ChangeKind, Comparison, EstimateDelta, MetricDelta, PassAtK, ResultRef, Significance
from ._render import headline, render_html, render_html_section, render_markdown
from ._significance import fisher_exact, mcnemar_exact
from ._terminal import print_comparison

__all__ = [
    "CaseChange",
    "ChangeKind",
    "Comparison",
    "EstimateDelta",
    "MetricDelta",
    "PassAtK",
    "ResultRef",
    "Significance",
    "compare_results",
    "fisher_exact",
    "headline",
    "mcnemar_exact",
    "print_comparison",
    "render_html",
    "render_html_section",
    "render_markdown",
]
