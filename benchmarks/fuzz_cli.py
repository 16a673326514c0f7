"""Mutation fuzzer for the command line: bad input must give exit 2 and one ``error:`` line, never a traceback.

Every file in ``examples/`` (eval sets of every dialect, metrics, ``test_config.json``, results, legacy files and an
initial session), the trace recordings and a human label, plus trace-mode twins of the eval sets, is mutated -- keys
deleted or duplicated, types changed, empty / huge / odd unicode strings, nesting 150-1100 levels deep, number edge
cases, ids as objects, truncation, a BOM, invalid UTF-8 -- and each mutant goes through the commands that read that
kind of file (``validate``, ``convert --to native`` / ``--to adk``, ``eval`` in trace mode or with
``examples/calculator/agent.py``, ``show``, ``migrate``, ``plan``, ``traces show`` / ``doctor``, ``eval --traces``,
``calibrate --labels``), in-process through the typer application. A run reports::

    inputs tried / command runs / tracebacks / exit-2-but-wrote-something / other findings

and exits 1 when anything was found. ``tests/cli/test_cli_fuzz.py`` drives the same mutations from hypothesis.

    python benchmarks/fuzz_cli.py --inputs 3000 --seed 1
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import re
import shutil
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples"
AGENT = EXAMPLES / "calculator" / "agent.py"
MAX_ERROR_LINE = 2000  # an error line quotes values cut to ~200 characters, plus the file name and JSON path


class Raw:
    """A JSON token written verbatim (``NaN``, ``1e400``, ``-0`` ...): values json cannot express as Python data."""

    def __init__(self, text: str) -> None:
        self.text = text


class DupDict(dict[str, Any]):
    """An object written with one key twice (the first value is ``dup_value``)."""

    dup_key: str = ""
    dup_value: Any = None


# --- seeds -----------------------------------------------------------------------------------------------------


@dataclass
class Seed:
    """One example file: its name, role (``evalset`` / ``metrics`` / ``result`` / ``legacy`` / ``session`` /
    ``trace`` / ``labels``) and
    parsed content; ``trace`` marks eval sets that ``eval`` runs without an agent, ``agent`` those it runs with the
    calculator agent."""

    name: str
    role: str
    doc: Any
    trace: bool = False
    agent: bool = False


def _trace_twin(doc: dict[str, Any]) -> dict[str, Any]:
    twin = json.loads(json.dumps(doc))
    cases = twin.get("evalCases", twin.get("eval_cases", []))
    for case in cases:
        case["evalMode"] = "trace"
        conv = case.get("conversation")
        if isinstance(conv, list):
            case["actualConversation"] = json.loads(json.dumps(conv))
    return twin


def load_seeds() -> list[Seed]:
    """The example files, classified, with trace-mode twins of the eval sets."""
    seeds: list[Seed] = []
    for path in sorted(EXAMPLES.rglob("*.json")):
        if "plugins" in path.relative_to(EXAMPLES).parts:
            continue  # valid only with its plug-in loaded (--plugin), which the fuzzed commands do not pass
        doc = json.loads(path.read_text(encoding="utf-8"))
        name = path.name
        if name.endswith(".evalset_result.json"):
            seeds.append(Seed(name, "result", doc))
        elif name.endswith(".test.json"):
            seeds.append(Seed(name, "legacy", doc))
        elif name.endswith(".session.json"):
            seeds.append(Seed(name, "session", doc))
        elif name.endswith(".metrics.json") or name == "test_config.json":
            seeds.append(Seed(name, "metrics", doc))
        elif name.endswith(".evalset.json"):
            seeds.append(Seed(name, "evalset", doc, agent=path.parent.name == "calculator"))
            seeds.append(Seed(name.replace(".evalset.json", "_trace.evalset.json"), "evalset", _trace_twin(doc), True))
    for path in sorted((EXAMPLES / "traces").glob("*.otlp.jsonl")):  # a recording's export requests, as one array
        lines = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
        seeds.append(Seed(path.name.replace(".jsonl", ".json"), "trace", lines))
    labels = (EXAMPLES / "calibration" / "LABELS.jsonl").read_text(encoding="utf-8").splitlines()
    seeds.append(Seed("LABELS.jsonl", "labels", json.loads(labels[0])))  # one label: a JSON Lines file of one line
    return seeds


# --- mutations -------------------------------------------------------------------------------------------------

HOT_KEYS = (
    "id",
    "evalId",
    "eval_id",
    "evalSetId",
    "eval_set_id",
    "appName",
    "app_name",
    "metricName",
    "metric_name",
    "threshold",
    "args",
    "arguments",
    "response",
    "result",
    "extension",
    "state",
    "criteria",
    "criterion",
    "invocationId",
    "tool_responses",
    "tool_uses",
    "parts",
    "content",
    "score",
    "evalStatus",
    "finalEvalStatus",
)
ODD_STRINGS = (
    "",
    " ",
    "\x00",
    "a\x00b",
    "\ud800",
    "\udfff x",
    "é" * 3,
    "\u202e\u0301\ufeff",
    "😀" * 5,
    "../../etc",
    "a/b",
    "x" * 240,
    "${HOME}",
    "\n\t",
    "None",
    "null",
)
ODD_NUMBERS = ("NaN", "Infinity", "-Infinity", "1e400", "-1e400", "-0", "-0.0", "1e-400", "1.5", "-1")
BIG_INTS = (2**63, 2**64, -(2**63) - 1, 10**30, 10**400)
DEPTHS = (150, 199, 200, 201, 210, 250, 254, 255, 256, 300, 1100)


def _nodes(doc: Any) -> list[tuple[Any, Any]]:
    """Every (container, key) pair of the tree, in document order."""
    out: list[tuple[Any, Any]] = []
    stack = [doc]
    while stack:
        node = stack.pop()
        items = node.items() if isinstance(node, dict) else enumerate(node) if isinstance(node, list) else ()
        for key, value in items:
            out.append((node, key))
            if isinstance(value, (dict, list)):
                stack.append(value)
    return out


def _deep(rng: random.Random, depth: int) -> Any:
    value: Any = rng.choice([1, "leaf", None, {}])
    shape = rng.choice(["list", "dict", "mixed"])
    for i in range(depth):
        kind = shape if shape != "mixed" else ("list" if i % 2 else "dict")
        value = [value] if kind == "list" else {"k": value}
    return value


def _other_type(rng: random.Random, value: Any) -> Any:
    choices: list[Any] = [
        "text",
        0,
        7,
        -3,
        0.5,
        None,
        True,
        [],
        {},
        [value],
        {"x": value},
        value[:20] if isinstance(value, str) else str(value) if not isinstance(value, (dict, list)) else "{}",
        Raw(rng.choice(ODD_NUMBERS)),
        rng.choice(BIG_INTS),
        rng.choice(ODD_STRINGS),
    ]
    return rng.choice(choices)


def _mutate_tree(rng: random.Random, doc: Any) -> tuple[Any, str]:
    nodes = _nodes(doc)
    if not nodes:
        return _other_type(rng, doc), "replace the document"
    hot = [n for n in nodes if isinstance(n[1], str) and n[1] in HOT_KEYS]
    parent, key = rng.choice(hot) if hot and rng.random() < 0.6 else rng.choice(nodes)
    value = parent[key]
    op = rng.choice(
        [
            "delete",
            "delete",
            "type",
            "type",
            "type",
            "empty",
            "huge",
            "deep",
            "deep",
            "unicode",
            "number",
            "object_id",
            "duplicate",
            "long_id",
            "list_of",
        ]
    )
    where = f"{op} at {key!r}"
    if op == "delete":
        if isinstance(parent, dict):
            del parent[key]
        else:
            parent.pop(key)
    elif op == "type":
        parent[key] = _other_type(rng, value)
    elif op == "empty":
        parent[key] = rng.choice(["", [], {}, None])
    elif op == "huge":
        parent[key] = rng.choice("ab") * rng.choice([10_000, 300_000])
    elif op == "deep":
        parent[key] = _deep(rng, rng.choice(DEPTHS))
    elif op == "unicode":
        parent[key] = rng.choice(ODD_STRINGS) + (value if isinstance(value, str) else "")
    elif op == "number":
        parent[key] = Raw(rng.choice(ODD_NUMBERS)) if rng.random() < 0.7 else rng.choice(BIG_INTS)
    elif op == "object_id":
        parent[key] = rng.choice([{"a": 1}, [1, 2], {"$oid": "x"}])
    elif op == "duplicate" and isinstance(parent, dict):
        dup = DupDict(parent)
        dup.dup_key, dup.dup_value = str(key), _other_type(rng, value)
        _replace_container(doc, parent, dup)
        if parent is doc:
            doc = dup
    elif op == "long_id":
        parent[key] = rng.choice(["i" * 240, "i" * 300, "a/" * 60, "x" * 100_000])
    else:
        parent[key] = [value, value] if rng.random() < 0.5 else [value]
    return doc, where


def _replace_container(doc: Any, old: Any, new: Any) -> None:
    for parent, key in _nodes(doc):
        if parent[key] is old:
            parent[key] = new
            return


def _dumps(value: Any, out: list[str]) -> None:
    # A tiny serializer (json cannot write Raw tokens or duplicate keys); iterative enough for 1100 levels.
    stack: list[Any] = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, Raw):
            out.append(item.text)
        elif isinstance(item, dict):
            pairs = list(item.items())
            if isinstance(item, DupDict) and item.dup_key:
                pairs.insert(0, (item.dup_key, item.dup_value))
            parts: list[Any] = [Raw("}")]
            for i, (k, v) in enumerate(reversed(pairs)):
                parts.append(v)
                parts.append(Raw(json.dumps(k) + ":"))
                if i < len(pairs) - 1:
                    parts.append(Raw(","))
            parts.append(Raw("{"))
            stack.extend(parts)
        elif isinstance(item, list):
            parts = [Raw("]")]
            for i, v in enumerate(reversed(item)):
                parts.append(v)
                if i < len(item) - 1:
                    parts.append(Raw(","))
            parts.append(Raw("["))
            stack.extend(parts)
        elif isinstance(item, float) and not math.isfinite(item):
            out.append("NaN")
        else:
            out.append(json.dumps(item))


def serialize(doc: Any) -> bytes:
    """``doc`` as JSON bytes (lone surrogates are written as ``\\udXXX`` escapes, like a JSON writer would)."""
    out: list[str] = []
    _dumps(doc, out)
    return "".join(out).encode("utf-8", "surrogatepass")


def _mutate_bytes(rng: random.Random, data: bytes) -> tuple[bytes, str]:
    op = rng.choice(["truncate", "bom", "bom", "nul", "bad_utf8", "surrogate_bytes", "utf16", "empty", "garbage"])
    if op == "truncate":
        return data[: rng.randrange(0, max(1, len(data)))], op
    if op == "bom":
        return b"\xef\xbb\xbf" + data, op
    if op == "nul":
        cut = rng.randrange(0, max(1, len(data)))
        return data[:cut] + b"\x00" + data[cut:], op
    if op == "bad_utf8":
        cut = data.find(b'"', rng.randrange(0, max(1, len(data)))) + 1
        return data[:cut] + b"\xff\xfe" + data[cut:], op
    if op == "surrogate_bytes":
        cut = data.find(b'"', rng.randrange(0, max(1, len(data)))) + 1
        return data[:cut] + "\ud800".encode("utf-8", "surrogatepass") + data[cut:], op
    if op == "utf16":
        return b"\xff\xfe" + data.decode("utf-8").encode("utf-16-le"), op
    if op == "empty":
        return rng.choice([b"", b"   \n", b"null", b"[]", b"{}", b'""', b"0"]), op
    return bytes(rng.randrange(256) for _ in range(rng.randrange(1, 64))), op


def mutate(rng: random.Random, seed: Seed) -> tuple[bytes, str]:
    """Mutated bytes of ``seed`` and a short description of what was done."""
    doc = json.loads(json.dumps(seed.doc))
    steps: list[str] = []
    for _ in range(rng.choice([1, 1, 1, 2, 3])):
        doc, step = _mutate_tree(rng, doc)
        steps.append(step)
    data = serialize(doc)
    if rng.random() < 0.15:
        data, step = _mutate_bytes(rng, data)
        steps.append(step)
    return data, "; ".join(steps)


# --- running the commands --------------------------------------------------------------------------------------


@dataclass
class Finding:
    """Something wrong with one command run."""

    kind: str  # traceback / wrote-on-exit-2 / bad-exit-code / no-error-line / long-error-line
    signature: str
    command: list[str]
    mutation: str
    input_file: Path


@dataclass
class Stats:
    """Totals of a fuzz run."""

    inputs: int = 0
    runs: int = 0
    exit_codes: Counter[int] = field(default_factory=Counter)
    findings: list[Finding] = field(default_factory=list)

    def count(self, kind: str) -> int:
        """How many findings of ``kind``."""
        return sum(1 for f in self.findings if f.kind == kind)


def _listing(folder: Path) -> set[str]:
    return {str(p.relative_to(folder)) for p in folder.rglob("*")} if folder.exists() else set()


def commands_for(seed: Seed, file: Path, out: Path, helpers: dict[str, Path]) -> list[list[str]]:
    """The command lines that read a mutant of ``seed`` stored at ``file``; every output goes under ``out``."""
    cmds: list[list[str]] = [["validate", str(file)]]
    if seed.role in ("evalset", "metrics", "result", "legacy"):
        cmds.append(["convert", str(file), str(out / "converted.json"), "--to", "native"])
        cmds.append(["convert", str(file), str(out / "converted.json"), "--to", "adk"])
    run_opts = ["--output-dir", str(out / "results"), "--timeout", "20", "--no-cache"]
    if seed.role == "evalset" and seed.trace:
        cmds.append(["eval", str(file), *run_opts, "--config", str(helpers["metrics"])])
    elif seed.role == "evalset" and seed.agent:
        cmds.append(["eval", str(AGENT), str(file), *run_opts, "--config", str(helpers["metrics"])])
    elif seed.role == "metrics":
        cmds.append(["eval", str(helpers["trace_set"]), *run_opts, "--config", str(file)])
    elif seed.role == "result":
        cmds.append(["show", str(file)])
        cmds.append(["show", str(file), "--json", "--markdown", str(out / "report.md")])
        cmds.append(["plan", str(file), "--delta", "0.1"])
    elif seed.role == "trace":
        cmds = [["traces", "show", str(file)], ["traces", "doctor", str(file)]]
        cmds.append(["eval", "--traces", str(file), *run_opts, "--eval-set", str(helpers["weather_set"])])
    elif seed.role == "labels":
        cmds = [["calibrate", str(EXAMPLES / "calibration" / "results"), "--labels", str(file)]]
    elif seed.role == "legacy":
        cmds.append(["migrate", str(file), str(out / "migrated.json")])
    elif seed.role == "session":
        cmds.append(["migrate", str(helpers["legacy"]), str(out / "migrated.json"), "--initial-session", str(file)])
    return cmds


def _signature(exc: BaseException) -> str:
    tb = exc.__traceback__
    last = ""
    while tb is not None:
        code = tb.tb_frame.f_code
        if "agentgauge" in code.co_filename:
            last = f"{Path(code.co_filename).name}:{tb.tb_lineno}"
        tb = tb.tb_next
    return f"{type(exc).__name__} at {last}: {_first_line(str(exc))}"


def _first_line(text: str) -> str:
    # Findings are grouped by signature: keep the first line and fold numbers, so one defect counts once.
    line = text.strip().splitlines()[0] if text.strip() else ""
    return re.sub(r"\d+", "N", line)[:100]


def run_one(app: Any, args: list[str], workdir: Path) -> tuple[int, str, str, BaseException | None]:
    """Run ``agentgauge ARGS`` in-process from ``workdir``: exit code, stdout, stderr, uncaught exception."""
    from typer.testing import CliRunner

    here = os.getcwd()
    os.chdir(workdir)
    try:
        res = CliRunner().invoke(app, args, catch_exceptions=True)
    finally:
        os.chdir(here)
    exc = res.exception if res.exception is not None and not isinstance(res.exception, SystemExit) else None
    return res.exit_code, res.stdout, res.stderr, exc


def check_run(app: Any, args: list[str], workdir: Path, out: Path) -> tuple[int, list[tuple[str, str]]]:
    """Run one command and judge it: its exit code and a list of (kind, signature) findings."""
    before = _listing(workdir)
    code, stdout, stderr, exc = run_one(app, args, workdir)
    found: list[tuple[str, str]] = []
    text = stdout + stderr
    if exc is not None:
        found.append(("traceback", _signature(exc)))
    elif "Traceback (most recent call last)" in text:
        found.append(("traceback", "printed traceback: " + text.split("Traceback", 1)[1][:100]))
    if code not in (0, 1, 2):
        found.append(("bad-exit-code", f"exit {code}"))
    if code == 2:
        added = _listing(workdir) - before
        if added:
            found.append(("wrote-on-exit-2", f"{args[0]} wrote {_first_line(min(added))[:60]}"))
        lines = [line for line in stderr.splitlines() if line.startswith("error:")]
        if not lines:
            found.append(("no-error-line", f"{args[0]}: {stderr[:120]!r}"))
        longest = max((len(line) for line in stderr.splitlines()), default=0)
        if longest > MAX_ERROR_LINE:
            found.append(("long-error-line", f"{args[0]}: over {MAX_ERROR_LINE} characters"))
    shutil.rmtree(out, ignore_errors=True)
    out.mkdir(parents=True, exist_ok=True)
    return code, found


def prepare(workdir: Path) -> dict[str, Path]:
    """Clean helper files a mutant is combined with (a trace set, its metrics, a legacy file)."""
    seeds = {s.name: s for s in load_seeds()}
    helpers = workdir / "helpers"
    helpers.mkdir(parents=True, exist_ok=True)
    paths = {
        "weather_set": EXAMPLES / "traces" / "weather.evalset.json",
        "metrics": helpers / "calculator.metrics.json",
        "trace_set": helpers / "calculator_trace.evalset.json",
        "legacy": helpers / "home_automation.test.json",
    }
    paths["metrics"].write_bytes(serialize(seeds["calculator.metrics.json"].doc))
    paths["trace_set"].write_bytes(serialize(seeds["calculator_trace.evalset.json"].doc))
    paths["legacy"].write_bytes(serialize(seeds["home_automation.test.json"].doc))
    return paths


def fuzz(
    n_inputs: int, seed: int, workdir: Path, *, log: Callable[[str], None] | None = None, deadline: float = 0
) -> Stats:
    """Mutate ``n_inputs`` inputs and run every command that reads each; findings are collected in the stats."""
    from agentgauge.cli import app

    rng = random.Random(seed)
    seeds = load_seeds()
    helpers = prepare(workdir)
    stats = Stats()
    for i in range(n_inputs):
        if deadline and time.monotonic() > deadline:
            break
        chosen = rng.choice(seeds)
        data, how = mutate(rng, chosen)
        case_dir = workdir / "case"
        shutil.rmtree(case_dir, ignore_errors=True)
        out = case_dir / "out"
        out.mkdir(parents=True)
        file = case_dir / chosen.name
        file.write_bytes(data)
        stats.inputs += 1
        for args in commands_for(chosen, file, out, helpers):
            code, found = check_run(app, args, case_dir, out)
            stats.runs += 1
            stats.exit_codes[code] += 1
            for kind, signature in found:
                keep = workdir / "findings" / f"{len(stats.findings):04d}_{chosen.name}"
                keep.parent.mkdir(exist_ok=True)
                keep.write_bytes(data)
                stats.findings.append(Finding(kind, signature, args, how, keep))
                if log:
                    log(f"[{i}] {kind}: {signature}  ({args[0]}; {how})")
    return stats


def main(argv: list[str] | None = None) -> int:
    """Command-line entry: run the fuzzer and print the totals."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--inputs", type=int, default=2000, help="mutated inputs to try (default 2000)")
    parser.add_argument("--seed", type=int, default=1, help="random seed (default 1)")
    parser.add_argument("--minutes", type=float, default=0, help="stop after this many minutes (default: no limit)")
    parser.add_argument("--keep", type=Path, default=None, help="keep inputs that found something in this folder")
    parser.add_argument("--quiet", action="store_true", help="print only the totals")
    opts = parser.parse_args(argv)
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 1000))
    workdir = opts.keep or Path(tempfile.mkdtemp(prefix="agentgauge-fuzz-"))
    deadline = time.monotonic() + opts.minutes * 60 if opts.minutes else 0
    started = time.perf_counter()
    stats = fuzz(opts.inputs, opts.seed, workdir, log=None if opts.quiet else print, deadline=deadline)
    elapsed = time.perf_counter() - started
    signatures = Counter(f"{f.kind}: {f.signature}" for f in stats.findings)
    for sig, n in signatures.most_common():
        print(f"{n:5d}  {sig}")
    print(
        f"inputs tried: {stats.inputs}  command runs: {stats.runs}  tracebacks: {stats.count('traceback')}  "
        f"exit-2-but-wrote-something: {stats.count('wrote-on-exit-2')}  "
        f"other findings: {len(stats.findings) - stats.count('traceback') - stats.count('wrote-on-exit-2')}  "
        f"exit codes: {dict(sorted(stats.exit_codes.items()))}  ({elapsed:.0f} s, seed {opts.seed})"
    )
    if opts.keep is None:
        shutil.rmtree(workdir, ignore_errors=True)
    return 1 if stats.findings else 0


if __name__ == "__main__":
    sys.exit(main())
