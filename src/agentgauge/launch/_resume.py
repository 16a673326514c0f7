"""Continuing an interrupted run (``resume``) and reusing the agent's earlier answers (``agent_cache``)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import InputError
from ..run import PROGRESS_SUFFIX, ResumeState, load_resume
from ..service import AgentResponseCache, agent_identity
from ..sqlstore import load_stored_result
from ..storage import RESULT_SUFFIX, LocalEvalResultManager

if TYPE_CHECKING:  # pragma: no cover
    from ._surface import Surface

__all__ = ["agent_cache_note", "make_agent_cache", "resume_state"]


def resume_state(
    spec: str,
    output_dir: Path,
    app: str,
    eval_set_ids: list[str],
    surface: Surface,
    *,
    store: Any = None,
    on_note: Callable[[str], None],
) -> ResumeState:
    """The interrupted run ``spec`` names (its result file, its progress log, or its result id under
    ``output_dir/app``; with ``store``, its id in that SQL store), checked to be the one this run would write;
    :class:`InputError` otherwise. ``on_note`` hears how many case runs are kept."""
    name = surface.name
    if len(eval_set_ids) != 1:
        given = f"{len(eval_set_ids)}: {', '.join(eval_set_ids)}"
        raise InputError(f"{name('resume')} continues one eval set; got {given}")
    state = _from_store(store, spec, app) if store is not None else _from_files(spec, output_dir, app, surface)
    on_note(f"Resuming {state.eval_set_result_id}: {len(state.done)} case run(s) already scored are kept")
    return state


def _from_files(spec: str, output_dir: Path, app: str, surface: Surface) -> ResumeState:
    name = surface.name
    given = Path(spec)
    if not given.exists() and "/" not in spec and "\\" not in spec:
        folder = output_dir / app
        for candidate in (folder / f"{spec}{RESULT_SUFFIX}", folder / f"{spec}{PROGRESS_SUFFIX}"):
            if candidate.is_file():
                given = candidate
                break
        else:
            raise InputError(
                f"{name('resume')} {spec}: no such file, and no interrupted run with this id in {folder} "
                "(give its result file or its .progress.jsonl log)"
            )
    state = load_resume(given)
    expected = LocalEvalResultManager(base_dir=output_dir).path_for(app, state.eval_set_result_id)
    if state.result_path.resolve() != expected.resolve():
        raise InputError(
            f"{name('resume')} {spec}: this run would write its result to {_short(expected)}; run with "
            f"{name('output_dir')} {_short(state.result_path.parent.parent)} (and the same {name('app_name')})"
        )
    return state


def _from_store(results: Any, result_id: str, app: str) -> ResumeState:
    """The state of an unfinished run in a SQL store: its stored case runs (the store commits each as it ends)."""
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
    """The response cache in ``directory`` for the agent ``agent_spec`` (loaded already)."""
    return AgentResponseCache(directory, agent_identity(agent_spec))


def agent_cache_note(cache: AgentResponseCache) -> str:
    """How many answers came from the cache and how many were asked and stored."""
    return (
        f"Agent cache: {cache.hits} case run(s) answered from the cache, {cache.stored} new answer(s) stored "
        f"in {_short(cache.directory)}"
    )
