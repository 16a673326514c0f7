"""Failure triage: a result's failing case runs grouped by a deterministic signature, heaviest first.

The signature of a failing run (:func:`case_signature`) is its first failing metric (or ``(error)``), how it first
diverged from its expected turns (:mod:`agentgauge.divergence`) and at which tool, and its reason as a template
with numbers, ids and quoted values replaced (:func:`reason_template`). :func:`triage_result` groups the runs by it
into :class:`Cluster` s ranked by count × cost, optionally merging clusters whose templates are near-identical
(rapidfuzz when installed, else difflib); :func:`candidate_cases` proposes one golden case per cluster for review.
"""

from ._candidates import REVIEW_KEY, add_candidates, candidate_cases
from ._cluster import Cluster, ClusterMember, Triage, triage_result
from ._merge import MAX_COMPARED, merge_groups, similarity_function
from ._signature import ERROR_METRIC, Signature, case_signature, failure_reason, reason_template
from ._text import CLUSTERS_SHOWN, triage_lines

__all__ = [
    "CLUSTERS_SHOWN",
    "ERROR_METRIC",
    "MAX_COMPARED",
    "REVIEW_KEY",
    "Cluster",
    "ClusterMember",
    "Signature",
    "Triage",
    "add_candidates",
    "candidate_cases",
    "case_signature",
    "failure_reason",
    "merge_groups",
    "reason_template",
    "similarity_function",
    "triage_lines",
    "triage_result",
]
