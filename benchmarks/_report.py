"""SPEC §11 targets and the summary tables (terminal text and Markdown) built from a results document."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

STARTUP_LIMIT_S = 0.3


def _ratio(a: float | None, b: float | None) -> float | None:
    return a / b if a is not None and b else None


def _get(doc: dict[str, Any], *path: Any) -> Any:
    cur: Any = doc
    for step in path:
        if isinstance(cur, dict):
            cur = cur.get(step)
        elif isinstance(cur, list) and isinstance(step, int) and step < len(cur):
            cur = cur[step]
        else:
            return None
        if cur is None:
            return None
    return cur


def _target(name: str, value: float | None, goal: str, test: Callable[[float], bool], note: str = "") -> dict[str, Any]:
    return {
        "name": name,
        "value": value,
        "goal": goal,
        "met": None if value is None else bool(test(value)),
        "note": note,
    }


def _at_most(limit: float) -> Callable[[float], bool]:
    return lambda v: v <= limit


def _e2e_row(doc: dict[str, Any], metrics: str, p: int) -> dict[str, Any] | None:
    for row in _get(doc, "measures", "e2e", "runs") or []:
        if row["metrics"] == metrics and row["parallelism"] == p:
            return dict(row)
    return None


def targets(doc: dict[str, Any]) -> list[dict[str, Any]]:
    """Every SPEC §11 target with the measured value and whether it was met (``None``: not measured)."""
    m = doc.get("measures", {})
    score = m.get("scoring", {})
    verified = _get(score, "verification", "ok")
    out = [
        _target(
            "scores equal ADK's (max abs diff per invocation)",
            max(
                (e.get("max_abs_diff", 0.0) for e in (_get(score, "verification", "metrics") or {}).values()),
                default=None,
            )
            if verified is not None
            else None,
            "<= 1e-12",
            lambda v: verified is True and v <= 1e-12,
        ),
        _target(
            "scoring throughput vs ADK (both metrics)",
            _ratio(_get(score, "agentgauge", "cases_per_s", "both"), _get(score, "adk", "cases_per_s", "both")),
            ">= 20x",
            lambda v: v >= 20,
        ),
    ]
    load = m.get("load", {})
    out.append(
        _target(
            "load MB/s vs ADK (ADK-format file)",
            _ratio(_get(load, "agentgauge_adk_file", "mb_per_s"), _get(load, "adk", "mb_per_s")),
            ">= 4x",
            lambda v: v >= 4,
        )
    )
    out.append(
        _target(
            "load peak RSS vs ADK",
            _ratio(_get(load, "agentgauge_adk_file", "peak_rss_mb"), _get(load, "adk", "peak_rss_mb")),
            "<= 0.333x",
            lambda v: v <= 1 / 3,
        )
    )
    for metrics in ("traj+rouge", "traj"):
        for p, limit in ((16, 1.15), (200, 2.0)):
            row = _e2e_row(doc, metrics, p)
            value = _get(row, "agentgauge", "wall_over_ideal") if row else None
            notes = []
            for key, label in (("projection_nocopy_stores", "no-copy stores"), ("projection_gc_freeze", "gc.freeze")):
                projected = _get(row, key, "wall_over_ideal") if row else None
                if projected:
                    notes.append(f"projection with {label}: {projected:.2f}x")
            note = "; ".join(notes)
            name = f"e2e wall / ideal, P={p}, {metrics}"
            out.append(_target(name, value, f"<= {limit}x", _at_most(limit), note))
    for p, limit in ((16, 1.15), (200, 2.0)):
        cli_row = next((r for r in _get(m, "cli", "runs") or [] if r["parallelism"] == p), None)
        value = cli_row["net_over_ideal"] if cli_row else None
        name = f"CLI eval (wall - --help) / ideal, P={p}, traj+rouge"
        out.append(_target(name, value, f"<= {limit}x", _at_most(limit)))
    scale = m.get("scale")
    if scale:
        note = f"N={scale['n_cases']:,}, {scale['eval']['wall_s']:.1f} s, result file {scale['result_mb']:.0f} MB"
        out.append(
            _target("scale: eval peak RSS (MB)", scale["eval"]["peak_rss_mb"], "<= 1000 MB", _at_most(1000), note)
        )
    for row in _get(m, "traces", "runs") or []:  # issue 26: eval --traces in bounded memory
        note = f"{row['input_mb']:.0f} MB input, {row['spans_per_cpu_s']:,.0f} spans per CPU-second"
        name = f"traces: eval --traces peak RSS (MB), {row['n_traces']:,} traces"
        out.append(_target(name, row["peak_rss_mb"], "<= 1000 MB", _at_most(1000), note))
    serve = m.get("serve")
    if serve:
        note = f"{serve['set_mb']} MB set, {serve['server_cpu_ms_per_get']} ms server CPU per GET"
        name = f"serve: GETs/s of one eval set, {serve['clients']} clients"
        out.append(_target(name, serve["gets_per_s"], ">= 50", lambda v: v >= 50, note))
    for row in _get(m, "judge", "runs") or []:
        if row["configuration"] == "follows --parallelism":
            judge = m["judge"]
            note = f"{row['peak_judge_calls']} judge calls at once at most, {row['net_s']:.2f} s net"
            name = f"CLI judge calls: (wall - --help) / ideal, N={judge['n_cases']}, P={judge['parallelism']}"
            out.append(_target(name, row["net_over_ideal"], "<= 1.2x", _at_most(1.2), note))
    for row in _get(m, "startup", "runs") or []:
        if row["target"] in ("agentgauge --help", "import agentgauge"):
            out.append(_target(f"start-up: {row['target']}", row["wall_s"], "< 0.3 s", lambda v: v < STARTUP_LIMIT_S))
    ref = doc.get("reference_check")
    if ref and ref.get("ran"):
        out.append(
            {
                "name": "shared reference data: mean case scores 0.738167 / 0.984559",
                "value": None,
                "goal": "exact (6 places)",
                "met": ref.get("ok"),
                "note": "; ".join(
                    f"{form}: " + " / ".join(f"{x}" for x in (v.get("mean_case_scores") or {}).values())
                    if v.get("mean_case_scores")
                    else f"{form}: {v.get('error', 'no scores')[:80]}"
                    for form, v in ref.get("forms", {}).items()
                ),
            }
        )
    return out


def _fmt(v: Any, spec: str = ".3g") -> str:
    if v is None:
        return "–"
    if isinstance(v, float):
        return format(v, spec)
    return str(v)


def tables(doc: dict[str, Any]) -> list[tuple[str, list[str], list[list[str]]]]:
    """The summary as (title, header, rows) tables."""
    m = doc.get("measures", {})
    out: list[tuple[str, list[str], list[list[str]]]] = []
    score = m.get("scoring")
    if score:
        rows = []
        for label in ("both", "trajectory", "rouge"):
            ours = _get(score, "agentgauge", "cases_per_s", label)
            adk = _get(score, "adk", "cases_per_s", label)
            rows.append([label, _fmt(ours, ",.0f"), _fmt(adk, ",.0f"), _fmt(_ratio(ours, adk), ".1f")])
        rows.append(
            [
                "peak RSS (MB)",
                _fmt(_get(score, "agentgauge", "peak_rss_mb"), ".0f"),
                _fmt(_get(score, "adk", "peak_rss_mb"), ".0f"),
                _fmt(_ratio(_get(score, "agentgauge", "peak_rss_mb"), _get(score, "adk", "peak_rss_mb")), ".2f"),
            ]
        )
        title = f"Scoring, ADK dialect, N={score['n_cases']} ({score['n_invocations']} invocations), cases/s"
        if score.get("refused"):
            title += f" — REFUSED: {score['refused']}"
        out.append((title, ["metrics", "agentgauge", "ADK", "ratio"], rows))
    load = m.get("load")
    if load:
        a, n, k = load.get("agentgauge_adk_file", {}), load.get("agentgauge_native_file", {}), load.get("adk", {})
        rows = []
        for label, key, spec in (("MB/s", "mb_per_s", ".1f"), ("seconds", "seconds", ".2f"),
                                 ("peak RSS (MB)", "peak_rss_mb", ".0f")):  # fmt: skip
            ratio = _ratio(k.get(key), a.get(key)) if key == "seconds" else _ratio(a.get(key), k.get(key))
            rows.append(
                [label, _fmt(a.get(key), spec), _fmt(n.get(key), spec), _fmt(k.get(key), spec), _fmt(ratio, ".2f")]
            )
        header = ["measure", "agentgauge (ADK file)", "agentgauge (native file)", "ADK", "ratio (ADK file)"]
        title = f"Load, N={load['n_cases']} ({_fmt(a.get('bytes', 0) / 1e6, '.1f')} MB ADK file), fresh process each"
        out.append((title, header, rows))
    e2e = m.get("e2e")
    if e2e:
        sides = ["agentgauge", "adk", "pydantic-evals"]
        header = ["metrics", "P", "ideal s", "agentgauge", "ADK", "pydantic-evals"]
        for key, label in (("projection_nocopy_stores", "no-copy stores"), ("projection_gc_freeze", "gc.freeze")):
            if any(key in r for r in e2e["runs"]):
                sides.append(key)
                header.append(f"projection: {label}")
        header.append("same scores")
        rows = []
        for r in e2e["runs"]:
            cells = [r["metrics"], str(r["parallelism"]), _fmt(r["ideal_s"], ".2f")]
            for side in sides:
                s = r.get(side)
                cells.append(f"{s['wall_s']:.2f} s ({s['wall_over_ideal']:.2f}x)" if s else "–")
            cells.append("error" if "error" in r else "yes" if r["scores_agree"] else "NO")
            rows.append(cells)
        title = f"End to end, N={e2e['n_cases']} ({e2e['n_invocations']} invocations), latency {e2e['latency_s']} s"
        out.append((title, header, rows))
    startup = m.get("startup")
    if startup:
        ref = next((r for r in startup["runs"] if r["target"] == "import google.adk.evaluation"), None)
        rows = [
            [
                r["target"],
                _fmt(r["wall_s"], ".3f"),
                _fmt(r["peak_rss_mb"], ".0f"),
                _fmt(_ratio(ref["wall_s"], r["wall_s"]), ".1f") if ref and r["framework"] == "agentgauge" else "",
            ]
            for r in startup["runs"]
        ]
        header = ["command", "wall s", "peak RSS MB", "x faster than import google.adk.evaluation"]
        out.append(("Start-up (median, fresh process)", header, rows))
    cli = m.get("cli")
    if cli:
        rows = [
            [str(r["parallelism"]), _fmt(r["ideal_s"], ".2f"), _fmt(r["eval_wall_s"], ".2f"),
             _fmt(r["help_wall_s"], ".2f"), _fmt(r["net_s"], ".2f"), f"{r['net_over_ideal']:.2f}x",
             _fmt(r["peak_rss_mb"], ".0f")]
            for r in cli["runs"]
        ]  # fmt: skip
        header = ["P", "ideal s", "eval wall s", "--help s", "net s", "net / ideal", "peak RSS MB"]
        title = f"CLI end to end, N={cli['n_cases']} ({cli['n_invocations']} invocations), latency {cli['latency_s']} s"
        out.append((title, header, rows))
    scale = m.get("scale")
    if scale:
        rows = [
            [label, _fmt(scale[key]["wall_s"], ".1f"), _fmt(scale[key]["peak_rss_mb"], ".0f")]
            for key, label in (("eval", "agentgauge eval"), ("show", "agentgauge show"))
        ]  # fmt: skip
        title = (
            f"Scale, N={scale['n_cases']:,} trace-mode cases ({scale['evalset_mb']:.0f} MB eval set, "
            f"{scale['result_mb']:.0f} MB result file)"
        )
        out.append((title, ["command", "wall s", "peak RSS MB"], rows))
    serve = m.get("serve")
    if serve:
        row = [str(serve["clients"]), _fmt(serve["gets_per_s"], ".1f"), _fmt(serve["mean_latency_ms"], ".1f"),
               _fmt(serve["server_cpu_ms_per_get"], ".2f")]  # fmt: skip
        header = ["clients", "GETs/s", "mean latency ms", "server CPU ms per GET"]
        out.append((f"agentgauge serve: GET of one {serve['set_mb']} MB eval set", header, [row]))
    judge = m.get("judge")
    if judge:
        rows = [
            [r["configuration"], _fmt(r["ideal_s"], ".2f"), _fmt(r["eval_wall_s"], ".2f"), _fmt(r["net_s"], ".2f"),
             f"{r['net_over_ideal']:.2f}x", str(r["peak_judge_calls"])]
            for r in judge["runs"]
        ]  # fmt: skip
        header = ["judge calls", "ideal s", "eval wall s", "net s", "net / ideal", "peak calls at once"]
        title = (
            f"CLI judge calls, N={judge['n_cases']} trace cases, one {judge['judge_latency_s']} s judge call each, "
            f"--parallelism {judge['parallelism']}"
        )
        out.append((title, header, rows))
    status = {True: "met", False: "MISSED", None: "n/a"}
    rows = [
        [t["name"], _fmt(t["value"], ".3g"), t["goal"], status[t["met"]], t["note"]] for t in doc.get("targets", [])
    ]
    out.append(("SPEC §11 targets", ["target", "value", "goal", "status", "note"], rows))
    return out


def render_text(doc: dict[str, Any]) -> str:
    """Fixed-width tables for the terminal."""
    chunks = []
    for title, header, rows in tables(doc):
        widths = [max(len(str(x)) for x in col) for col in zip(header, *rows, strict=True)]
        line = "  ".join(h.ljust(w) for h, w in zip(header, widths, strict=True))
        body = ["  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)) for row in rows]
        chunks.append("\n".join([title, line, "-" * len(line), *body]))
    return "\n\n".join(chunks) + "\n"


def render_markdown(doc: dict[str, Any]) -> str:
    """GitHub Markdown tables (used for benchmarks/README.md)."""
    chunks = []
    for title, header, rows in tables(doc):
        lines = [f"**{title}**", "", "| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
        lines += ["| " + " | ".join(row) + " |" for row in rows]
        chunks.append("\n".join(lines))
    return "\n\n".join(chunks) + "\n"
