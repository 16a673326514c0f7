"""``agentgauge traces show | to-evalset`` and the ``eval --traces`` runner: recorded OpenTelemetry traces as
agent conversations (see docs/traces.md)."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from ._app import app
from ._common import echo_text, error_line, fail_input, input_errors_exit_2, print_line

if TYPE_CHECKING:  # pragma: no cover
    from rich.console import Console

    from ..model import EvalMetric, EvalSet, Invocation
    from ..run._evaluator import EvaluationResult
    from ..traces import Conversations, TraceConversation

__all__ = ["export", "show", "to_evalset", "trace_runner", "traces_app"]

traces_app = typer.Typer(
    name="traces",
    help="Read recorded OpenTelemetry traces (Jaeger JSON, OTLP JSON/JSONL, Tempo) as agent conversations.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode="rich",
)
app.add_typer(traces_app, name="traces")

_PREVIEW = 160


def _clip(value: Any, limit: int = _PREVIEW) -> str:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _conversation_lines(conversation: TraceConversation) -> list[str]:
    facts = [f"{len(conversation.invocations)} invocation(s)"]
    for label, value in (
        ("eval id", conversation.eval_id),
        ("session", conversation.session_id),
        ("app", conversation.app_name),
    ):
        if value:
            facts.append(f"{label} {value}")
    ids = list(dict.fromkeys(conversation.trace_ids)) or [conversation.trace_id]
    label = f"trace {ids[0]}" if len(ids) == 1 else f"traces {', '.join(ids)}"
    lines = [f"{label} ({conversation.source}): {', '.join(facts)}"]
    for number, invocation in enumerate(conversation.invocations, start=1):
        lines.extend(_invocation_lines(number, invocation))
    lines.extend(f"  warning: {warning}" for warning in conversation.warnings)
    return lines


def _invocation_lines(number: int, invocation: Invocation) -> list[str]:
    lines = [f"  [{number}] user: {_clip(invocation.user_content.content)}"]
    for tool in invocation.tools:
        result = "" if tool.result is None else f" -> {_clip(tool.result, 80)}"
        lines.append(f"      tool: {tool.name}({_clip(tool.arguments, 80)}){result}")
    lines.extend(f"      said: {_clip(message.content)}" for message in invocation.intermediate_responses)
    final = invocation.final_response.content if invocation.final_response is not None else ""
    lines.append(f"      answer: {_clip(final) if final else '(none)'}")
    return lines


_BY_SESSION_HELP = "Traces sharing a session id (gen_ai.conversation.id) form one conversation (one trace per turn)."


def _read(path: Path, by_session: bool = False) -> Conversations:
    from ..traces import read_conversations

    found = read_conversations(path, by_session=by_session)
    for note in found.skipped:
        echo_text(f"note: skipped {note}", err=True)
    return found


@traces_app.command(
    "show",
    epilog="Examples:  agentgauge traces show examples/traces/adk_weather.otlp.jsonl\n\n"
    "           agentgauge traces show examples/traces/ --json",
)
def show(
    path: Annotated[
        Path, typer.Argument(readable=False, help="A trace file (Jaeger JSON, OTLP JSON/JSONL) or a directory of them.")
    ],
    json_out: Annotated[bool, typer.Option("--json", help="Print the conversations as JSON.")] = False,
    by_session: Annotated[bool, typer.Option("--by-session", help=_BY_SESSION_HELP)] = False,
) -> None:
    """Print the invocations extracted from each trace: user message, tool calls, answers.

    One trace is one conversation. Exit code 2 (one error line naming the file and trace) when a file cannot be
    read or a trace holds no message content.
    """
    with input_errors_exit_2():
        found = _read(path, by_session)
    if json_out:
        documents = [
            {
                "traceId": c.trace_id,
                "source": c.source,
                **({"evalId": c.eval_id} if c.eval_id else {}),
                **({"sessionId": c.session_id} if c.session_id else {}),
                **({"appName": c.app_name} if c.app_name else {}),
                "invocations": [inv.model_dump(mode="json", by_alias=True) for inv in c.invocations],
                "traceIds": sorted(set(c.trace_ids)),
                "warnings": c.warnings,
            }
            for c in found.conversations
        ]
        typer.echo(json.dumps(documents, indent=2, ensure_ascii=False))
        return
    for conversation in found.conversations:
        echo_text("\n".join(_conversation_lines(conversation)))


@traces_app.command(
    "to-evalset",
    epilog="Example:  agentgauge traces to-evalset examples/traces/adk_weather.otlp.jsonl weather_golden.evalset.json",
)
def to_evalset(
    path: Annotated[Path, typer.Argument(readable=False, help="A trace file or a directory of trace files.")],
    target: Annotated[Path, typer.Argument(help="The eval set file to write (atomically).")],
    eval_set_id: Annotated[
        str | None, typer.Option("--eval-set-id", help="Eval set id (default: the output file name).")
    ] = None,
    to: Annotated[str, typer.Option("--to", help="Output format: 'native' (camelCase) or 'adk'.")] = "native",
    by_session: Annotated[bool, typer.Option("--by-session", help=_BY_SESSION_HELP)] = False,
) -> None:
    """Turn recorded traces into an eval set: one case per trace, its conversation as the expected one.

    This is the "golden session" flow: record a run you are happy with, then evaluate the agent (or later traces)
    against it. Case ids are the 'agentgauge.eval_id' span attribute when present, else trace_<trace id prefix>.
    """
    if to not in ("native", "adk"):
        fail_input(f"--to must be 'native' or 'adk', not {to!r}")
    with input_errors_exit_2():
        from ..formats import default_id_for, save_eval_set
        from ..storage import check_segment
        from ..traces import golden_eval_set

        found = _read(path, by_session)
        set_id = check_segment(eval_set_id or default_id_for(str(target)), "eval set id")
        eval_set = golden_eval_set(found.conversations, set_id)
        save_eval_set(eval_set, target, fmt="adk" if to == "adk" else "native")
    typer.echo(f"wrote {target} (eval set {set_id!r}, {len(eval_set.eval_cases)} cases from traces)")


@traces_app.command(
    "export",
    epilog="Examples:  agentgauge traces export .agentgauge/results/app/RESULT.evalset_result.json --out spans.json\n\n"
    "           agentgauge traces export RESULT.evalset_result.json --endpoint http://localhost:4318",
)
def export(
    result_file: Annotated[
        Path, typer.Argument(readable=False, help="A saved eval set result (any supported result format).")
    ],
    out: Annotated[
        Path | None, typer.Option("--out", help="Write the spans as OTLP JSON (.jsonl: one line) to this file.")
    ] = None,
    endpoint: Annotated[
        str | None,
        typer.Option(
            "--endpoint",
            help="OTLP/HTTP endpoint to post the spans to (JSON encoding; '/v1/traces' is appended). Default: "
            "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT or OTEL_EXPORTER_OTLP_ENDPOINT when --out is not given.",
        ),
    ] = None,
    header: Annotated[
        list[str] | None, typer.Option("--header", help="Extra HTTP header KEY=VALUE (repeatable).")
    ] = None,
) -> None:
    """Send an evaluation result to a tracing backend as OpenTelemetry spans.

    One trace per case (the evaluated trace itself for cases scored with 'eval --traces'), with a span per case,
    invocation and metric carrying gen_ai.evaluation.name / score.value / score.label / explanation. Headers also
    come from OTEL_EXPORTER_OTLP_HEADERS; their values are never printed.
    """
    from ..errors import AgentgaugeError
    from ..traces import export_result, traces_endpoint
    from ..traces._export import check_header

    with input_errors_exit_2():
        from ..formats import load_result

        headers = dict(check_header(item) for item in header or [])
        url = traces_endpoint(endpoint) if endpoint or out is None else None
        if out is None and url is None:
            fail_input("nothing to do: give --out FILE or --endpoint URL (or set OTEL_EXPORTER_OTLP_ENDPOINT)")
        result = load_result(result_file)
        try:
            count = export_result(result, path=out, endpoint=url, headers=headers)
        except AgentgaugeError as exc:
            typer.echo(error_line(exc), err=True)
            raise typer.Exit(1) from None
    targets = [str(t) for t in (out, url) if t is not None]
    typer.echo(f"exported {count} spans from {len(result.eval_case_results)} case result(s) to {' and '.join(targets)}")


# --- eval --traces ----------------------------------------------------------------------------------------------


def trace_runner(
    traces: Path | None, eval_set: str | None, by_session: bool = False
) -> Callable[..., list[EvaluationResult]]:
    """The ``eval --traces`` replacement for ``eval``'s runner: same keyword arguments, same outcome type, so
    reports, ``--json`` and exit codes are exactly those of ``eval``.

    The positional arguments may hold the eval set instead of ``--eval-set`` (at most one, never an agent).
    """

    def run(args: list[str], **options: Any) -> list[EvaluationResult]:
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
        return _evaluate_traces(traces, specs[0] if specs else None, by_session=by_session, **options)

    return run


def _evaluate_traces(
    traces: Path,
    set_spec: str | None,
    *,
    by_session: bool,
    config: Path | None,
    num_runs: int,
    parallelism: int,
    output_dir: Path,
    app_name: str | None,
    no_cache: bool,
    console: Console,
    judge_timeout: float | None = None,
    default_judge: dict[str, str] | None = None,
    plugins: list[str] | None = None,
    result_store: Any = None,
    keep_results: bool = True,
    metric_options: Any = None,
    **_: Any,
) -> list[EvaluationResult]:
    """Evaluate the conversations in ``traces`` (keyword arguments of ``eval``'s runner; the ones a trace run
    has no use for, such as the agent timeout, are ignored)."""
    import asyncio

    from rich.text import Text

    from ..run._evaluator import AgentEvaluator
    from ..storage import InMemoryEvalSetManager, InMemoryMetricManager, LocalEvalResultManager, check_segment
    from ._eval_run import run_phase_ends, run_phase_starts
    from ._metric_opts import MetricOptions, checked_metrics, make_registry

    chosen = metric_options if isinstance(metric_options, MetricOptions) else MetricOptions(None, parallelism)
    registry = make_registry(output_dir, no_cache, judge_timeout, default_judge, plugins, chosen.judge_parallelism)
    found = _read(traces, by_session)
    if set_spec is not None:
        eval_set, metrics, metrics_source = _against_eval_set(found.conversations, set_spec, config, console)
    else:
        eval_set, metrics, metrics_source = _reference_free(found.conversations, traces, config, registry)
    skipped = checked_metrics(chosen.selection, metrics, registry, metrics_source)  # e.g. no API key: exit 2
    names = [app_name] if app_name else []
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
    evaluator = AgentEvaluator(
        app,
        None,
        eval_set_manager=sets,
        metric_manager=metric_store,
        result_manager=result_store if result_store is not None else LocalEvalResultManager(base_dir=output_dir),
        registry=registry,
        num_runs=num_runs,
        parallelism=parallelism,
        max_results_in_memory=None if keep_results else 0,
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
    from ._eval_cmd import _split_case_filter

    target = _split_case_filter(set_spec)
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
