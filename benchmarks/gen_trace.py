"""Write a deterministic trace-mode eval set for the scale benchmark (stdlib only).

Every case carries its golden turns as ``conversation`` and the recorded twin (see ``gen.py``) as
``actualConversation`` with ``"evalMode": "trace"``, so ``agentgauge eval`` scores it without an agent. The set is
built and written in blocks of ``BLOCK`` cases, so even 1,000,000 cases need little memory here.

    python benchmarks/gen_trace.py --n 100000 --out DIR   # DIR/trace_n100000_s11.evalset.json + .metrics.json
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from gen import DEFAULT_SEED, NATIVE_METRICS, build, native_form

BLOCK = 2000


def trace_set_id(n: int, seed: int) -> str:
    """The eval set id (and file stem) of a generated trace set."""
    return f"trace_n{n}_s{seed}"


def _cases(n: int, seed: int) -> Any:
    for start in range(0, n, BLOCK):
        size = min(BLOCK, n - start)
        data = build(size, seed + start)  # one seed per block keeps every block deterministic and independent
        golden = native_form(data.golden, "x", "")["evalCases"]
        recorded = native_form(data.recorded, "x", "")["evalCases"]
        for offset, (exp, act) in enumerate(zip(golden, recorded, strict=True)):
            yield {
                "evalId": f"case{start + offset:07d}",
                "evalMode": "trace",
                "conversation": exp["conversation"],
                "actualConversation": act["conversation"],
                "sessionInput": exp["sessionInput"],
            }


def write(out: Path, n: int, seed: int = DEFAULT_SEED) -> tuple[Path, Path]:
    """Write the set and its metrics file; return both paths (an existing set of the same name is reused)."""
    out.mkdir(parents=True, exist_ok=True)
    set_id = trace_set_id(n, seed)
    path = out / f"{set_id}.evalset.json"
    metrics = out / f"{set_id}.metrics.json"
    metrics.write_text(json.dumps(NATIVE_METRICS, indent=2) + "\n", encoding="utf-8")
    if path.is_file():
        return path, metrics
    tmp = path.with_suffix(".tmp")
    with open(tmp, "w", encoding="utf-8") as fh:
        fh.write(f'{{"evalSetId": "{set_id}", "evalCases": [\n')
        for index, case in enumerate(_cases(n, seed)):
            fh.write((",\n" if index else "") + json.dumps(case, ensure_ascii=False, separators=(",", ":")))
        fh.write("\n]}\n")
    tmp.replace(path)
    return path, metrics


def main(argv: list[str] | None = None) -> int:
    """Command line: write a trace set and print its path and size."""
    parser = argparse.ArgumentParser(description="Write a deterministic trace-mode eval set.")
    parser.add_argument("--n", type=int, default=100_000, help="number of cases")
    parser.add_argument("--seed", type=int, default=DEFAULT_SEED)
    parser.add_argument("--out", type=Path, default=Path("bench-data"))
    args = parser.parse_args(argv)
    path, metrics = write(args.out, args.n, args.seed)
    print(f"{path} {path.stat().st_size / 1e6:.1f} MB; metrics {metrics}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
