"""Cross-check against the shared reference generator: its N = 1000 data must give the published mean case scores."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

from _harness import Config, MeasureError, call

# The shared reference generator sits beside the checkout (``../shared``); /work/shared on the development machine.
SHARED_GENERATOR = next(
    (
        p
        for p in (
            Path(__file__).resolve().parents[2] / "shared" / "bench" / "gen_data.py",
            Path("/work/shared/bench/gen_data.py"),
        )
        if p.exists()
    ),
    Path("/work/shared/bench/gen_data.py"),
)
# Mean case scores published with the shared generator (ADK 2.13 on its N = 1000, seed 20240601 data).
PUBLISHED = {"tool_trajectory_avg_score": 0.738167, "response_match_score": 0.984559}


def reference_check(cfg: Config, script: Path = SHARED_GENERATOR) -> dict[str, Any]:
    """Run the shared script for N = 1000 and score its ADK and native files with agentgauge."""
    if not script.exists():
        return {"ran": False, "ok": None, "reason": f"{script} not found"}
    out = cfg.data_dir / "reference_n1000"
    done = subprocess.run(
        [sys.executable, str(script), "--n", "1000", "--out", str(out)], capture_output=True, text=True, timeout=600
    )
    if done.returncode != 0:
        return {"ran": False, "ok": False, "reason": f"{script} failed: {done.stderr.strip()[-500:]}"}
    prefix = out / "evalset_n1000_s20240601"
    forms = {
        "adk": (f"{prefix}.expected.adk.json", f"{prefix}.actual.adk.json", str(out / "test_config.json")),
        "native": (f"{prefix}.expected.trpc.json", f"{prefix}.actual.trpc.json", str(out / "metrics.trpc.json")),
    }
    report: dict[str, Any] = {"ran": True, "published": PUBLISHED, "forms": {}}
    ok = True
    for form, (expected, actual, config) in forms.items():
        args = ["score", "--expected", expected, "--actual", actual, "--config", config]
        try:
            means = call(sys.executable, "ours.py", args)["mean_case_scores"]
        except MeasureError as exc:
            report["forms"][form] = {"ok": False, "error": str(exc)}
            ok = False
            continue
        got = {k: round(v, 6) if v is not None else None for k, v in means.items()}
        form_ok = all(got.get(k) == v for k, v in PUBLISHED.items())
        report["forms"][form] = {"ok": form_ok, "mean_case_scores": got}
        ok = ok and form_ok
    report["ok"] = ok
    return report
