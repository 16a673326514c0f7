"""A calibration as a terminal table (at most 80 columns), Markdown or JSON."""

from __future__ import annotations

from ..errors import printable
from ._model import Calibration, CalibrationGroup, Disagreement

__all__ = ["render_calibration"]

WIDTH = 80
"""The terminal table's width: long metric and judge model names are shortened to fit."""

_LEGEND = (
    "TP: judge pass, human pass   FP: judge pass, human fail",
    "FN: judge fail, human pass   TN: judge fail, human fail",
)
_LEVELS = {"case": "case", "invocation": "inv."}


def render_calibration(calibration: Calibration, fmt: str = "text") -> str:
    """``calibration`` as ``text`` (the terminal table), ``markdown`` or ``json``."""
    if fmt == "json":
        return calibration.model_dump_json(indent=2) + "\n"
    if fmt == "markdown":
        return _markdown(calibration)
    if fmt == "text":
        return _text(calibration)
    raise ValueError(f"unknown calibration format {fmt!r}: text, markdown or json")


def _number(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.3f}"


def _headline(calibration: Calibration) -> str:
    results = len(calibration.results)
    unmatched = f" ({calibration.unmatched_labels} matched no judge verdict)" if calibration.unmatched_labels else ""
    return (
        f"Judge calibration: {results} result{'s' * (results != 1)}, "
        f"{calibration.labels} label{'s' * (calibration.labels != 1)}{unmatched}"
    )


def _cut(text: str, width: int) -> str:
    return text if len(text) <= width else text[: max(width - 1, 0)] + "…"


def _where(d: Disagreement, *, runs: bool) -> str:
    case = f"{d.eval_set_id}/{d.eval_id}" if d.eval_set_id else d.eval_id
    run = f" run {d.run_id}" if runs else ""
    turn = f" invocation {d.invocation}" if d.invocation is not None else ""
    return printable(f"{case}{run}{turn}", lines=False)


def _verdicts(d: Disagreement) -> str:
    score = "" if d.score is None else f" (score {d.score:g})"
    judge = "pass" if d.judge_passed else "fail"
    human = "pass" if d.human_passed else "fail"
    return f"judge {judge}{score}, human {human}"


def _note(d: Disagreement) -> str:
    author = f" ({d.author})" if d.author else ""
    return printable(f"{d.note}{author}", lines=False) if d.note else ""


def _text(calibration: Calibration) -> str:
    lines = [_headline(calibration), ""]
    groups = calibration.groups
    if not groups:
        lines.append("No labelled judge verdict: label cases in the web UI or give --labels LABELS.jsonl.")
        return "\n".join(lines) + "\n"
    fixed = ["level", "n", "accuracy", "kappa", "TP", "FP", "FN", "TN"]
    widths = [5, 4, 8, 6, 3, 3, 3, 3]
    room = WIDTH - sum(widths) - len(widths) - 1  # one space before each column
    metric_w = max(len("metric"), *(len(g.metric_name) for g in groups))
    judge_w = max(len("judge model"), *(len(g.judge_model) for g in groups))
    if metric_w + judge_w > room:  # too long: the judge model gets at most half the room, the metric the rest
        judge_w = max(len("judge model"), min(judge_w, room // 2))
        metric_w = room - judge_w
    lines.append(_row([_cut("metric", metric_w), _cut("judge model", judge_w), *fixed], [metric_w, judge_w, *widths]))
    for g in groups:
        c = g.confusion
        cells = [_LEVELS[g.level], str(g.labelled), _number(g.accuracy), _number(g.kappa)]
        counts = [c.judge_pass_human_pass, c.judge_pass_human_fail, c.judge_fail_human_pass, c.judge_fail_human_fail]
        cells += [str(n) for n in counts]
        names = [
            _cut(printable(g.metric_name, lines=False), metric_w),
            _cut(printable(g.judge_model, lines=False), judge_w),
        ]
        lines.append(_row([*names, *cells], [metric_w, judge_w, *widths]))
    lines += ["", *_LEGEND]
    lines += _text_disagreements(groups)
    return "\n".join(lines) + "\n"


def _row(cells: list[str], widths: list[int]) -> str:
    """The first three cells (metric, judge model, level) left-aligned, the numbers right-aligned."""
    parts = [f"{c:<{w}}" if i < 3 else f"{c:>{w}}" for i, (c, w) in enumerate(zip(cells, widths, strict=True))]
    return " ".join(parts).rstrip()


def _text_disagreements(groups: list[CalibrationGroup]) -> list[str]:
    lines: list[str] = []
    for g in groups:
        if not g.disagreements:
            continue
        title = f"Disagreements: {g.metric_name} judged by {g.judge_model} (per {g.level})"
        lines += ["", _cut(printable(title, lines=False) + ":", WIDTH)]
        runs = any(d.run_id != 1 for d in g.disagreements)
        for d in g.disagreements:
            lines.append(_cut(f"  {_where(d, runs=runs)}: {_verdicts(d)}", WIDTH))
            if d.note:
                lines.append(_cut(f"    note: {_note(d)}", WIDTH))
    return lines


def _md(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _markdown(calibration: Calibration) -> str:
    lines = [f"## {_headline(calibration)}", ""]
    if not calibration.groups:
        return "\n".join([*lines, "No labelled judge verdict."]) + "\n"
    lines += [
        "| metric | judge model | level | labelled | accuracy | Cohen's κ | TP | FP | FN | TN |",
        "|---|---|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for g in calibration.groups:
        c = g.confusion
        lines.append(
            f"| `{_md(g.metric_name)}` | {_md(g.judge_model)} | {g.level} | {g.labelled} | {_number(g.accuracy)} | "
            f"{_number(g.kappa)} | {c.judge_pass_human_pass} | {c.judge_pass_human_fail} | "
            f"{c.judge_fail_human_pass} | {c.judge_fail_human_fail} |"
        )
    lines += ["", "; ".join(part.replace("   ", "; ") for part in _LEGEND) + "."]
    for g in calibration.groups:
        if g.disagreements:
            lines += ["", f"### Disagreements: `{_md(g.metric_name)}` judged by {_md(g.judge_model)} ({g.level})", ""]
            for d in g.disagreements:
                note = f": {_md(_note(d))}" if d.note else ""
                lines.append(f"- {_md(_where(d, runs=True))}: {_verdicts(d)}{note}")
    return "\n".join(lines) + "\n"
