"""Sweep the eval files of other frameworks' repositories through ``agentgauge validate`` and ``agentgauge eval``.

Usage (each repository a git directory, e.g. from ``git clone --bare https://github.com/google/adk-python``)::

    python benchmarks/sweep_seed_files.py --out /tmp/sweep adk-python=/path/adk-python.git trpc=/path/trpc.git ...

For every repository the eval-related data files at ``HEAD`` are copied into ``OUT/NAME/`` (eval sets, legacy
``.test.json``, ``test_config.json``, ``.metrics.json``, result files, ``initial.session.json``, agentevals configs
and traces; JSON code blocks of the ``docs/evaluate/*.md`` pages of a docs repository become ``PAGE.mdN.json``),
then each file is checked:

- ``validate``: ``agentgauge validate FILE`` (trace files: ``agentgauge traces show FILE``);
- ``eval``: an eval set is scored in trace mode with its expected conversation replayed as the actual one, using
  the metrics file beside it (``<evalSetId>.metrics.json``, else ``test_config.json``, else ADK's defaults); a
  result file is turned back into a trace-mode set (its expected and actual invocations) and scored with the
  metrics beside it, and each deterministic metric's case score must equal the score the file records. Metrics that
  need an LLM judge are left out of the run (no judge is called) and counted in the note.

Prints one table row per file (repo, file, kind, validate, eval) and the counts per repository.
Exit code 0 when every file was accepted and every compared score matched, 1 otherwise.
"""

from __future__ import annotations

import argparse
import fnmatch
import json
import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

_PATTERNS = (
    "*.evalset.json",
    "*.test.json",
    "*test_config.json",
    "*eval_config*.json",
    "*eval_config*.yaml",
    "*eval_config*.yml",
    "*.metrics.json",
    "*.evalset_result.json",
    "*initial.session.json",
    "*test_cases.json",
    "*/eval_set*.json",
    "*/evalset_*.json",
    "samples/*.json",
)
_DOC_PAGES = "docs/evaluate/*.md"
_JSON_BLOCK = re.compile(r"^[ \t]*```json[^\n]*\n(.*?)^[ \t]*```", re.S | re.M)
_PLUGIN = "benchmarks.sweep_plugin"  # evaluators the originals' samples register in code
_ROOT = Path(__file__).resolve().parents[1]
_CLI = [sys.executable, "-c", "import sys; from agentgauge.cli import main; sys.exit(main())"]


@dataclass
class Row:
    """One swept file."""

    repo: str
    path: Path
    kind: str = ""
    validate: str = ""
    accepted: bool = False
    evaluation: str = "-"
    evaluated: bool = False
    mismatch: bool = False


def _git(git_dir: str, *args: str) -> bytes:
    return subprocess.run(["git", f"--git-dir={git_dir}", *args], check=True, capture_output=True).stdout


def extract(name: str, git_dir: str, out: Path) -> list[Path]:
    """Copy the repository's eval data files (and JSON blocks of its eval doc pages) into ``out/name``."""
    paths = _git(git_dir, "ls-tree", "-r", "--name-only", "HEAD").decode().splitlines()
    written: list[Path] = []
    for path in paths:
        wanted = any(fnmatch.fnmatch(path, p) for p in _PATTERNS) and not path.startswith(".")
        doc_page = fnmatch.fnmatch(path, _DOC_PAGES)
        if not (wanted or doc_page):
            continue
        data = _git(git_dir, "show", f"HEAD:{path}")
        if doc_page:
            for n, block in enumerate(_JSON_BLOCK.findall(data.decode("utf-8", "replace")), start=1):
                try:
                    doc = json.loads(block)
                except ValueError:
                    continue  # a fragment with "..." placeholders, not a file
                if _looks_like_eval_data(doc):
                    target = out / name / f"{path}{n}.json"
                    target.parent.mkdir(parents=True, exist_ok=True)
                    target.write_text(block, encoding="utf-8")
                    written.append(target)
            continue
        target = out / name / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
        written.append(target)
    return written


