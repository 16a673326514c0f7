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

    from ..formats import InputReport
    from ..model import EvalMetric
    from ..run._evaluator import EvaluationResult
    from ..traces import Conversations
    from ..traces._index import ConversationIndex
    from ._options import EvalRunOptions
    from ._trace_cases import TraceCases

__all__ = ["metrics_file", "read_traces", "trace_runner"]


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
    timeout, are ignored). The traces are read one at a time into a conversation index, and the run builds each
    case from it as the case is dispatched, so memory does not grow with the size of the input."""
    from ._targets import make_registry

    registry = make_registry(options.output_dir, options.judge, options.metrics.judge_parallelism)
    with _index_traces(traces, by_session) as found:
        return _evaluate_index(found, traces, set_spec, options, registry)


def _index_traces(path: Path, by_session: bool) -> ConversationIndex:
    """The conversations at ``path``, indexed and spilled to disk (see :mod:`agentgauge.traces._index`): a note
    on stderr for each trace skipped."""
    from ..traces._index import index_conversations

    found = index_conversations(path, by_session=by_session)
    for note in found.skipped:
        echo_text(f"note: skipped {note}", err=True)
    return found


def _evaluate_index(
    found: ConversationIndex, traces: Path, set_spec: str | None, options: EvalRunOptions, registry: Any
) -> list[EvaluationResult]:
    import asyncio

    from rich.text import Text

    from ..formats import InputReport
    from ..run._evaluator import AgentEvaluator
    from ..storage import InMemoryMetricManager, LocalEvalResultManager, check_segment
    from ._eval_run import run_phase_ends, run_phase_starts
    from ._targets import checked_metrics, settle_inputs

    chosen, config, console = options.metrics, options.config, options.console
    report = InputReport(strict=options.strict, strict_reason="--strict")  # unknown keys and other input warnings
    if set_spec is not None:
        eval_set, metrics, metrics_source = _against_eval_set(found, set_spec, config, console, registry, report)
    else:
        eval_set, metrics, metrics_source = _reference_free(found, traces, config, registry, report)
    metrics = chosen.apply_dialect(metrics, metrics_source)
    skipped = checked_metrics(chosen.selection, metrics, registry, metrics_source, report)  # e.g. no API key: exit 2
    settle_inputs(report)
    names = [options.app_name] if options.app_name else []
    names += [c.app_name for c in found.conversations] + [eval_set.eval_set_id]
    app = check_segment(next(_segment(n) for n in names if n and _segment(n)), "app name")
    metric_store = InMemoryMetricManager()
    metric_store.put_all(app, eval_set.eval_set_id, metrics)
    console.print(
        Text.assemble(
            (eval_set.eval_set_id, "bold"),
            f" ({len(eval_set.header.eval_cases)} trace(s) from {traces}): metrics from {metrics_source}"
            + (f" (skipped: {', '.join(skipped)})" if skipped else ""),
        ),
        soft_wrap=True,
    )
    results = options.result_store
    evaluator = AgentEvaluator(
        app,
        None,
        eval_set_manager=eval_set,  # cases built one at a time as the run dispatches them
        metric_manager=metric_store,
        result_manager=results if results is not None else LocalEvalResultManager(base_dir=options.output_dir),
        registry=registry,
        num_runs=options.num_runs,
        parallelism=options.parallelism,
        max_results_in_memory=None if options.keep_results else 0,
        metric_selection=chosen.selection,
        labels=options.labels,
        case_status=options.metrics.case_status,
    )
    run_phase_starts()
    outcome = asyncio.run(evaluator.evaluate(eval_set.eval_set_id))
    run_phase_ends()
    return [outcome]


def _segment(name: str) -> str:
    """A name made safe as one path segment (app names come from span attributes)."""
    return re.sub(r"[^A-Za-z0-9._-]+", "_", name).strip("._")


def metrics_file(path: Path, registry: Any, report: InputReport | None = None) -> list[EvalMetric]:
    """The metrics of a metrics file: native, ADK ``test_config.json``, or agentevals' ``eval_config.yaml``
    (``.yaml`` / ``.yml``), whose Python code evaluators are registered in ``registry`` as plug-ins; ``report``
    receives the file's unknown keys outside its metrics."""
    from ..formats import load_agentevals_config, load_metrics

    if path.suffix.lower() not in (".yaml", ".yml"):
        return load_metrics(path, report=report)
    from ..evaluators import AgentevalsCodeEvaluator

    config = load_agentevals_config(path, report=report)
    for spec in config.code_evaluators:
        evaluator = AgentevalsCodeEvaluator(spec.name, spec.path, config=spec.config, timeout=spec.timeout)
        registry.register(evaluator, name=spec.name)
    return config.metrics


def _against_eval_set(
    found: ConversationIndex, set_spec: str, config: Path | None, console: Console, registry: Any, report: InputReport
) -> tuple[TraceCases, list[EvalMetric], str]:
    from ..errors import InputError
    from ..formats import default_adk_metrics, load_eval_set
    from ..service import select_cases
    from ..traces import EVAL_ID_ATTRIBUTE, match_traces
    from ..traces._index import plan_cases
    from ._targets import split_case_filter
    from ._trace_cases import TraceCases

    target = split_case_filter(set_spec)
    golden = load_eval_set(target.path, report=report)
    try:
        select_cases(golden, target.case_ids)
    except InputError as exc:
        raise InputError(exc.message, file=str(target.path)) from None
    matching = match_traces(found.conversations, golden, selected=target.case_ids or None)
    if matching.unmatched:
        listed = "; ".join(f"trace {c.trace_id} ({c.source}): {why}" for c, why in matching.unmatched)
        raise InputError(
            f"{len(matching.unmatched)} trace(s) match no case: {listed}. Name the case with "
            f"EVAL_SET:case_id, or set the span attribute {EVAL_ID_ATTRIBUTE} when recording",
            file=str(target.path),
        )
    for match in matching.matches:
        print_line(console, f"trace {match.conversation.trace_id} -> case {match.case.eval_id} (by {match.how})")
    eval_set = TraceCases(found, plan_cases(found, matching), golden.eval_set_id, golden.description)
    if config is not None:
        return eval_set, metrics_file(config, registry, report), str(config)
    folder = target.path.parent
    for name in (f"{golden.eval_set_id}.metrics.json", "test_config.json", "eval_config.yaml"):
        if (folder / name).is_file():
            return eval_set, metrics_file(folder / name, registry, report), str(folder / name)
    return eval_set, default_adk_metrics(), "ADK default criteria"


def _reference_free(
    found: ConversationIndex, traces: Path, config: Path | None, registry: Any, report: InputReport
) -> tuple[TraceCases, list[EvalMetric], str]:
    from ..errors import InputError
    from ..formats import default_id_for
    from ..traces._index import plan_cases
    from ._trace_cases import TraceCases

    if config is None:
        raise InputError(
            "no eval set: give one (--eval-set SET) to compare the traces with expected conversations, or --config "
            "with reference-free metrics (e.g. safety_v1, hallucinations_v1, llm_rubric_response)"
        )
    metrics = metrics_file(config, registry, report)
    registry.validate_metrics(metrics, file=str(config), report=report)
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
    return TraceCases(found, plan_cases(found), set_id), metrics, str(config)
