"""A run's simulation settings (simulated users, the expected agent, generated tool mocks), planned once the eval
sets are loaded so a missing simulator or expected agent is reported before anything runs.

:mod:`agentgauge.simulation` is imported only when a plan is built: most runs need none.
"""

from __future__ import annotations

import dataclasses
import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..agents import load_agent, load_python_object
from ..errors import InputError

if TYPE_CHECKING:  # pragma: no cover
    from ..agents.remote import RemoteAgentSettings
    from ..judges import JudgeClient
    from ..model import EvalSet
    from ..simulation import SimulationSettings
    from ._options import SimulationOptions

__all__ = ["SimulationPlan", "load_user_simulator", "simulation_plan", "simulator_client"]

_ADK_PLACEHOLDERS = ("stop_signal", "conversation_plan", "conversation_history")


def load_user_simulator(spec: str) -> Any:
    """A simulator from ``path/to/file.py`` (its ``user_simulator``), ``file.py:attribute`` or ``module:attribute``."""
    from ..simulation import as_user_simulator

    path, _, attribute = spec.partition(".py:")
    if (attribute or spec.endswith(".py")) and not Path(path + ".py" if attribute else spec).is_file():
        raise InputError("user simulator file not found", file=spec)
    try:
        return as_user_simulator(load_python_object(spec, "user_simulator"))
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


def _adk_simulator_config(path: Path | None) -> dict[str, Any]:
    # ADK keeps the simulator settings in test_config.json next to the criteria.
    if path is None or not path.is_file():
        return {}
    try:
        doc = json.loads(path.read_bytes())
    except (OSError, ValueError):
        return {}
    config = doc.get("user_simulator_config") if isinstance(doc, dict) else None
    return config if isinstance(config, dict) else {}


def _check_adk_config(config: dict[str, Any], source: str) -> None:
    # ADK refuses custom instructions without its three placeholders; so do we, before anything runs.
    text = config.get("custom_instructions")
    if text is None:
        return
    where = "user_simulator_config.custom_instructions"
    if not isinstance(text, str):
        raise InputError("expected a string", file=source, location=where)
    missing = [k for k in _ADK_PLACEHOLDERS if re.search(r"\{\{\s*" + k + r"\s*\}\}", text) is None]
    if missing:
        names = ", ".join("{{ " + k + " }}" for k in missing)
        raise InputError(f"custom instructions must contain {names}", file=source, location=where)
    limit = config.get("max_allowed_invocations")
    if limit is not None and (not isinstance(limit, int) or isinstance(limit, bool)):
        raise InputError("expected an integer", file=source, location="user_simulator_config.max_allowed_invocations")


@dataclass(frozen=True)
class SimulationPlan:
    """What the simulation settings of a run are built from: plain data (file names, models, the ADK simulator
    config), so a remote worker can build the same settings itself -- objects loaded from files by path cannot be
    shipped there. ``missing_user`` is what a scenario case without a simulated user is told."""

    options: SimulationOptions
    remote: RemoteAgentSettings | None
    adk_config: dict[str, Any]
    scenario_ids: tuple[str, ...]
    scenario_file: str
    llm_mocks: bool
    judge_model: dict[str, str] | None
    cache_dir: Path | None
    judge_timeout: float | None
    missing_user: str

    def build(self) -> SimulationSettings:
        """The settings (loads the simulator and expected-agent files; raises :class:`InputError` when a scenario
        case has no simulated user)."""
        from ..simulation import JudgeMockGenerator, LlmUserSimulator, SimulationSettings

        options, adk_config, judge_model = self.options, self.adk_config, self.judge_model or {}
        settings = SimulationSettings(max_turns=options.max_turns)
        max_invocations = adk_config.get("max_allowed_invocations")
        if isinstance(max_invocations, int):
            settings.adk_max_invocations = max_invocations
        if options.expected_agent is not None:
            settings.expected_agent = load_agent(options.expected_agent, remote=self.remote)
        model = options.simulator_model or judge_model.get("modelName") or adk_config.get("model")
        base_url = options.simulator_base_url or (None if options.simulator_model else judge_model.get("baseURL"))
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
                f"case(s) {', '.join(self.scenario_ids)} have a conversationScenario and need a simulated user: "
                f"{self.missing_user}",
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
    sets: list[tuple[EvalSet, set[str], str, Path | None]],
    *,
    remote: RemoteAgentSettings | None,
    judge_model: dict[str, str] | None,
    cache_dir: Path | None,
    judge_timeout: float | None,
    missing_user: str,
) -> SimulationPlan | None:
    """The :class:`SimulationPlan` of a run whose ``sets`` are (eval set, selected ids, file, metrics file);
    ``None`` when no selected case needs simulation and no option asks for it (see :class:`SimulationPlan` for
    the rest)."""
    scenario_ids: list[str] = []
    expected = llm_mocks = False
    adk_config: dict[str, Any] = {}
    scenario_file = ""
    for eval_set, selected, file, metrics_file in sets:
        for case in eval_set.eval_cases:
            if case.eval_id not in selected:
                continue
            scenario = case.conversation_scenario
            if scenario is not None and not case.is_trace:  # trace mode refuses scenarios on its own
                scenario_ids.append(case.eval_id)
                scenario_file = scenario_file or file
                if not adk_config:
                    adk_config = _adk_simulator_config(metrics_file)
                    _check_adk_config(adk_config, str(metrics_file))
            expected = (
                expected or case.expected_runner_enabled or (scenario is not None and scenario.driver == "expected")
            )
            mocks = [inv.tool_mock for inv in case.conversation or [] if inv.tool_mock is not None]
            rules = [rule for mock in mocks for rule in (*mock.actual, *mock.expected)]
            llm_mocks = llm_mocks or any(rule.llm_generator is not None for rule in rules)
    if not (scenario_ids or expected or llm_mocks or options.given):
        return None
    return SimulationPlan(
        options,
        remote,
        adk_config,
        tuple(scenario_ids),
        scenario_file,
        llm_mocks,
        judge_model,
        cache_dir,
        judge_timeout,
        missing_user,
    )


def _absolute(spec: str | None) -> str | None:
    # "file.py", "file.py:attribute" or a directory: the file part made absolute; a module name stays as it is.
    if spec is None:
        return None
    path, colon, attribute = spec.partition(".py:")
    if colon:
        return f"{Path(path + '.py').absolute()}:{attribute}" if Path(path + ".py").exists() else spec
    return str(Path(spec).absolute()) if Path(spec).exists() else spec
