"""``agentgauge eval --resume`` and ``--cache-agent``: finding the interrupted run, building the response cache."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from ._common import print_line

if TYPE_CHECKING:  # pragma: no cover
    from rich.console import Console

    from ..run._resume import ResumeState
    from ..service import AgentResponseCache

__all__ = ["make_agent_cache", "report_agent_cache", "resume_state"]


def resume_state(
    spec: str, output_dir: Path, app: str, eval_set_ids: list[str], console: Console, *, store: Any = None
) -> ResumeState:
    """The interrupted run ``spec`` names (its result file, its progress log, or its result id under
    ``output_dir/app``; with ``store``, its id in that SQL store), checked to be the one this ``eval`` would write;
    :class:`InputError` otherwise."""
    from ..errors import InputError
    from ..run._resume import PROGRESS_SUFFIX, load_resume
    from ..storage import LocalEvalResultManager
    from ..storage._locator import RESULT_SUFFIX

    if len(eval_set_ids) != 1:
        raise InputError(f"--resume continues one eval set; got {len(eval_set_ids)}: {', '.join(eval_set_ids)}")
    if store is not None:
        return _announce(_from_store(store, spec, app), console)
    manager = LocalEvalResultManager(base_dir=output_dir)
    given = Path(spec)
    if not given.exists() and "/" not in spec and "\\" not in spec:
        folder = output_dir / app
        for candidate in (folder / f"{spec}{RESULT_SUFFIX}", folder / f"{spec}{PROGRESS_SUFFIX}"):
            if candidate.is_file():
                given = candidate
                break
        else:
            raise InputError(
                f"--resume {spec}: no such file, and no interrupted run with this id in {folder} "
                "(give its result file or its .progress.jsonl log)"
            )
    state = load_resume(given)
    expected = manager.path_for(app, state.eval_set_result_id)
    if state.result_path.resolve() != expected.resolve():
        raise InputError(
            f"--resume {spec}: this run would write its result to {_short(expected)}; run with "
            f"--output-dir {_short(state.result_path.parent.parent)} (and the same --app-name)"
        )
    return _announce(state, console)


def _announce(state: ResumeState, console: Console) -> ResumeState:
    print_line(console, f"Resuming {state.eval_set_result_id}: {len(state.done)} case run(s) already scored are kept")
    return state


def _from_store(results: Any, result_id: str, app: str) -> ResumeState:
    """The state of an unfinished run in a SQL store: its stored case runs (the store commits each as it ends)."""
    from ..errors import InputError
    from ..run._resume import ResumeState
    from ..sqlstore._cli import load_stored_result

    result = load_stored_result(results, result_id, app)
    where = f"{results.store.shown_url} ({app}/{result_id})"
    if not result.interrupted:
        raise InputError(
            "this run is complete (not interrupted): nothing to resume; start a new run instead", file=where
        )
    statuses = {info.status for info in results.find(result_id, app=app)}
    state = ResumeState(result.eval_set_result_id, result.eval_set_id, Path(result_id), source=where)
    # A run that never ended has no stored summary (the one read back is rebuilt from its cases): runs unknown.
    if result.summary is not None and not statuses & {"running", "aborted"}:
        state.num_runs = result.summary.num_runs
    state.done.update(((r.eval_id, r.run_id), r) for r in result.eval_case_results)
    return state


def _short(path: Path) -> str:
    """``path`` relative to the working directory when it lies below it (shorter messages)."""
    try:
        return str(path.absolute().relative_to(Path.cwd()))
    except ValueError:
        return str(path)


def make_agent_cache(directory: Path, agent_spec: str) -> AgentResponseCache:
    """The response cache of ``--cache-agent`` for the agent ``agent_spec`` (loaded already)."""
    from ..service import AgentResponseCache, agent_identity

    return AgentResponseCache(directory, agent_identity(agent_spec))


def report_agent_cache(cache: AgentResponseCache, console: Console) -> None:
    """One line: how many answers came from the cache and how many were asked and stored."""
    print_line(
        console,
        f"Agent cache: {cache.hits} case run(s) answered from the cache, {cache.stored} new answer(s) stored "
        f"in {_short(cache.directory)}",
    )
