"""The calculator agent of ``examples/calculator``, flaky on purpose and deterministically so: some runs of a case
answer a wrong number without calling the tool, as an agent on a sampled model sometimes does.

Which runs fail comes from a fixed pseudo-random sequence per case and seed: the ``k``-th run of a case under a seed
fails when ``sha256(FLAKY_SEED:first prompt:k)`` falls below ``FLAKY_RATE`` (``FLAKY_SEED`` defaults to 1,
``FLAKY_RATE`` to 0.2). A process's first ``eval`` under a seed gives the same number of failed runs per case however
the runs are scheduled (a second one under the same seed continues the sequence); another seed is another day of
the same agent. Two days of it compared show status flips within noise, not regressions (docs/compare.md#gates)::

    agentgauge eval examples/compare/flaky_agent.py SET --num-runs 5 --json > day1.json
    FLAKY_SEED=2 agentgauge eval examples/compare/flaky_agent.py SET --num-runs 5 --json > day2.json
    agentgauge compare day1.json day2.json  # exit 0: four status flips, all within noise

(``SET``: ``examples/calculator/calculator.evalset.json``.)
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import threading
from collections import Counter
from pathlib import Path

from agentgauge.agents import AgentOutput, AgentRequest

_spec = importlib.util.spec_from_file_location(
    "_calculator_example", Path(__file__).resolve().parents[1] / "calculator" / "agent.py"
)
assert _spec is not None and _spec.loader is not None
calculator_example = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(calculator_example)

_asked: Counter[tuple[str, str]] = Counter()  # runs started per (seed, first prompt of the case) in this process
_failing: dict[str, bool] = {}  # per session (one per case and run): whether this run fails
_lock = threading.Lock()  # sync agents may be called from several threads at once


def fails(seed: str, prompt: str, run: int, rate: float) -> bool:
    """Whether the ``run``-th run (0-based) of the case opened by ``prompt`` fails under ``seed`` at ``rate``."""
    digest = hashlib.sha256(f"{seed}:{prompt}:{run}".encode()).digest()
    return int.from_bytes(digest[:8], "big") / 2**64 < rate


def root_agent(request: AgentRequest) -> AgentOutput:
    """The calculator, except on the runs this case's sequence marks as failing (the whole run: every turn)."""
    with _lock:
        if request.session_id not in _failing:  # the first turn of a run decides for the run
            seed, prompt = os.environ.get("FLAKY_SEED", "1"), request.user_content.content
            run = _asked[seed, prompt]
            _asked[seed, prompt] += 1
            rate = float(os.environ.get("FLAKY_RATE", "0.2"))
            _failing[request.session_id] = fails(seed, prompt, run, rate)
        failing = _failing[request.session_id]
    if failing:
        return AgentOutput(final_response="calc result: 0")
    return calculator_example.root_agent(request)
