"""A triage as text: one block per cluster (size, weight, shared reason, example)."""

from __future__ import annotations

from ._cluster import Triage

__all__ = ["CLUSTERS_SHOWN", "triage_lines"]

CLUSTERS_SHOWN = 50
"""At most this many clusters are written out; the rest are counted (``--json`` has them all)."""


def _money(value: float) -> str:
    return f"${value:.4f}" if value < 1 else f"${value:.2f}"


def triage_lines(triage: Triage) -> list[str]:
    """The clusters, heaviest first: rank, size, share, cost, the shared reason and the typical member."""
    lines = [triage.headline + (f" ({triage.eval_set_id})" if triage.eval_set_id else "")]
    for cluster in triage.clusters[:CLUSTERS_SHOWN]:
        share = cluster.size / triage.failing if triage.failing else 0.0
        cost = f", cost {_money(cluster.cost)}" if cluster.cost is not None else ""
        lines.append(f"#{cluster.rank}  {cluster.size} run(s) ({share:.0%}){cost}  {cluster.title}")
        example = cluster.example
        reason = example.reason.splitlines()[0] if example.reason else ""
        lines.append(f"    example: {example.eval_id} (run {example.run_id}): {reason}")
        if cluster.example_divergence:
            lines.append(f"    {cluster.example_divergence}")
        if cluster.merged:
            lines.append(f"    merged: {'; '.join(cluster.merged[:5])}" + (" ..." if len(cluster.merged) > 5 else ""))
    if len(triage.clusters) > CLUSTERS_SHOWN:
        lines.append(f"... and {len(triage.clusters) - CLUSTERS_SHOWN} more cluster(s) (--json has them all)")
    return lines
