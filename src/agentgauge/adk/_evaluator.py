"""``AgentEvaluator``: Google ADK's pytest-facing API, running on agentgauge (change only the import line)."""

from __future__ import annotations

import importlib
import inspect
import os
from pathlib import Path
from types import ModuleType
from typing import Any

from ..model import EvalSet
from ._config import LEGACY_CRITERIA, EvalConfig, eval_config_from
from ._files import find_eval_files, is_legacy_file, load_eval_file

__all__ = ["AgentEvaluator"]

_DETAILS_HINT = (
    " If you looking to get more details on the failures, then please re-run this test with "
    "`print_detailed_results` set to `True`."
)


def _agent_module(module: ModuleType) -> ModuleType:
    sub = getattr(module, "agent", None)
    if isinstance(sub, ModuleType):
        return sub
    try:
        return importlib.import_module(f"{module.__name__}.agent")
    except ModuleNotFoundError:
        return module


async def _root_agent(agent_module: object) -> object:
    if not isinstance(agent_module, str):
        return agent_module
    if agent_module.endswith(".py") or ":" in agent_module:
        from ..agents import load_agent

        return load_agent(agent_module)
    holder = _agent_module(importlib.import_module(agent_module))
    if hasattr(holder, "root_agent"):
        return holder.root_agent
    if hasattr(holder, "get_agent_async"):
        agent = holder.get_agent_async()
        agent = await agent if inspect.isawaitable(agent) else agent
        # Older ADK samples return (agent, exit_stack).
        return agent[0] if isinstance(agent, tuple) else agent
    raise ValueError(f"Module {agent_module} has no `root_agent` or `get_agent_async` in its `agent` module.")


def _sub_agent(agent: object, agent_name: str | None) -> object:
    if not agent_name:
        return agent
    finder = getattr(agent, "find_agent", None)
    found = finder(agent_name) if callable(finder) else None
    if found is None:
        raise ValueError(f"Sub-Agent '{agent_name}' not found.")
    return found


def _label(agent_module: object) -> str:
    if isinstance(agent_module, str):
        return agent_module
    return str(
        getattr(agent_module, "name", None) or getattr(agent_module, "__name__", None) or type(agent_module).__name__
    )


def _native_eval_set(eval_set: object) -> EvalSet:
    if isinstance(eval_set, EvalSet):
        return eval_set
    from pydantic import BaseModel

    from ..formats import parse_eval_set

    if isinstance(eval_set, BaseModel):
        return parse_eval_set(eval_set.model_dump_json(exclude_none=True), source="<eval_set>")
    raise TypeError(f"eval_set must be an EvalSet, got {type(eval_set).__name__}")


def _check_legacy_criteria(path: Path, config: EvalConfig) -> None:
    import json

    for key in config.criteria:
        if key not in LEGACY_CRITERIA:
            raise ValueError(f"Invalid criteria key: {key}. Expected one of {list(LEGACY_CRITERIA)}.")
    rows = json.loads(path.read_bytes())
    sample = rows[0]
    needs = {"tool_trajectory_avg_score": "expected_tool_use", "response_match_score": "reference"}
    for metric, column in needs.items():
        if metric in config.criteria and ("query" not in sample or column not in sample):
            raise ValueError(f"Samples for {metric} must include 'query' and '{column}' keys. The sample is {sample}.")


async def _save_adk_results(manager: Any, app_name: str, eval_set_id: str, result: Any) -> None:
    from google.adk.evaluation.eval_result import EvalCaseResult as AdkEvalCaseResult

    from ..formats import to_adk_result

    cases = [AdkEvalCaseResult.model_validate(c) for c in to_adk_result(result)["eval_case_results"]]
    saved = manager.save_eval_set_result(app_name, eval_set_id, cases)
    if inspect.isawaitable(saved):
        await saved


