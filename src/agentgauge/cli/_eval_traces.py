"""Recorded traces as an eval run: reading them (shared with ``traces show | to-evalset``) and the runner of
``eval --traces``, which scores the recorded conversations instead of running an agent (see docs/traces.md)."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ._common import echo_text, print_line

if TYPE_CHECKING:  # pragma: no cover
    from rich.console import Console

    from ..model import EvalMetric, EvalSet
    from ..run._evaluator import EvaluationResult
    from ..traces import Conversations, TraceConversation
    from ._options import EvalRunOptions

__all__ = ["read_traces", "trace_runner"]


def read_traces(path: Path, by_session: bool = False) -> Conversations:
    """The conversations recorded in a trace file or directory; a note on stderr for each trace skipped."""
    from ..traces import read_conversations

    found = read_conversations(path, by_session=by_session)
    for note in found.skipped:
        echo_text(f"note: skipped {note}", err=True)
    return found


def trace_runner(
    traces: Path | None, eval_set: str | None, by_session: bool = False
) -> Callable[[list[str], EvalRunOptions], list[EvaluationResult]]:
    """The ``eval --traces`` replacement for ``eval``'s runner: same options, same outcome type, so reports,
    ``--json`` and exit codes are exactly those of ``eval``.

    The positional arguments may hold the eval set instead of ``--eval-set`` (at most one, never an agent).
    """

    def run(args: list[str], options: EvalRunOptions) -> list[EvaluationResult]:
        from ..errors import InputError

        if traces is None:
            raise InputError(
                "--eval-set and --by-session are only used with --traces (give eval sets as arguments otherwise)"
            )
        specs = [*args, *([eval_set] if eval_set else [])]
        if len(specs) > 1:
            raise InputError(
                "with --traces give at most one eval set (positional or --eval-set) and no agent; "
                f"got {', '.join(specs)}"
            )
        return _evaluate_traces(traces, specs[0] if specs else None, by_session, options)

    return run


def _evaluate_traces(
    traces: Path, set_spec: str | None, by_session: bool, options: EvalRunOptions
) -> list[EvaluationResult]:
    """Evaluate the conversations in ``traces`` (the options a trace run has no use for, such as the agent
    timeout, are ignored)."""
    import asyncio

    from rich.text import Text

    from ..run._evaluator import AgentEvaluator
    from ..storage import InMemoryEvalSetManager, InMemoryMetricManager, LocalEvalResultManager, check_segment
    from ._eval_run import run_phase_ends, run_phase_starts
    from ._targets import checked_metrics, make_registry

    chosen, config, console = options.metrics, options.config, options.console
    registry = make_registry(options.output_dir, options.judge, chosen.judge_parallelism)
    found = read_traces(traces, by_session)
    if set_spec is not None:
        eval_set, metrics, metrics_source = _against_eval_set(found.conversations, set_spec, config, console)
    else:
        eval_set, metrics, metrics_source = _reference_free(found.conversations, traces, config, registry)
    skipped = checked_metrics(chosen.selection, metrics, registry, metrics_source)  # e.g. no API key: exit 2
    names = [options.app_name] if options.app_name else []
    names += [c.app_name for c in found.conversations] + [eval_set.eval_set_id]
    app = check_segment(next(_segment(n) for n in names if n and _segment(n)), "app name")
    sets, metric_store = InMemoryEvalSetManager(), InMemoryMetricManager()
    sets.put(app, eval_set)
    metric_store.put_all(app, eval_set.eval_set_id, metrics)
    console.print(
        Text.assemble(
            (eval_set.eval_set_id, "bold"),
            f" ({len(eval_set.eval_cases)} trace(s) from {traces}): metrics from {metrics_source}"
            + (f" (skipped: {', '.join(skipped)})" if skipped else ""),
        ),
        soft_wrap=True,
    )
    results = options.result_store
    evaluator = AgentEvaluator(
        app,
        None,
        eval_set_manager=sets,
        metric_manager=metric_store,
        result_manager=results if results is not None else LocalEvalResultManager(base_dir=options.output_dir),
        registry=registry,
        num_runs=options.num_runs,
        parallelism=options.parallelism,
        max_results_in_memory=None if options.keep_results else 0,
        metric_selection=chosen.selection,
    )
    run_phase_starts()
    outcome = asyncio.run(evaluator.evaluate(eval_set.eval_set_id))
    run_phase_ends()
    return [outcome]


def _segment(name: str) -> str:
    """A name made safe as one path segment (app names come from span attributes)."""
    return re.sub(r"[^A-Za-z0-9._-]+", "_", name).strip("._")


def _against_eval_set(
    conversations: list[TraceConversation], set_spec: str, config: Path | None, console: Console
) -> tuple[EvalSet, list[EvalMetric], str]:
    from ..errors import InputError
    from ..formats import default_adk_metrics, load_eval_set, load_metrics
    from ..service import select_cases
    from ..traces import EVAL_ID_ATTRIBUTE, match_traces, trace_eval_set
    from ._targets import split_case_filter

    target = split_case_filter(set_spec)
    golden = load_eval_set(target.path)
    try:
        select_cases(golden, target.case_ids)
    except InputError as exc:
        raise InputError(exc.message, file=str(target.path)) from None
    matching = match_traces(conversations, golden, selected=target.case_ids or None)
    if matching.unmatched:
        listed = "; ".join(f"trace {c.trace_id} ({c.source}): {why}" for c, why in matching.unmatched)
        raise InputError(
            f"{len(matching.unmatched)} trace(s) match no case: {listed}. Name the case with "
            f"EVAL_SET:case_id, or set the span attribute {EVAL_ID_ATTRIBUTE} when recording",
            file=str(target.path),
        )
    for match in matching.matches:
        print_line(console, f"trace {match.conversation.trace_id} -> case {match.case.eval_id} (by {match.how})")
    eval_set = trace_eval_set(matching, golden.eval_set_id, golden=golden)
    if config is not None:
        return eval_set, load_metrics(config), str(config)
    folder = target.path.parent
    for candidate in (folder / f"{golden.eval_set_id}.metrics.json", folder / "test_config.json"):
        if candidate.is_file():
            return eval_set, load_metrics(candidate), str(candidate)
    return eval_set, default_adk_metrics(), "ADK default criteria"


def _reference_free(
    conversations: list[TraceConversation], traces: Path, config: Path | None, registry: Any
) -> tuple[EvalSet, list[EvalMetric], str]:
    from ..errors import InputError
    from ..formats import default_id_for, load_metrics
    from ..traces import trace_eval_set

    if config is None:
        raise InputError(
            "no eval set: give one (--eval-set SET) to compare the traces with expected conversations, or --config "
            "with reference-free metrics (e.g. safety_v1, hallucinations_v1, llm_rubric_response)"
        )
    metrics = load_metrics(config)
    registry.validate_metrics(metrics, file=str(config))
    needing = [
        m.metric_name for m in metrics if m.metric_name in registry and registry.info(m.metric_name).needs_expected
    ]
    if needing:
        raise InputError(
            f"metric(s) {', '.join(needing)} compare with expected data: give an eval set (--eval-set SET) or "
            "use reference-free metrics only",
            file=str(config),
        )
    set_id = _segment(default_id_for(str(traces))) or "traces"
    return trace_eval_set(conversations, set_id), metrics, str(config)
