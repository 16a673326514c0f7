"""``agentgauge traces show | to-evalset | export``: recorded OpenTelemetry traces as agent conversations, and
results as traces (see docs/traces.md; ``eval --traces`` runs through :mod:`agentgauge.launch`)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from ._app import AgentgaugeTyper, app
from ._common import echo_text, error_line, fail_input, input_errors_exit_2
from ._options import BySessionOption, ToFormatOption
from ._replay_cmd import checked_mode, write_replay_set

if TYPE_CHECKING:  # pragma: no cover
    from ..formats import Format
    from ..model import EvalSet, EvalSetResult, Invocation
    from ..traces import Conversations, TraceConversation

__all__ = ["export", "read_traces", "set_or_result_else_traces", "show", "to_evalset", "traces_app"]

traces_app = AgentgaugeTyper(
    name="traces",
    help="Read recorded OpenTelemetry traces (Jaeger JSON, OTLP JSON/JSONL, Tempo) as agent conversations.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode="rich",
)
app.add_typer(traces_app, name="traces")

_PREVIEW = 160


def read_traces(path: Path, by_session: bool = False) -> Conversations:
    """The conversations recorded in a trace file or directory; a note on stderr for each trace skipped."""
    from ..traces import read_conversations

    found = read_conversations(path, by_session=by_session)
    for note in found.skipped:
        echo_text(f"note: skipped {note}", err=True)
    return found


def set_or_result_else_traces(path: Path) -> tuple[EvalSet | EvalSetResult, Format] | None:
    """The eval set or result at ``path`` with its format, or ``None`` when ``path`` holds recorded traces: a
    directory, a ``.jsonl`` file or a JSON document that is neither (read it with :func:`read_traces`)."""
    from ..formats import NeitherSetNorResultError, load_set_or_result

    if path.is_dir() or path.suffix == ".jsonl":
        return None
    try:
        return load_set_or_result(path)
    except NeitherSetNorResultError:
        return None


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
    by_session: BySessionOption = False,
) -> None:
    """Print the invocations extracted from each trace: user message, tool calls, answers.

    One trace is one conversation. Exit code 2 (one error line naming the file and trace) when a file cannot be
    read or a trace holds no message content.
    """
    with input_errors_exit_2():
        found = read_traces(path, by_session)
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
    to: ToFormatOption = "native",
    by_session: BySessionOption = False,
    mocks: Annotated[
        str | None,
        typer.Option(
            "--mocks",
            help="Write replay cases: each turn's recorded tool results become its toolMock rules, 'strict' "
            "(arguments must match) or 'fifo' (in recorded order); run them with 'eval --replay'.",
            rich_help_panel="Input",
        ),
    ] = None,
) -> None:
    """Turn recorded traces into an eval set: one case per trace, its conversation as the expected one.

    This is the "golden session" flow: record a run you are happy with, then evaluate the agent (or later traces)
    against it. Case ids are the 'agentgauge.eval_id' span attribute when present, else trace_<trace id prefix>.
    With --mocks, the cases replay the recording: the agent runs for real and its tool calls are answered from
    the trace.
    """
    if to not in ("native", "adk"):
        fail_input(f"--to must be 'native' or 'adk', not {to!r}")
    mode = checked_mode(mocks) if mocks is not None else None
    with input_errors_exit_2():
        from ..formats import default_id_for, save_eval_set
        from ..storage import check_segment
        from ..traces import golden_eval_set

        found = read_traces(path, by_session)
        set_id = check_segment(eval_set_id or default_id_for(str(target)), "eval set id")
        eval_set = golden_eval_set(found.conversations, set_id)
        if mode is not None:
            from ..mocks import replay_eval_set

            replay = replay_eval_set(eval_set, mode)
            write_replay_set(replay.eval_set, target, to, replay.warnings)
            return
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