class AgentEvaluator:
    """Drop-in for ``google.adk.evaluation.AgentEvaluator``: same static methods, arguments and failure messages.

    It shares its name with :class:`agentgauge.run.AgentEvaluator` on purpose: code written for ADK switches by
    changing only its import; it runs each eval set through that evaluator.

    ``evaluate`` walks ``*.test.json`` / ``*.evalset.json`` files, uses each file's sibling ``test_config.json``,
    runs every case ``num_runs`` times and, per metric, compares the mean of every per-invocation score over all
    runs with the threshold. Failures raise ``AssertionError`` with ADK's lines. ``artifact_service`` is accepted for
    signature compatibility and not used.
    """

    @staticmethod
    def find_config_for_test_file(test_file: str) -> EvalConfig:
        """``test_config.json`` in the test file's folder, else ADK's default criteria."""
        candidate = Path(test_file).parent / "test_config.json"
        return EvalConfig.from_file(candidate) if candidate.is_file() else EvalConfig.default()

    @staticmethod
    async def evaluate(
        agent_module: str | object,
        eval_dataset_file_path_or_dir: str,
        num_runs: int = 2,
        agent_name: str | None = None,
        initial_session_file: str | None = None,
        print_detailed_results: bool = True,
        artifact_service: Any = None,
        output_file: str | None = None,
        app_name: str | None = None,
        eval_set_results_manager: Any = None,
    ) -> None:
        """Evaluate the agent on one eval file or every eval file below a directory; raise ``AssertionError``
        listing every failed metric."""
        if num_runs < 1:
            raise ValueError("num_runs must be at least 1.")
        for test_file in find_eval_files(eval_dataset_file_path_or_dir):
            config = AgentEvaluator.find_config_for_test_file(os.fspath(test_file))
            legacy = is_legacy_file(test_file)
            if legacy:
                _check_legacy_criteria(test_file, config)
            eval_set = load_eval_file(test_file, initial_session_file=initial_session_file, path_as_legacy_id=True)
            await AgentEvaluator.evaluate_eval_set(
                agent_module=agent_module,
                eval_set=eval_set,
                eval_config=config,
                num_runs=num_runs,
                agent_name=agent_name,
                print_detailed_results=print_detailed_results,
                artifact_service=artifact_service,
                output_file=output_file,
                app_name=app_name,
                eval_set_results_manager=eval_set_results_manager,
            )

    @staticmethod
    async def evaluate_eval_set(
        agent_module: str | object,
        eval_set: EvalSet | object,
        criteria: dict[str, float] | None = None,
        eval_config: EvalConfig | object | None = None,
        num_runs: int = 2,
        agent_name: str | None = None,
        print_detailed_results: bool = True,
        artifact_service: Any = None,
        output_file: str | None = None,
        app_name: str | None = None,
        eval_set_results_manager: Any = None,
    ) -> None:
        """Evaluate one eval set (ours or ADK's model). ``criteria`` is ADK's deprecated threshold dict."""
        from ..launch import evaluate_set
        from ._verdict import append_csv, failure_lines, print_details

        if num_runs < 1:
            raise ValueError("num_runs must be at least 1.")
        native = _native_eval_set(eval_set)
        if not native.eval_cases:
            raise ValueError(f"Eval set {native.eval_set_id} has no eval cases.")
        config = eval_config_from(eval_config, criteria)
        metrics = config.to_metrics()
        agent = _sub_agent(await _root_agent(agent_module), agent_name)
        app = app_name or "test_app"
        ours = eval_set_results_manager if hasattr(eval_set_results_manager, "save") else None
        result = await evaluate_set(native, metrics, agent, app_name=app, num_runs=num_runs, result_manager=ours)
        if eval_set_results_manager is not None and ours is None:
            await _save_adk_results(eval_set_results_manager, app, native.eval_set_id, result)
        failures, verdicts = failure_lines(result, _label(agent_module))
        if print_detailed_results:
            print_details(verdicts)
        if output_file:
            append_csv(output_file, verdicts)
        message = "Following are all the test failures."
        if not print_detailed_results:
            message += _DETAILS_HINT
        if failures:
            # Raised explicitly: pytest rewrites ``assert`` statements in plugin packages and would change the text.
            raise AssertionError(message + "\n" + "\n".join(failures))

    @staticmethod
    def migrate_eval_data_to_new_schema(
        old_eval_data_file: str, new_eval_data_file: str, initial_session_file: str | None = None
    ) -> None:
        """Convert a legacy ``.test.json`` file (plus an optional initial session) into an ADK ``.evalset.json``."""
        if not old_eval_data_file:
            raise ValueError("Please provide a path to the old eval data file.")
        if not new_eval_data_file:
            raise ValueError("Please provide a path to the new eval data file.")
        from ..formats import save_eval_set

        eval_set = load_eval_file(old_eval_data_file, initial_session_file=initial_session_file)
        save_eval_set(eval_set, new_eval_data_file, fmt="adk")
