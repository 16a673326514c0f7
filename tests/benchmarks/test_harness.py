"""Smoke test of the benchmark harness: the generator's determinism and shape, the score cross-check, and one
``--quick --no-peers`` run whose results file must have the documented structure. Needs no peer virtualenv."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

BENCH_DIR = Path(__file__).resolve().parents[2] / "benchmarks"


@pytest.fixture(scope="module", autouse=True)
def bench_path() -> Iterator[None]:
    sys.path.insert(0, str(BENCH_DIR))
    yield
    sys.path.remove(str(BENCH_DIR))


def _files(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir()) if not p.name.endswith(".manifest.json")}


def test_same_seed_gives_identical_bytes_and_another_seed_does_not(tmp_path: Path) -> None:
    import gen

    gen.write(tmp_path / "a", 30, seed=5)
    gen.write(tmp_path / "b", 30, seed=5)
    gen.write(tmp_path / "c", 30, seed=6)
    a, b, c = _files(tmp_path / "a"), _files(tmp_path / "b"), _files(tmp_path / "c")
    assert sorted(a) == [
        "gauge_n30_s5.actual.adk.json",
        "gauge_n30_s5.actual.native.json",
        "gauge_n30_s5.expected.adk.json",
        "gauge_n30_s5.expected.native.json",
        "metrics.json",
        "test_config.json",
    ]
    assert a == b
    assert a["gauge_n30_s5.expected.adk.json"] != c["gauge_n30_s6.expected.adk.json"]


def test_data_has_the_documented_shape_and_mutation_rate() -> None:
    import gen

    data = gen.build(400, seed=3, mutate_frac=0.3)
    turns = [t for case in data.golden for t in case]
    recorded = [t for case in data.recorded for t in case]
    assert all(1 <= len(case) <= 3 for case in data.golden)
    assert all(0 <= len(t.calls) <= 6 for t in turns)
    assert all(20 <= len(t.answer.split()) <= 80 for t in turns)
    assert {c.name for t in turns for c in t.calls} <= set(gen.TOOLS) and len(gen.TOOLS) == 20
    assert any(isinstance(v, (dict, list)) for t in turns for c in t.calls for v in c.args.values())
    mutated = sum(n for kind, n in data.tally.items() if kind != "same")
    assert sum(data.tally.values()) == len(turns)
    assert 0.25 <= mutated / len(turns) <= 0.35
    assert set(data.tally) == {"same", *gen.MUTATIONS}
    golden_ids = {c.ident for t in turns for c in t.calls}
    assert golden_ids.isdisjoint({c.ident for t in recorded for c in t.calls})
    changed = sum(
        (g.answer, [(c.name, c.args) for c in g.calls]) != (r.answer, [(c.name, c.args) for c in r.calls])
        for g, r in zip(turns, recorded, strict=True)
    )
    assert changed == mutated  # every perturbation is observable, and nothing else changed


def test_both_forms_carry_the_same_turns() -> None:
    import gen

    data = gen.build(5, seed=1)
    native = gen.native_form(data.recorded, "s", "d")
    adk = gen.adk_form(data.recorded, "s", "d")
    for n_case, a_case in zip(native["evalCases"], adk["eval_cases"], strict=True):
        assert n_case["evalId"] == a_case["eval_id"]
        for n_inv, a_inv in zip(n_case["conversation"], a_case["conversation"], strict=True):
            assert n_inv["finalResponse"]["content"] == a_inv["final_response"]["parts"][0]["text"]
            uses = a_inv["intermediate_data"]["tool_uses"]
            assert [(t["name"], t["arguments"]) for t in n_inv["tools"]] == [(u["name"], u["args"]) for u in uses]


def test_score_comparison_flags_any_difference_above_the_tolerance() -> None:
    from _harness import compare_scores

    ours = {"m": [[1.0, 0.5], [0.25]]}
    assert compare_scores(ours, {"m": [[1.0, 0.5], [0.25]]})["ok"] is True
    off = compare_scores(ours, {"m": [[1.0, 0.5 + 1e-9], [0.25]]})
    assert off["ok"] is False
    assert off["metrics"]["m"]["first_mismatches"] == [{"index": 1, "agentgauge": 0.5, "peer": 0.5 + 1e-9}]
    assert compare_scores(ours, {"m": [[1.0], [0.5, 0.25]]})["ok"] is False  # same values, other case split


def test_fifo_ideal_is_the_list_scheduling_makespan() -> None:
    from _measure import fifo_ideal

    assert fifo_ideal([1.0] * 10, 4) == 3.0
    assert fifo_ideal([3.0, 1.0, 1.0, 1.0], 2) == 3.0
    assert fifo_ideal([1.0, 2.0, 3.0], 200) == 3.0


def _quick_run(tmp_path: Path) -> tuple[subprocess.CompletedProcess[str], dict[str, Any]]:
    cmd = [
        sys.executable,
        str(BENCH_DIR / "run.py"),
        "--quick",
        "--no-peers",
        "--results-dir",
        str(tmp_path / "results"),
        "--data-dir",
        str(tmp_path / "data"),
    ]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    return done, json.loads((tmp_path / "results" / "latest.json").read_text())


def test_quick_run_writes_the_documented_results(tmp_path: Path) -> None:
    done, doc = _quick_run(tmp_path)
    assert done.returncode == 0, done.stderr
    written = sorted(p.name for p in (tmp_path / "results").glob("*.json"))
    assert len(written) == 2 and "latest.json" in written
    assert json.loads((tmp_path / "results" / next(n for n in written if n != "latest.json")).read_text()) == doc
    assert doc["schema"] == 1 and doc["errors"] == {}
    assert {"cpu_model", "cpu_count", "ram_gb", "python", "agentgauge_packages"} <= set(doc["machine"])
    assert doc["config"]["quick"] is True and doc["config"]["peers"] is False
    m = doc["measures"]
    assert set(m) == {"scoring", "load", "e2e", "startup", "cli", "scale", "serve", "judge", "traces", "remote"}
    assert m["serve"]["clients"] == 16 and m["serve"]["gets"] > 0 and m["serve"]["set_mb"] > 0.7
    cli = m["cli"]["runs"]
    assert [r["parallelism"] for r in cli] == [4, 16]
    # Measured, not compared: how long one command takes next to another is the benchmark's to report (on a loaded
    # machine ``--help`` may take longer than a short ``eval``).
    assert all(r["eval_wall_s"] > 0 and r["help_wall_s"] > 0 and r["net_over_ideal"] > 0 for r in cli)
    scale = m["scale"]
    assert scale["n_cases"] == 500 and scale["result_mb"] > scale["evalset_mb"] > 0
    assert scale["eval"]["exit"] == 1 and scale["show"]["exit"] == 1 and scale["eval"]["peak_rss_mb"] > 0
    assert m["scoring"]["verification"]["ok"] is None
    assert m["scoring"]["deterministic"] is True
    assert m["scoring"]["agentgauge"]["cases_per_s"]["both"] > 0
    assert 0 <= m["scoring"]["mean_case_scores"]["tool_trajectory_avg_score"] <= 1
    assert m["load"]["agentgauge_adk_file"]["mb_per_s"] > 0 and "adk" not in m["load"]
    runs = m["e2e"]["runs"]
    assert {(r["metrics"], r["parallelism"]) for r in runs} == {(s, p) for s in ("traj", "traj+rouge") for p in (4, 16)}
    assert all(r["agentgauge"]["wall_s"] >= r["ideal_s"] * 0.99 and r["scores_agree"] for r in runs)
    assert [r["target"] for r in m["startup"]["runs"]][:2] == ["agentgauge --help", "import agentgauge"]
    assert all(r["ok"] and r["peak_rss_mb"] > 0 for r in m["startup"]["runs"])
    names = [t["name"] for t in doc["targets"]]
    assert "scoring throughput vs ADK (both metrics)" in names
    ratio = next(t for t in doc["targets"] if t["name"] == "scoring throughput vs ADK (both metrics)")
    assert ratio["value"] is None and ratio["met"] is None  # no peers, no ratio
    assert "SPEC §11 targets" in done.stdout