def _looks_like_eval_data(doc: Any) -> bool:
    if isinstance(doc, dict):
        return bool({"criteria", "eval_cases", "evalCases", "eval_set_id", "scenarios"} & set(doc))
    return (
        isinstance(doc, list)
        and bool(doc)
        and isinstance(doc[0], dict)
        and ("query" in doc[0] or "metricName" in doc[0])
    )


def _kind(path: Path) -> str:
    if path.suffix in (".yaml", ".yml"):
        return "agentevals config"
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except ValueError:
        return "not JSON"
    if isinstance(doc, dict) and ("batches" in doc or "resourceSpans" in doc or "resource_spans" in doc):
        return "trace"
    if isinstance(doc, dict) and isinstance(doc.get("data"), list) and doc["data"] and "spans" in doc["data"][0]:
        return "trace"
    from agentgauge.formats import detect_kind

    kind = detect_kind(doc)
    if kind is None and isinstance(doc, dict) and "app_name" in doc:
        return "initial session"
    if kind is None and isinstance(doc, dict) and "scenarios" in doc:
        return "scenarios"
    return (kind or "unknown").replace("_", " ")


def _env() -> dict[str, str]:
    """The environment of the commands run: the repository root importable, for the plug-in."""
    return {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [os.environ.get("PYTHONPATH"), str(_ROOT)]))}


def _run(args: list[str], cwd: Path | None = None) -> tuple[int, str]:
    proc = subprocess.run([*_CLI, *args], capture_output=True, text=True, cwd=cwd, check=False, env=_env())
    lines = [ln for ln in (proc.stdout + proc.stderr).splitlines() if ln.startswith(("ok:", "error:"))]
    last = lines[-1:] or (proc.stderr or proc.stdout).strip().splitlines()[-1:] or [""]
    return proc.returncode, last[0]


def _validate(row: Row) -> None:
    if row.kind == "trace":
        code, _ = _run(["traces", "show", str(row.path)])
        row.accepted = code == 0
        row.validate = "ok (traces show)" if code == 0 else f"exit {code}"
        return
    if row.kind == "agentevals config":
        row.validate = "not read (agentevals YAML config)"
        return
    code, line = _run(["validate", str(row.path)])
    row.accepted = code == 0
    row.validate = "ok" if code == 0 else line.split(": ", 2)[-1][:90]
    if code == 2 and "unknown metric" in line and _run(["validate", "--plugin", _PLUGIN, str(row.path)])[0] == 0:
        row.accepted = True
        row.validate = f"ok with --plugin {_PLUGIN} (the original registers the metric in code)"


def _metrics_beside(eval_set_path: Path, eval_set_id: str) -> Path | None:
    """``<evalSetId>.metrics.json``, else the only ``*.metrics.json``, else ``test_config.json`` beside the set."""
    folder = eval_set_path.parent
    named = folder / f"{eval_set_id}.metrics.json"
    if named.is_file():
        return named
    others = sorted(folder.glob("*.metrics.json"))
    if len(others) == 1:
        return others[0]
    config = folder / "test_config.json"
    return config if config.is_file() else None


def _deterministic(metrics_path: Path | None, scratch: Path) -> tuple[Path | None, list[str], list[str]]:
    """Write the metrics of ``metrics_path`` that need no judge to ``scratch``; return it, kept and skipped names."""
    from agentgauge.errors import InputError
    from agentgauge.evaluators import Registry
    from agentgauge.formats import default_adk_metrics, load_metrics, save_metrics

    registry = Registry()
    registry.load_plugins([_PLUGIN])
    metrics = load_metrics(metrics_path) if metrics_path else default_adk_metrics()
    try:
        registry.validate_metrics([m for m in metrics if not (m.extension or {}).get("custom_metric")])
    except InputError as exc:
        if "unknown metric" in exc.message:  # a metrics file the original refuses too: score with ADK's defaults
            metrics = default_adk_metrics()
    kept, skipped = [], []
    for metric in metrics:
        key = metric.evaluator_key
        if key in registry.names() and not registry.info(key).needs_judge:
            kept.append(metric)
        else:
            skipped.append(metric.metric_name)
    if not kept:
        return None, [], skipped
    save_metrics(kept, scratch)
    return scratch, [m.metric_name for m in kept], skipped


