"""``eval``'s options for simulated users, the expected agent and generated tool mocks, resolved once the eval sets
are loaded (so a missing simulator or expected agent is reported before anything runs)."""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # pragma: no cover
    from ..judges import JudgeClient
    from ..model import EvalSet
    from ..simulation import SimulationSettings

__all__ = [
    "SimulationOptions",
    "SimulationPlan",
    "load_user_simulator",
    "resolve_simulation",
    "simulation_plan",
    "simulator_client",
]


@dataclass
class SimulationOptions:
    """What the command line said about simulation (all optional)."""

    user_simulator: str | None = None
    simulator_model: str | None = None
    simulator_base_url: str | None = None
    expected_agent: str | None = None
    max_turns: int | None = None
    remote: Any = None  # RemoteAgentSettings of a remote --expected-agent (--agent-header, --agent-config)

    @property
    def given(self) -> bool:
        """Whether any simulation option was given."""
        return any(v is not None for k, v in vars(self).items() if k != "remote")


def load_user_simulator(spec: str) -> Any:
    """A simulator from ``path/to/file.py`` (its ``user_simulator``), ``file.py:attribute`` or ``module:attribute``."""
    from ..agents._loader import _import_file, _load_object, _pick
    from ..errors import InputError
    from ..simulation import as_user_simulator

    path, _, attribute = spec.partition(".py:")
    try:
        if attribute or spec.endswith(".py"):
            file = Path(path + ".py") if attribute else Path(spec)
            if not file.is_file():
                raise InputError("user simulator file not found", file=spec)
            module = _import_file(file.resolve(), package=False)
            obj = _pick(module, (attribute or "user_simulator",), spec)
        else:
            obj = _load_object(spec)
        return as_user_simulator(obj)
    except InputError:
        raise
    except (Exception, SystemExit) as exc:
        raise InputError(f"cannot load the user simulator: {exc}", file=spec) from None


def simulator_client(model: str, base_url: str | None, *, cache_dir: Path | None, budget: float | None) -> JudgeClient:
    """A judge client for the simulator model (retries, cache and secret masking as for judges)."""
    from ..judges import JudgeCache, JudgeClient, JudgeEndpoint, OpenAIJudge, RetryPolicy

    endpoint = JudgeEndpoint.resolve(model=model, base_url=base_url or "")
    retry = RetryPolicy() if budget is None else RetryPolicy(total_budget=budget)
    return JudgeClient(
        OpenAIJudge(endpoint, retry=retry),
        label=endpoint.describe(),
        cache=JudgeCache(cache_dir) if cache_dir is not None else None,
        identity={**endpoint.cache_identity(), "role": "user_simulator"},
        time_budget=retry.total_budget,
    )


def _adk_simulator_config(metrics_source: str) -> dict[str, Any]:
    # ADK keeps the simulator settings in test_config.json next to the criteria.
    path = Path(metrics_source)
    if not path.is_file():
        return {}
    try:
        doc = json.loads(path.read_bytes())
    except (OSError, ValueError):
        return {}
    config = doc.get("user_simulator_config") if isinstance(doc, dict) else None
    return config if isinstance(config, dict) else {}


def _check_adk_config(config: dict[str, Any], source: str) -> None:
    # ADK refuses custom instructions without its three placeholders; so do we, before anything runs.
    from ..errors import InputError

    text = config.get("custom_instructions")
    if text is None:
        return
    where = "user_simulator_config.custom_instructions"
    if not isinstance(text, str):
        raise InputError("expected a string", file=source, location=where)
    missing = [k for k in ("stop_signal", "conversation_plan", "conversation_history") if not _has_placeholder(text, k)]
    if missing:
        names = ", ".join("{{ " + k + " }}" for k in missing)
        raise InputError(f"custom instructions must contain {names}", file=source, location=where)
    limit = config.get("max_allowed_invocations")
    if limit is not None and (not isinstance(limit, int) or isinstance(limit, bool)):
        raise InputError("expected an integer", file=source, location="user_simulator_config.max_allowed_invocations")


def _has_placeholder(text: str, name: str) -> bool:
    import re

    return re.search(r"\{\{\s*" + name + r"\s*\}\}", text) is not None


def resolve_simulation(
    options: SimulationOptions,
    sets: list[tuple[EvalSet, set[str], str, str]],
    *,
    judge_model: dict[str, str] | None,
    cache_dir: Path | None,
    judge_timeout: float | None,
) -> SimulationSettings | None:
    """The run's :class:`SimulationSettings`, or ``None`` when no case needs any.

    ``sets`` holds (eval set, selected ids, file, metrics source). Raises :class:`InputError` when a selected
    scenario case has no simulated user (nothing could run it). A case that needs an expected agent when none is
    given fails on its own, as in trpc-agent-go.
    """
    plan = simulation_plan(options, sets, judge_model=judge_model, cache_dir=cache_dir, judge_timeout=judge_timeout)
    return plan.build() if plan is not None else None


