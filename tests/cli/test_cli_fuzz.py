"""Property: mutated example files never crash a command. Every mutant of every file in ``examples/`` goes through
the commands that read it (validate, convert to both formats, eval, show, migrate, plan, traces show / doctor,
eval --traces, calibrate --labels) in-process, and each run must end with exit code 0, 1 or 2, without a traceback,
with an ``error:`` line of bounded length on exit 2, and having written nothing on exit 2. The mutations are those
of ``benchmarks/fuzz_cli.py``, which runs the same checks at scale (``python benchmarks/fuzz_cli.py --inputs
5000``)."""

from __future__ import annotations

import random
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agentgauge.cli import app

BENCH_DIR = Path(__file__).resolve().parents[2] / "benchmarks"


@pytest.fixture(scope="module")
def fuzz_cli() -> Iterator[ModuleType]:
    sys.path.insert(0, str(BENCH_DIR))
    try:
        import fuzz_cli

        yield fuzz_cli
    finally:
        sys.path.remove(str(BENCH_DIR))


@pytest.fixture(scope="module")
def workdir(tmp_path_factory: pytest.TempPathFactory, fuzz_cli: ModuleType) -> tuple[Path, dict[str, Path], list[Any]]:
    root = tmp_path_factory.mktemp("fuzz")
    return root, fuzz_cli.prepare(root), fuzz_cli.load_seeds()


def test_every_role_and_command_is_covered(
    fuzz_cli: ModuleType, workdir: tuple[Path, dict[str, Path], list[Any]]
) -> None:
    root, helpers, seeds = workdir
    assert {s.role for s in seeds} == {"evalset", "metrics", "result", "legacy", "session", "trace", "labels"}
    commands = {
        (args[0], *(args[1:2] if args[0] == "traces" else (a for a in args if a in ("native", "adk", "--traces"))))
        for s in seeds
        for args in fuzz_cli.commands_for(s, root / s.name, root / "out", helpers)
    }
    assert commands >= {
        ("validate",),
        ("convert", "native"),
        ("convert", "adk"),
        ("eval",),
        ("show",),
        ("migrate",),
        ("plan",),
        ("traces", "show"),
        ("traces", "doctor"),
        ("eval", "--traces"),
        ("calibrate",),
    }


def test_the_unmutated_examples_pass_cleanly(
    fuzz_cli: ModuleType, workdir: tuple[Path, dict[str, Path], list[Any]]
) -> None:
    root, helpers, seeds = workdir
    for seed in seeds:
        case = root / "clean"
        out = case / "out"
        out.mkdir(parents=True, exist_ok=True)
        file = case / seed.name
        file.write_bytes(fuzz_cli.serialize(seed.doc))
        for args in fuzz_cli.commands_for(seed, file, out, helpers):
            code, found = fuzz_cli.check_run(app, args, case, out)
            no_adk_form = seed.role == "metrics" and args[0] == "convert" and "adk" in args  # native-only criteria
            one_case = args[0] == "plan"  # a result of a single case has no variance between cases to plan from
            assert found == [] and (code in (0, 1) or no_adk_form or one_case), (args, code, found)


@settings(
    max_examples=100, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow]
)
@given(pick=st.integers(0, 10_000), rng_seed=st.integers(0, 2**32 - 1))
def test_mutated_examples_exit_0_1_or_2_without_traceback_and_write_nothing_on_2(
    fuzz_cli: ModuleType, workdir: tuple[Path, dict[str, Path], list[Any]], pick: int, rng_seed: int
) -> None:
    root, helpers, seeds = workdir
    seed = seeds[pick % len(seeds)]
    data, how = fuzz_cli.mutate(random.Random(rng_seed), seed)
    case = root / "case"
    out = case / "out"
    out.mkdir(parents=True, exist_ok=True)
    file = case / seed.name
    file.write_bytes(data)
    try:
        for args in fuzz_cli.commands_for(seed, file, out, helpers):
            code, found = fuzz_cli.check_run(app, args, case, out)
            assert code in (0, 1, 2), (args, how)
            assert found == [], (args, how, found)
    finally:
        file.unlink()