def _score_set(
    eval_set: Any, metrics_path: Path | None, scratch: Path
) -> tuple[int, dict[tuple[str, str], float], str]:
    """Score a trace-mode eval set; return the exit code, case scores by (case, metric) and a note."""
    from agentgauge.formats import save_eval_set

    scratch.mkdir(parents=True, exist_ok=True)
    metrics_file, kept, skipped = _deterministic(metrics_path, scratch / "metrics.json")
    note = f"{len(kept)} metrics" + (f", {len(skipped)} judge/user metrics not run" if skipped else "")
    if metrics_file is None:
        return -1, {}, note
    set_file, out = scratch / "set.evalset.json", str(scratch / "out")
    save_eval_set(eval_set, set_file)
    proc = subprocess.run(
        [
            *_CLI,
            "eval",
            str(set_file),
            "--metrics",
            str(metrics_file),
            "--plugin",
            _PLUGIN,
            "--json",
            "--output-dir",
            out,
        ],
        capture_output=True,
        text=True,
        check=False,
        env=_env(),
    )
    scores: dict[tuple[str, str], float] = {}
    if proc.returncode in (0, 1):
        for case in json.loads(proc.stdout).get("evalCaseResults", []):
            for m in case.get("overallEvalMetricResults", []):
                if m.get("score") is not None:
                    scores[(case["evalId"], m["metricName"])] = m["score"]
    else:
        note += ": " + (proc.stderr.strip().splitlines() or ["?"])[-1][:90]
    return proc.returncode, scores, note


def _replayed(eval_set: Any) -> tuple[Any, int]:
    """The set in trace mode with every expected conversation as the actual one; scenario-only cases dropped."""
    cases = []
    for case in eval_set.eval_cases:
        if not case.conversation and not case.actual_conversation:
            continue
        actual = case.actual_conversation or case.conversation
        cases.append(case.model_copy(update={"eval_mode": "trace", "actual_conversation": actual}))
    return eval_set.model_copy(update={"eval_cases": cases}), len(eval_set.eval_cases) - len(cases)


def _evaluate_set(row: Row, scratch: Path) -> None:
    from agentgauge.formats import load_eval_set

    eval_set = load_eval_set(row.path)
    replayed, dropped = _replayed(eval_set)
    if not replayed.eval_cases:
        row.evaluation = "scenario cases only (need a simulated user)"
        return
    metrics = _metrics_beside(row.path, eval_set.eval_set_id)
    code, _, note = _score_set(replayed, metrics, scratch)
    row.evaluated = code in (0, 1)
    where = metrics.name if metrics else "ADK defaults"
    extra = f", {dropped} scenario cases skipped" if dropped else ""
    status = {0: "all passed", 1: "scored, not all passed", -1: "no metric without a judge"}.get(code, f"exit {code}")
    row.evaluation = f"{status} ({where}: {note}{extra})"


def _evaluate_result(row: Row, scratch: Path) -> None:
    from agentgauge.formats import load_result
    from agentgauge.model import EvalCase, EvalSet

    result = load_result(row.path)
    cases, expected_scores = [], {}
    for cr in result.eval_case_results:
        per_inv = cr.eval_metric_result_per_invocation
        if not per_inv:
            continue
        expected = [p.expected_invocation for p in per_inv if p.expected_invocation is not None]
        cases.append(
            EvalCase(
                eval_id=cr.eval_id,
                eval_mode="trace",
                conversation=expected if len(expected) == len(per_inv) else None,
                actual_conversation=[p.actual_invocation for p in per_inv],
            )
        )
        for m in cr.overall_eval_metric_results:
            if m.score is not None:
                expected_scores[(cr.eval_id, m.metric_name)] = m.score
    if not cases:
        row.evaluation = "no invocations recorded"
        return
    metrics = next(iter(sorted(row.path.parent.parent.parent.glob(f"data/*/{result.eval_set_id}.metrics.json"))), None)
    code, scores, note = _score_set(EvalSet(eval_set_id=result.eval_set_id, eval_cases=cases), metrics, scratch)
    row.evaluated = code in (0, 1)
    compared = [k for k in scores if k in expected_scores]
    diffs = [k for k in compared if abs(scores[k] - expected_scores[k]) > 1e-9]
    row.mismatch = bool(diffs)
    if code == -1:
        row.evaluation = f"judge metrics only: not scored, not compared ({note})"
    elif code not in (0, 1):
        row.evaluation = f"exit {code} ({note})"
    elif diffs:
        row.evaluation = "SCORES DIFFER: " + ", ".join(
            f"{c}/{m} {scores[(c, m)]} != {expected_scores[(c, m)]}" for c, m in diffs
        )
    elif not compared:
        row.evaluation = f"scored; the file records no deterministic score to compare ({note})"
    else:
        row.evaluation = f"{len(compared)} case scores equal ({note})"