@dataclass(frozen=True)
class SimulationPlan:
    """What the simulation settings of a run are built from: plain data (file names, models, the ADK simulator
    config), so a remote worker can build the same settings itself -- objects loaded from files by path cannot
    be shipped there."""

    options: SimulationOptions
    adk_config: dict[str, Any]
    scenario_ids: tuple[str, ...]
    scenario_file: str
    llm_mocks: bool
    judge_model: dict[str, str] | None
    cache_dir: Path | None
    judge_timeout: float | None

    def build(self) -> SimulationSettings:
        """The settings (loads the simulator and expected-agent files; raises :class:`InputError` when a
        scenario case has no simulated user)."""
        from ..agents import load_agent
        from ..errors import InputError
        from ..simulation import JudgeMockGenerator, LlmUserSimulator, SimulationSettings

        options, adk_config, judge_model = self.options, self.adk_config, self.judge_model
        settings = SimulationSettings(max_turns=options.max_turns)
        max_invocations = adk_config.get("max_allowed_invocations")
        if isinstance(max_invocations, int):
            settings.adk_max_invocations = max_invocations
        if options.expected_agent is not None:
            settings.expected_agent = load_agent(options.expected_agent, remote=options.remote)
        model = options.simulator_model or (judge_model or {}).get("modelName") or adk_config.get("model")
        base_url = options.simulator_base_url or (
            None if options.simulator_model else (judge_model or {}).get("baseURL")
        )
        client = None
        if model and (
            (self.scenario_ids and options.user_simulator is None) or self.llm_mocks or options.simulator_model
        ):
            from ..judges import JudgeConfigError

            try:
                client = simulator_client(str(model), base_url, cache_dir=self.cache_dir, budget=self.judge_timeout)
            except JudgeConfigError as exc:
                raise InputError(f"simulator model: {exc}") from None
            settings.mock_generator = JudgeMockGenerator(client)
        if options.user_simulator is not None:
            settings.user_simulator = load_user_simulator(options.user_simulator)
        elif client is not None:
            settings.user_simulator = LlmUserSimulator(
                client,
                custom_instructions=adk_config.get("custom_instructions"),
                include_function_calls=bool(adk_config.get("include_function_calls", False)),
            )
        elif self.scenario_ids:
            raise InputError(
                f"case(s) {', '.join(self.scenario_ids)} have a conversationScenario and need a simulated user: pass "
                "--simulator-model MODEL (any OpenAI-compatible model; --simulator-base-url URL), --judge-model, or "
                "--user-simulator FILE",
                file=self.scenario_file,
            )
        return settings

    def for_workers(self) -> SimulationPlan:
        """This plan with the simulator and expected-agent file names made absolute (a worker's working directory
        may differ)."""
        options = dataclasses.replace(
            self.options,
            user_simulator=_absolute(self.options.user_simulator),
            expected_agent=_absolute(self.options.expected_agent),
        )
        return dataclasses.replace(self, options=options)


def simulation_plan(
    options: SimulationOptions,
    sets: list[tuple[EvalSet, set[str], str, str]],
    *,
    judge_model: dict[str, str] | None,
    cache_dir: Path | None,
    judge_timeout: float | None,
) -> SimulationPlan | None:
    """The :class:`SimulationPlan` of a run (see :func:`resolve_simulation`), ``None`` when no case needs one."""
    scenario_ids: list[str] = []
    expected_ids: list[str] = []
    llm_mocks = False
    adk_config: dict[str, Any] = {}
    scenario_file = ""
    for eval_set, selected, file, metrics_source in sets:
        for case in eval_set.eval_cases:
            if case.eval_id not in selected:
                continue
            scenario = case.conversation_scenario
            if scenario is not None and not case.is_trace:  # trace mode refuses scenarios on its own
                scenario_ids.append(case.eval_id)
                scenario_file = scenario_file or file
                if not adk_config:
                    adk_config = _adk_simulator_config(metrics_source)
                    _check_adk_config(adk_config, metrics_source)
            if case.expected_runner_enabled or (scenario is not None and scenario.driver == "expected"):
                expected_ids.append(case.eval_id)
            mocks = [inv.tool_mock for inv in case.conversation or [] if inv.tool_mock is not None]
            rules = [rule for mock in mocks for rule in (*mock.actual, *mock.expected)]
            llm_mocks = llm_mocks or any(rule.llm_generator is not None for rule in rules)
    if not (scenario_ids or expected_ids or llm_mocks or options.given):
        return None
    return SimulationPlan(
        options, adk_config, tuple(scenario_ids), scenario_file, llm_mocks, judge_model, cache_dir, judge_timeout
    )


def _absolute(spec: str | None) -> str | None:
    # "file.py", "file.py:attribute" or a directory: the file part made absolute; a module name stays as it is.
    if spec is None:
        return None
    path, colon, attribute = spec.partition(".py:")
    if colon:
        return f"{Path(path + '.py').absolute()}:{attribute}" if Path(path + ".py").exists() else spec
    return str(Path(spec).absolute()) if Path(spec).exists() else spec
