"""Large Jaeger trace files made of agentevals' sample traces, each copy with new ids (stdlib only).

The samples are agentevals' own Jaeger exports of a Google ADK 1.x agent (``helm.json``, ``helm_2.json``,
``helm_3.json``, ``k8s.json``; github.com/agentevals-dev/agentevals ``samples/``, Apache-2.0), as copied into
``tests/traces/data/agentevals/`` (see the README there). Trace ``i`` of the output is sample ``i % 4`` with a new
trace id and a new ADK session id (so ``--by-session`` keeps one conversation per trace); spans and content are
unchanged. The eval set is agentevals' ``eval_set_helm.json``, used with its only case named
(``eval_set_helm.json:helm_list_releases``), so every trace pairs with that case.

    python benchmarks/gen_agentevals_traces.py --n 1000 --out DIR   # DIR/agentevals_n1000.jaeger.json
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
from pathlib import Path

SAMPLES_DIR = Path(__file__).resolve().parent.parent / "tests" / "traces" / "data" / "agentevals"
SAMPLES = ("helm.json", "helm_2.json", "helm_3.json", "k8s.json")
EVAL_SET = "eval_set_helm.json"
CASE = "helm_list_releases"
_SESSION = re.compile(rb"ctx-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")


def _templates() -> list[tuple[bytes, bytes, list[bytes]]]:
    """Each sample's one trace as compact JSON bytes, its trace id and the session ids it mentions."""
    out = []
    for name in SAMPLES:
        (trace,) = json.loads((SAMPLES_DIR / name).read_text(encoding="utf-8"))["data"]
        raw = json.dumps(trace, separators=(",", ":"), ensure_ascii=False).encode("utf-8")
        out.append((raw, trace["traceID"].encode(), sorted(set(_SESSION.findall(raw)))))
    return out


def _copy(template: tuple[bytes, bytes, list[bytes]], number: int) -> bytes:
    raw, trace_id, sessions = template
    raw = raw.replace(trace_id, f"{number + 1:032x}".encode())
    for index, session in enumerate(sessions):
        raw = raw.replace(session, f"ctx-{number:08x}-0000-4000-8000-{index:012x}".encode())
    return raw


def write(folder: Path, n: int) -> tuple[Path, Path]:
    """Write ``n`` traces (once per ``n``: an existing file is reused) and the eval set; return both paths."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"agentevals_n{n}.jaeger.json"
    evalset = folder / EVAL_SET
    shutil.copyfile(SAMPLES_DIR / EVAL_SET, evalset)
    if path.is_file():
        return path, evalset
    templates = _templates()
    tmp = path.with_suffix(".tmp")
    with open(tmp, "wb") as out:
        out.write(b'{"data":[')
        for number in range(n):
            if number:
                out.write(b",")
            out.write(_copy(templates[number % len(templates)], number))
        out.write(b'],"total":%d,"limit":0,"offset":0,"errors":null}' % n)
    os.replace(tmp, path)
    return path, evalset


def main() -> None:
    """Command line: ``--n`` traces into ``--out``."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=1000)
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args()
    path, evalset = write(args.out, args.n)
    print(f"{path} ({path.stat().st_size / 1e6:.1f} MB), eval set {evalset}:{CASE}")


if __name__ == "__main__":
    main()
