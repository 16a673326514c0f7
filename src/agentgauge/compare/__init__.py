"""Comparing two evaluation results: which cases were fixed or broke, how metric means moved, pass@k, and whether a
change is statistically significant.

``compare_results(base, new)`` returns a :class:`Comparison` (a pydantic model, the ``--json`` output of
``agentgauge compare``) with the verdict of its gate (``fail_on``: a :class:`FailOn` rule or any :class:`GateRule`;
:func:`judge_gate` judges a comparison by another rule, :func:`gate_report` by the rules of a rules file,
:class:`GateRules`); :func:`print_comparison`, :func:`render_markdown` and
:func:`render_html` present it (:func:`render_html_section` is the HTML as a section of another page).
Both inputs may be native or ADK result files (read with :func:`agentgauge.formats.load_result`).
"""

from ._compute import compare_results
from ._gate import DEFAULT_FAIL_ON, FailOn, GateRule, check_alpha, fail_on_rule, judge_gate
from ._intervals import PASS_RATE
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
from ._rules import (
    PASS_RATE_METRIC,
    CaseBudgets,
    GateReport,
    GateRules,
    RuleVerdict,
    gate_report,
    load_gate_rules,
    rules_alpha,
)
from ._significance import fisher_exact, mcnemar_exact
from ._terminal import print_comparison

__all__ = [
    "DEFAULT_FAIL_ON",
    "PASS_RATE",
    "PASS_RATE_METRIC",
    "CaseBudgets",
    "CaseChange",
    "ChangeKind",
    "Comparison",
    "EstimateDelta",
    "FailOn",
    "GateReport",
    "GateRule",
    "GateRules",
    "GateVerdict",
    "MetricDelta",
    "PassAtK",
    "ResultRef",
    "RuleVerdict",
    "Significance",
    "check_alpha",
    "compare_results",
    "fail_on_rule",
    "fisher_exact",
    "gate_lines",
    "gate_report",
    "headline",
    "judge_gate",
    "load_gate_rules",
    "mcnemar_exact",
    "print_comparison",
    "render_html",
    "render_html_section",
    "render_markdown",
    "rules_alpha",
]
