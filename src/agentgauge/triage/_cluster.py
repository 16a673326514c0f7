"""Failing case runs grouped by signature, ranked by count × cost, optionally merged by reason similarity."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from pydantic import Field, computed_field

from ..divergence import DivergenceKind, divergence_text
from ..model import EvalCaseResult, EvalSetResult, EvalStatus, GaugeModel, omit_empty
from ..summary import result_summary
from ._signature import Signature, case_signature

__all__ = ["Cluster", "ClusterMember", "Triage", "triage_result"]


class ClusterMember(GaugeModel):
    """One failing case run of a cluster."""

    eval_id: str
    run_id: int = 1
    reason: str = ""
    cost: float | None = omit_empty()


class Cluster(GaugeModel):
    """Failures with one signature (or, merged, near-identical ones): how many, what they cost, what they share.

    ``weight`` ranks clusters: their size times their mean cost per run (runs without a known cost, such as runs
    that failed before their first turn, count the mean cost of the result's failing runs); the size alone when
    no run's cost is known. ``example`` is the most typical member (its exact reason is the commonest of the
    cluster's; ties: the shortest run, then the first id).
    """

    rank: int = 0
    title: str
    metric: str
    divergence: DivergenceKind | None = omit_empty()
    tool: str = omit_empty("")
    template: str = ""
    size: int = 0
    cost: float | None = omit_empty()
    weight: float = 0.0
    example: ClusterMember
    example_divergence: str = omit_empty("")
    members: list[ClusterMember] = Field(default_factory=list)
    merged: list[str] = omit_empty(factory=list)
    """The titles of the clusters merged into this one (``--merge``)."""


class Triage(GaugeModel):
    """A result's failing case runs in clusters, heaviest first (``agentgauge triage --json``).

    A failing case is one whose status, as the result's run decided it (its case status rule; see
    :func:`agentgauge.summary.result_summary`), is not ``passed``; its runs that did not pass are the failing case
    runs, which the clusters hold. ``cases`` / ``runs`` count every case and case run of the result.
    """

    source: str = ""
    eval_set_id: str = ""
    eval_set_result_id: str = ""
    cases: int = 0
    failing_cases: int = 0
    runs: int = 0
    failing: int = 0
    clusters: list[Cluster] = Field(default_factory=list)

    @computed_field  # type: ignore[prop-decorator]
    @property
    def headline(self) -> str:
        """``3 failing case(s) of 5 (7 failing run(s) of 15) in 2 cluster(s)``, as every surface heads a triage
        (the runs in parentheses only when some case ran more than once)."""
        runs = f" ({self.failing} failing run(s) of {self.runs})" if self.runs != self.cases else ""
        return f"{self.failing_cases} failing case(s) of {self.cases}{runs} in {len(self.clusters)} cluster(s)"

    def coverage(self, top: int) -> float:
        """The share of failing runs in the ``top`` heaviest clusters."""
        return sum(c.size for c in self.clusters[:top]) / self.failing if self.failing else 1.0


def _run_cost(run: EvalCaseResult) -> float | None:
    costs = [e.actual_invocation.usage.cost for e in run.eval_metric_result_per_invocation if e.actual_invocation.usage]
    known = [c for c in costs if c is not None]
    return sum(known) if known else None


@dataclass(slots=True)
class _Group:
    signature: Signature
    members: list[ClusterMember] = field(default_factory=list)
    steps: list[int] = field(default_factory=list)
    divergences: list[str] = field(default_factory=list)
    merged: list[str] = field(default_factory=list)


def _typical(group: _Group) -> int:
    """The index of the group's most typical member (see :class:`Cluster`)."""
    common = Counter(m.reason for m in group.members)
    return min(
        range(len(group.members)),
        key=lambda i: (-common[group.members[i].reason], group.steps[i], group.members[i].eval_id),
    )


def _cluster(group: _Group, mean_cost: float | None) -> Cluster:
    members = group.members
    costs = [m.cost for m in members if m.cost is not None]
    cost = sum(costs) if costs else None
    per_run = cost / len(costs) if cost is not None else mean_cost
    typical = _typical(group)
    sig = group.signature
    return Cluster(
        title=sig.text(),
        metric=sig.metric,
        divergence=sig.divergence,
        tool=sig.tool,
        template=sig.template,
        size=len(members),
        cost=cost,
        weight=len(members) * (per_run if per_run is not None else 1.0),
        example=members[typical],
        example_divergence=group.divergences[typical],
        members=members,
        merged=group.merged,
    )


def _groups(result: EvalSetResult) -> tuple[int, int, list[_Group]]:
    """(cases, failing case runs, groups): a run fails when it did not pass and its case did not pass either."""
    statuses = result_summary(result).case_status
    failing = 0
    groups: dict[Signature, _Group] = {}
    for run in result.eval_case_results:
        if run.final_eval_status is EvalStatus.PASSED or statuses.get(run.eval_id) is EvalStatus.PASSED:
            continue
        failing += 1
        signature, reason, divergence = case_signature(run)
        group = groups.setdefault(signature, _Group(signature))
        group.members.append(ClusterMember(eval_id=run.eval_id, run_id=run.run_id, reason=reason, cost=_run_cost(run)))
        group.steps.append(sum(len(e.actual_invocation.tools) + 1 for e in run.eval_metric_result_per_invocation))
        group.divergences.append(divergence_text(divergence, sides=("expected", "actual")) if divergence else "")
    return len(statuses), failing, list(groups.values())


def triage_result(result: EvalSetResult, *, source: str = "", merge: float | None = None) -> Triage:
    """The failing case runs of ``result`` (the runs that did not pass of the cases that did not pass, see
    :class:`Triage`) in clusters of equal signature, heaviest first. ``merge`` (0..1) also joins clusters of the
    same first failing metric, divergence and tool whose reason templates are at least that similar (see
    :func:`agentgauge.triage.merge_groups`)."""
    from ._merge import merge_groups

    cases, failing, groups = _groups(result)
    if merge is not None:
        groups = merge_groups(groups, merge)
    known = [m.cost for g in groups for m in g.members if m.cost is not None]
    mean_cost = sum(known) / len(known) if known else None
    clusters = sorted((_cluster(g, mean_cost) for g in groups), key=lambda c: (-c.weight, -c.size, c.title))
    for rank, cluster in enumerate(clusters, start=1):
        cluster.rank = rank
    return Triage(
        source=source,
        eval_set_id=result.eval_set_id,
        eval_set_result_id=result.eval_set_result_id,
        cases=cases,
        failing_cases=len({m.eval_id for g in groups for m in g.members}),
        runs=len(result.eval_case_results),
        failing=failing,
        clusters=clusters,
    )
