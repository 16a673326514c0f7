"""A/A: the gate (default rules) against candidates that are not better, 40 seeded trials each, every run through the
run engine: the baseline's own texts again, and texts that only add noise to a flaky agent (each case's pass rate
moved up or down, unchanged on average). Either is accepted at most 5% of the time; a candidate that is better
(every case's pass rate up by 0.35) is accepted in most trials, so the gate is not merely refusing everything."""

from __future__ import annotations

import asyncio
import hashlib
import json
from collections import Counter
from collections.abc import Mapping
from pathlib import Path

import pytest

from agentgauge.agents import AgentRequest
from agentgauge.compare import GateRules, compare_results, gate_report
from agentgauge.optimize import CandidateRunner, EngineSettings, Spending, SplitSpec, load_split, surfaces_of

CASES = 20
RUNS = 4
TRIALS = 40
RATES = [0.3 + 0.6 * i / (CASES - 1) for i in range(CASES)]  # each case's chance to pass, 0.3 to 0.9


class FlakyAgent:
    """Answers case ``i`` right with probability ``rates[i]``, from a sequence fixed by its seed (the k-th run of a
    case draws the k-th number); ``instruction`` ``"noisy"`` moves every case's rate by +-0.15 (zero on average),
    ``"better"`` up by 0.35."""

    def __init__(self, seed: int, instruction: str = "Answer.") -> None:
        self.seed, self.instruction = seed, instruction
        jitter = [0.15 if i % 2 else -0.15 for i in range(CASES)] if instruction == "noisy" else [0.0] * CASES
        if instruction == "better":
            jitter = [0.35] * CASES
        self.rates = [min(1.0, max(0.0, r + j)) for r, j in zip(RATES, jitter, strict=True)]
        self.asked: Counter[str] = Counter()

    def text_fields(self) -> dict[str, str]:
        return {"instruction": self.instruction}

    def with_text_fields(self, texts: Mapping[str, str]) -> FlakyAgent:
        return FlakyAgent(self.seed, texts.get("instruction", self.instruction))

    def run(self, request: AgentRequest) -> str:
        question = request.user_content.content
        index = int(question.removeprefix("q"))
        draw = self.asked[question]
        self.asked[question] += 1
        digest = hashlib.sha256(f"{self.seed}:{self.instruction}:{question}:{draw}".encode()).digest()
        passed = int.from_bytes(digest[:8], "big") / 2**64 < self.rates[index]
        return f"a{index}" if passed else "wrong"


@pytest.fixture(scope="module")
def split(tmp_path_factory: pytest.TempPathFactory) -> object:
    folder = tmp_path_factory.mktemp("aa")
    cases = [
        {
            "evalId": f"c{i}",
            "conversation": [{"userContent": {"content": f"q{i}"}, "finalResponse": {"content": f"a{i}"}}],
        }
        for i in range(CASES)
    ]
    (folder / "aa.evalset.json").write_text(json.dumps({"evalSetId": "aa", "evalCases": cases}))
    metric = {"metricName": "final_response_avg_score", "threshold": 1, "criterion": {"finalResponse": {"text": {}}}}
    (folder / "aa.metrics.json").write_text(json.dumps([metric]))
    return load_split("validation", SplitSpec(folder / "aa.evalset.json"), None), folder


async def _trials(split: object, folder: Path, candidate: str) -> list[bool]:
    """Whether the gate accepted the candidate in each trial (the baseline's instruction is ``Answer.``)."""
    accepted = []
    for seed in range(TRIALS):
        surfaces = surfaces_of(FlakyAgent(seed), f"flaky-{seed}")
        settings = EngineSettings(app_name="aa", output_dir=folder / "results", parallelism=16)
        runner = CandidateRunner(surfaces, settings, Spending())
        base = await runner.run({}, split, role="baseline", num_runs=RUNS)  # type: ignore[arg-type]
        new = await runner.run({"instruction": candidate}, split, role="candidate", num_runs=RUNS)  # type: ignore[arg-type]
        comparison = compare_results(base.result, new.result, resamples=2000, seed=seed, fail_on=None)
        accepted.append(gate_report(comparison, GateRules(), new.result).accepted)
    return accepted


@pytest.mark.parametrize("candidate", ["Answer.", "noisy"], ids=["identical", "noise"])
def test_a_candidate_no_better_is_accepted_at_most_5_percent_of_the_time(split: object, candidate: str) -> None:
    loaded, folder = split  # type: ignore[misc]
    accepted = asyncio.run(_trials(loaded, folder, candidate))
    assert len(accepted) == TRIALS
    assert sum(accepted) <= TRIALS * 0.05, f"accepted {sum(accepted)} of {TRIALS}"


def test_a_better_candidate_is_accepted_in_most_trials(split: object) -> None:
    loaded, folder = split  # type: ignore[misc]
    accepted = asyncio.run(_trials(loaded, folder, "better"))
    assert sum(accepted) >= TRIALS * 0.8, f"accepted {sum(accepted)} of {TRIALS}"
