"""Statistics over evaluation results, free of any agentgauge type: pass@k and pass^k, percentile bootstrap
intervals over cases, and how many cases or runs a change needs to be detected.

Inside, lowest first: ``_passk`` (pass@k, pass^k), ``_bootstrap`` (percentile intervals from cases
resampled with numpy),
``_power`` (normal-approximation sample sizes, variance between and within cases), ``_reducers`` (a case's
scores over runs reduced to one).
"""

from ._bootstrap import (
    DEFAULT_RESAMPLES,
    DEFAULT_SEED,
    BootstrapSettings,
    Interval,
    bootstrap_weighted_sums,
    current_bootstrap,
    percentile,
    percentile_interval,
    ratio_delta_interval,
    ratio_interval,
    use_bootstrap,
)
from ._passk import pass_at_k, pass_hat_k
from ._power import (
    VarianceComponents,
    cases_for_means,
    cases_for_paired_means,
    cases_for_proportions,
    runs_for_cases,
    variance_components,
    z_total,
)
from ._reducers import REDUCERS, at_least_k, check_reducer, reduce_scores

__all__ = [
    "DEFAULT_RESAMPLES",
    "DEFAULT_SEED",
    "REDUCERS",
    "BootstrapSettings",
    "Interval",
    "VarianceComponents",
    "at_least_k",
    "bootstrap_weighted_sums",
    "cases_for_means",
    "cases_for_paired_means",
    "cases_for_proportions",
    "check_reducer",
    "current_bootstrap",
    "pass_at_k",
    "pass_hat_k",
    "percentile",
    "percentile_interval",
    "ratio_delta_interval",
    "ratio_interval",
    "reduce_scores",
    "runs_for_cases",
    "use_bootstrap",
    "variance_components",
    "z_total",
]