def _eval_set_for_trace(trace: Path) -> Path | None:
    """The eval set beside a trace file whose name contains the trace's stem (``helm_2`` falls back to ``helm``)."""
    sets = [p for p in trace.parent.glob("*.json") if p != trace and _kind(p) == "eval set"]
    stem = trace.stem
    while stem:
        found = sorted(p for p in sets if re.search(rf"(^|_){re.escape(stem)}(_|\.|$)", p.name))
        if found:
            return found[0]
        stem = re.sub(r"_?\d+$", "", stem) if re.search(r"\d$", stem) else ""
    return None


def _evaluate_trace(row: Row, scratch: Path) -> None:
    from agentgauge.formats import load_eval_set

    eval_set = _eval_set_for_trace(row.path)
    if eval_set is None:
        row.evaluation = "no eval set beside it (reference-free metrics need a judge)"
        return
    base = ["eval", "--traces", str(row.path), "--output-dir", str(scratch)]
    code, line = _run([*base, "--eval-set", str(eval_set)])
    how = ""
    cases = load_eval_set(eval_set).eval_cases
    if code == 2 and "match no case" in line and len(cases) == 1:
        # agentevals pairs every trace with the only case of a one-case set; agentgauge wants the case named.
        code, line = _run([*base, "--eval-set", f"{eval_set}:{cases[0].eval_id}"])
        how = f", case named as {eval_set.name}:{cases[0].eval_id}"
    row.evaluated = code in (0, 1)
    status = {0: "all passed", 1: "scored, not all passed"}.get(code, f"exit {code}: {line[:80]}")
    row.evaluation = f"{status} (against {eval_set.name}{how})"


def main(argv: list[str] | None = None) -> int:
    """Extract, validate, evaluate and print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("repos", nargs="+", metavar="NAME=GIT_DIR")
    parser.add_argument("--out", type=Path, required=True, help="Scratch directory (created).")
    args = parser.parse_args(argv)
    rows: list[Row] = []
    for spec in args.repos:
        name, _, git_dir = spec.partition("=")
        for path in extract(name, git_dir or name, args.out):
            rows.append(Row(repo=name, path=path, kind=_kind(path)))
    for n, row in enumerate(rows):
        _validate(row)
        if not row.accepted:
            continue
        scratch = args.out / "_runs" / str(n)
        if row.kind == "eval set":
            _evaluate_set(row, scratch)
        elif row.kind == "result":
            _evaluate_result(row, scratch)
        elif row.kind == "trace":
            _evaluate_trace(row, scratch)
    print("| repo | file | kind | validate | eval |\n|---|---|---|---|---|")
    for row in rows:
        rel = row.path.relative_to(args.out / row.repo)
        print(f"| {row.repo} | {rel} | {row.kind} | {row.validate} | {row.evaluation} |")
    print("\n| repo | files | accepted | evaluated | rejected | score mismatches |\n|---|---|---|---|---|---|")
    for repo in dict.fromkeys(r.repo for r in rows):
        mine = [r for r in rows if r.repo == repo]
        print(
            f"| {repo} | {len(mine)} | {sum(r.accepted for r in mine)} | {sum(r.evaluated for r in mine)} | "
            f"{sum(not r.accepted for r in mine)} | {sum(r.mismatch for r in mine)} |"
        )
    return 0 if all(r.accepted and not r.mismatch for r in rows) else 1


if __name__ == "__main__":
    os.environ.setdefault("NO_COLOR", "1")
    raise SystemExit(main())
