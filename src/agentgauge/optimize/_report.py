"""The audit report as Markdown, as a self-contained HTML page, and as the terminal's lines: one set of values
(:class:`AuditReport`), three presentations."""

from __future__ import annotations

import datetime as dt
import html

from ..compare import EstimateDelta
from ._audit import AuditReport, CandidateRecord, SplitScore

__all__ = ["render_audit_html", "render_audit_markdown", "score_cell", "summary_lines"]


def score_cell(score: SplitScore | None) -> str:
    """``0.300 [0.100, 0.600] (3/10 cases)``; ``-`` without a score."""
    if score is None or score.pass_rate is None:
        return "-"
    interval = f" [{score.low:.3f}, {score.high:.3f}]" if score.low is not None and score.high is not None else ""
    return f"{score.pass_rate:.3f}{interval} ({score.passed_cases}/{score.cases} cases)"


def _gain(estimate: EstimateDelta | None) -> str:
    if estimate is None or estimate.delta is None:
        return "-"
    interval = (
        f" [{estimate.low:+.3f}, {estimate.high:+.3f}]"
        if estimate.low is not None and estimate.high is not None
        else ""
    )
    return f"{estimate.delta:+.3f}{interval}"


def _rows(report: AuditReport) -> list[tuple[str, str, str, str]]:
    rows = []
    for split in ("train", "validation"):
        evidence = report.evidence.get(split)
        gain = evidence.estimates[0] if evidence is not None and evidence.estimates else None
        rows.append(
            (
                split,
                score_cell(report.baseline.get(split)),
                score_cell(evidence.candidate if evidence is not None else None),
                _gain(gain),
            )
        )
    return rows


def _headline(report: AuditReport) -> str:
    return f"Optimisation {report.optimization_id}: {report.verdict.upper()}"


def _facts(report: AuditReport) -> list[str]:
    when = dt.datetime.fromtimestamp(report.created, dt.UTC).strftime("%Y-%m-%d %H:%M UTC")
    spent = report.spent
    cost = f"{spent.total_cost:.6g} {spent.currency}" + (
        f" (+{spent.agent_cost_missing} turns without a price)" if spent.agent_cost_missing else ""
    )
    return [
        f"agent: {report.agent} (app {report.app_name}; source {report.agent_identity.rpartition('#')[2][:12] or '-'})",
        f"optimizer: {report.optimizer}; reflection model: {report.reflection_model or '-'}; agent models: "
        f"{', '.join(report.models) or '-'}",
        f"train: {report.train.eval_set_id} ({len(report.train.case_ids)} cases); validation: "
        f"{report.validation.eval_set_id} ({len(report.validation.case_ids)} cases); metrics: "
        f"{', '.join(report.train.metrics) or '-'}",
        f"budget: {report.budget}; spent: {spent.metric_calls} metric calls, {spent.gate_case_runs} gate case runs, "
        f"{spent.model_calls} agent model calls, {spent.reflection_calls} reflection calls, "
        f"{spent.judge_calls} judge calls, cost {cost}, "
        f"{spent.seconds:.1f} s" + (f" (search stopped by the {spent.stopped_by} budget)" if spent.stopped_by else ""),
        f"agentgauge {report.agentgauge_version}, {when}",
    ]


def summary_lines(report: AuditReport) -> list[str]:
    """The terminal's summary: headline, scores per split, the gate's verdicts."""
    lines = [_headline(report)]
    width = max(len(score_cell(s)) for s in [*report.baseline.values(), None]) + 2
    lines.append(f"  {'split':<11}{'baseline':<{width}}{'candidate':<{width}}gain [95% interval]")
    for split, base, new, gain in _rows(report):
        lines.append(f"  {split:<11}{base:<{width}}{new:<{width}}{gain}")
    if report.gate is not None:
        lines += report.gate.lines()
    elif report.proposed is None:
        lines.append("Gate: not run (the search proposed no candidate better than the baseline)")
    lines += [f"note: {note}" for note in report.notes]
    return lines


