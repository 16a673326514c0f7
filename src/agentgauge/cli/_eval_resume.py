"""``agentgauge eval --resume`` and ``--cache-agent``: finding the interrupted run, building the response cache."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pragma: no cover
    from rich.console import Console

    from .._resume import ResumeState
    from ..service import AgentResponseCache

__all__ = ["make_agent_cache", "report_agent_cache", "resume_state"]


def resume_state(spec: str, output_dir: Path, app: str, eval_set_ids: list[str], console: Console) -> ResumeState:
    """The interrupted run ``spec`` names (its result file, its progress log, or its result id under
    ``output_dir/app``), checked to be the one this ``eval`` would write; :class:`InputError` otherwise."""
    from .._resume import PROGRESS_SUFFIX, load_resume
    from ..errors import InputError
    from ..storage import LocalEvalResultManager
    from ..storage._locator import RESULT_SUFFIX

    if len(eval_set_ids) != 1:
        raise InputError(f"--resume continues one eval set; got {len(eval_set_ids)}: {', '.join(eval_set_ids)}")
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
    console.print(
        f"Resuming {state.eval_set_result_id}: {len(state.done)} case run(s) already scored are kept",
        highlight=False,
        soft_wrap=True,
    )
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
    console.print(
        f"Agent cache: {cache.hits} case run(s) answered from the cache, {cache.stored} new answer(s) stored "
        f"in {_short(cache.directory)}",
        highlight=False,
        soft_wrap=True,
    )
