"""Who asks for a run, as its messages must say it: the command line names ``--num-runs``, an HTTP body ``numRuns``,
Python code ``num_runs``; the web server also bounds runs and parallelism more tightly than the command line."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

__all__ = ["COMMAND_LINE", "HTTP_API", "MAX_NUM_RUNS", "PYTHON", "Surface"]

MAX_NUM_RUNS = 1000
"""More runs per case than this is a typo, not a plan: every run keeps its invocations in the result."""


@dataclass(frozen=True, eq=False)
class Surface:
    """How the caller of a request names its fields in messages, and the bounds it sets.

    - ``style``: ``"option"`` (``num_runs`` is ``--num-runs``), ``"field"`` (``numRuns``) or ``"keyword"``
      (``num_runs`` as it is).
    - ``words``: the names and phrases that do not follow the style (a positional argument, the advice on how to
      give a simulated user, the usage line).
    - ``max_num_runs`` / ``max_parallelism``: the largest values accepted (``None``: no bound).
    """

    style: str
    words: Mapping[str, str] = field(default_factory=dict)
    max_num_runs: int = MAX_NUM_RUNS
    max_parallelism: int | None = None

    def name(self, key: str) -> str:
        """``key`` (a request field in snake case, or a phrase of :attr:`words`) as this caller writes it."""
        found = self.words.get(key)
        if found is not None:
            return found
        if self.style == "option":
            return "--" + key.replace("_", "-")
        if self.style == "field":
            head, *rest = key.split("_")
            return head + "".join(part.title() for part in rest)
        return key


COMMAND_LINE = Surface(
    "option",
    {
        "agent_cache": "--cache-agent",
        "baseline_result": "--baseline RESULT_ID_OR_FILE",
        "case_id": "with EVAL_SET:case_id",
        "eval_set_argument": "--eval-set SET",
        "simulated_user": "pass --simulator-model MODEL (any OpenAI-compatible model; --simulator-base-url URL), "
        "--judge-model, or --user-simulator FILE",
        "usage": "usage: agentgauge eval [AGENT] EVAL_SET[:case1,case2]...",
    },
)
"""``agentgauge eval``."""

HTTP_API = Surface(
    "field",
    {
        "case_id": "(caseId)",
        "config": "metrics",
        "eval_set_argument": "appName and evalSetId",
        "simulated_user": "this server has none: start it with a simulator model, a judge model or a user "
        "simulator (see docs/web.md)",
        "usage": "",
    },
    max_num_runs=100,
    max_parallelism=64,
)
"""The web server's API (``agentgauge serve``): at most 100 runs per case and 64 cases in flight."""

PYTHON = Surface(
    "keyword",
    {
        "baseline_result": "a baseline",
        "eval_set_argument": "eval_set",
        "simulated_user": "give simulation=SimulationOptions(simulator_model=..., user_simulator=...) or a judge model",
        "usage": "",
    },
)
"""Python code calling :func:`agentgauge.launch.evaluate` (the ADK drop-in and the pytest plugin too)."""