def render_audit_markdown(report: AuditReport) -> str:
    """The report as Markdown."""
    out = [f"# {_headline(report)}", ""]
    out += [f"- {fact}" for fact in _facts(report)]
    out += ["", "## Scores (pass rate of case runs, 95% bootstrap intervals)", ""]
    out += ["| split | baseline | candidate | gain |", "|---|---|---|---|"]
    out += [f"| {a} | {b} | {c} | {d} |" for a, b, c, d in _rows(report)]
    if report.gate is not None:
        out += ["", "## Gate", "", "```text", *report.gate.lines(), "```"]
    if report.diff:
        out += ["", "## Proposed patch", "", "```diff", report.diff.rstrip("\n"), "```"]
    out += ["", "## Surfaces", "", "| surface | kind | baseline sha256 | proposed sha256 |", "|---|---|---|---|"]
    out += [
        f"| `{s.surface_id}` | {s.kind} | `{s.sha256[:16]}` | `{(s.proposed_sha256 or '')[:16]}` |"
        for s in report.surfaces
    ]
    out += [
        "",
        "## Search",
        "",
        "| candidate | search score | parents | patch id | proposed |",
        "|---|---|---|---|---|",
    ]
    for c in report.candidates:
        index, score, parents, pid, proposed = _search_row(c)
        out.append(f"| {index} | {score} | {parents} | `{pid}` | {proposed} |")
    if report.notes:
        out += ["", "## Notes", "", *[f"- {note}" for note in report.notes]]
    return "\n".join(out) + "\n"


_STYLE = (
    "body{font:14px/1.45 system-ui,sans-serif;margin:2rem;max-width:72rem;color:#222}"
    "table{border-collapse:collapse;margin:.5rem 0}td,th{border:1px solid #ccc;padding:.25rem .5rem;text-align:left}"
    "pre{background:#f6f6f6;padding:.6rem;overflow:auto}.accepted{color:#176d2b}.rejected,.no{color:#a31d1d}"
    ".add{color:#176d2b}.del{color:#a31d1d}"
)


def _table(head: list[str], rows: list[list[str]]) -> str:
    cells = "".join(f"<th>{html.escape(h)}</th>" for h in head)
    body = "".join("<tr>" + "".join(f"<td>{html.escape(c)}</td>" for c in row) + "</tr>" for row in rows)
    return f"<table><thead><tr>{cells}</tr></thead><tbody>{body}</tbody></table>"


def _diff_html(diff: str) -> str:
    lines = []
    for line in diff.splitlines():
        kind = "add" if line.startswith("+") and not line.startswith("+++") else ""
        kind = "del" if line.startswith("-") and not line.startswith("---") else kind
        lines.append(f'<span class="{kind}">{html.escape(line)}</span>' if kind else html.escape(line))
    return "<pre>" + "\n".join(lines) + "</pre>"


def _search_row(c: CandidateRecord) -> list[str]:
    score = "-" if c.search_score is None else f"{c.search_score:.3f}"
    return [str(c.index), score, ", ".join(map(str, c.parents)) or "-", c.patch_id, "yes" if c.proposed else ""]


def render_audit_html(report: AuditReport) -> str:
    """The report as one HTML page with no scripts and no outside resources."""
    verdict = report.verdict.split()[0]
    parts = [f'<h1 class="{verdict}">{html.escape(_headline(report))}</h1>']
    parts.append("<ul>" + "".join(f"<li>{html.escape(f)}</li>" for f in _facts(report)) + "</ul>")
    parts.append("<h2>Scores (pass rate of case runs, 95% bootstrap intervals)</h2>")
    parts.append(_table(["split", "baseline", "candidate", "gain"], [list(r) for r in _rows(report)]))
    if report.gate is not None:
        parts.append("<h2>Gate</h2><pre>" + html.escape("\n".join(report.gate.lines())) + "</pre>")
    if report.diff:
        parts.append("<h2>Proposed patch</h2>" + _diff_html(report.diff))
    rows = [[s.surface_id, s.kind, s.sha256[:16], (s.proposed_sha256 or "")[:16]] for s in report.surfaces]
    parts.append("<h2>Surfaces</h2>" + _table(["surface", "kind", "baseline sha256", "proposed sha256"], rows))
    search = [_search_row(c) for c in report.candidates]
    parts.append("<h2>Search</h2>" + _table(["candidate", "search score", "parents", "patch id", "proposed"], search))
    if report.notes:
        parts.append("<h2>Notes</h2><ul>" + "".join(f"<li>{html.escape(n)}</li>" for n in report.notes) + "</ul>")
    title = html.escape(_headline(report))
    return (
        f'<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>{title}</title>'
        f"<style>{_STYLE}</style></head><body>{''.join(parts)}</body></html>\n"
    )
