"""``validate``, ``convert`` and ``migrate``: check files and move them between native and ADK formats."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from ._app import app
from ._common import EXIT_INVALID, echo_problems, error_line, fail_input, input_errors_exit_2
from ._options import PluginOption, StrictOption, ToFormatOption

if TYPE_CHECKING:  # pragma: no cover
    from ..formats import InputReport, MetricPaths

__all__ = ["convert", "migrate", "validate"]


def _load_any(path: str, registry: Any = None, report: InputReport | None = None) -> tuple[str, Any]:
    """Read a file, detect its kind and load it: ``("eval set" | "metrics" | "result", loaded)``.

    ``report``, when given, receives what the input checks find (unknown keys of eval sets and metrics files,
    warnings about metrics); the metrics are checked against ``registry`` then."""
    from ..errors import InputError
    from ..formats import _api, eval_set_of_document
    from ..formats._jsonio import parse_json, read_bytes
    from ..formats._metrics import metrics_from_document
    from ..formats._results import result_from_document

    if path.lower().endswith((".yaml", ".yml")):  # an agentevals eval_config.yaml
        from ..formats import MetricPaths
        from ..launch import metrics_file

        metrics = metrics_file(Path(path), registry, report)
        _check_metric_names(metrics, path, registry, report, MetricPaths("agentevals"))
        return "metrics", metrics
    doc = parse_json(read_bytes(path), path)
    kind = _api.detect_kind(doc)
    if kind == "eval_set":
        return "eval set", eval_set_of_document(doc, path, report=report)
    if kind == "metrics":
        from ..formats import MetricPaths

        metrics = metrics_from_document(doc, path, expand=False, report=report)
        layout = MetricPaths("test_config") if isinstance(doc, dict) else MetricPaths()
        _check_metric_names(metrics, path, registry, report, layout)
        return "metrics", metrics
    if kind == "result":
        return "result", result_from_document(doc, path)
    if isinstance(doc, dict) and ("app_name" in doc or "appName" in doc) and set(doc) <= _SESSION_KEYS:
        from ..formats import session_input_from_initial

        return "initial session", session_input_from_initial(doc, path)
    raise InputError(
        f"unrecognised file: found {_api.describe(doc)}; expected an eval set (object with 'evalCases'/'eval_cases', "
        "or an ADK legacy .test.json array), a metrics file (array of metrics, test_config.json with 'criteria', "
        "or an agentevals eval_config.yaml) or an eval set result (object with 'evalCaseResults'/'eval_case_results')",
        file=path,
    )


def _check_depth_of_output(doc: Any, source: str, fmt: str) -> None:
    """Refuse to write a file that would be too deep to read back: the other format can wrap values deeper."""
    from ..errors import InputError
    from ..formats._jsonio import MAX_DEPTH, check_depth

    try:
        check_depth(doc, f"the {fmt} form")
    except InputError as exc:
        raise InputError(
            f"cannot write the {fmt} form: it would be {exc.message} at {exc.location} (a value in this file is within "
            f"a few levels of the limit of {MAX_DEPTH}); nothing written",
            file=source,
        ) from None


# ADK's initial.session.json is often a saved ``Session`` (``id``, ``events``, ``last_update_time`` too): ADK's
# AgentEvaluator reads it and keeps app_name, user_id and state, so those extra keys do not make it another kind.
_SESSION_KEYS = frozenset(
    {
        "app_name",
        "appName",
        "user_id",
        "userId",
        "state",
        "session_id",
        "sessionId",
        "id",
        "events",
        "last_update_time",
        "lastUpdateTime",
    }
)


def _check_metric_names(metrics: Any, path: str, registry: Any, report: InputReport | None, paths: MetricPaths) -> None:
    """Unknown metric names, invalid criteria and thresholds are invalid input; unknown keys go to ``report``.
    Custom ADK metrics are checked at run time (checking one imports its code)."""
    from ..evaluators import Registry

    custom = [m.metric_name for m in metrics if isinstance(m.extension, dict) and "custom_metric" in m.extension]
    (registry or Registry()).validate_metrics(
        metrics, file=path, skip=custom, report=report, paths=paths, checking_file=True
    )


def _summary(kind: str, loaded: Any) -> str:
    if kind == "eval set":
        return f"eval set, {len(loaded.eval_cases)} cases"
    if kind == "metrics":
        from ..formats import ADK_EFFICIENCY_METRICS

        # The file's own metrics: not the informational ones appended to every test_config.json.
        own = [m for m in loaded if m.criterion is not None or m.metric_name not in ADK_EFFICIENCY_METRICS]
        return f"metrics, {len(own)} metrics"
    if kind == "initial session":
        return f"initial session, app {loaded.app_name!r}"
    return f"result, {len(loaded.eval_case_results)} case results"


@app.command(
    epilog="Example:  agentgauge validate evals/*.evalset.json evals/test_config.json results/app/*.json",
)
def validate(
    files: Annotated[
        list[Path],
        typer.Argument(
            readable=False,
            help="Eval set, metrics (metrics.json, test_config.json, eval_config.yaml) or result files.",
        ),
    ],
    plugin: PluginOption = None,
    strict: StrictOption = False,
) -> None:
    """Check eval sets, metrics files and results in any supported format.

    Prints one line per file: "ok: FILE (eval set, N cases)" or "error: FILE: JSON.PATH: what was expected", and
    one line per input warning: "warning: FILE: JSON.PATH: message". Every key no reader knows is named with its
    JSON path and the closest known key: an error where the file's own tool refuses it (ADK's Invocation), a
    warning where it accepts it (trpc-agent-go, ADK's EvalCase); "--strict": every warning is an error too.
    Exits 0 when every file is valid, 2 when any is not.
    """
    from ..errors import InputError, NotFoundError
    from ..evaluators import Registry
    from ..formats import InputReport

    registry = Registry()
    with input_errors_exit_2():
        registry.load_plugins(plugin or ())
    bad = 0
    for file in files:
        report = InputReport(strict=strict, strict_reason="--strict")
        try:
            kind, loaded = _load_any(str(file), registry, report)
        except (InputError, NotFoundError) as exc:
            bad += 1
            echo_problems(report.problems)
            typer.echo(error_line(exc), err=True)
            continue
        echo_problems(report.problems)
        if report.errors:
            bad += 1
            continue
        typer.echo(f"ok: {file} ({_summary(kind, loaded)})")
    if bad:
        raise typer.Exit(EXIT_INVALID)


@app.command(
    epilog="Examples:  agentgauge convert home.test.json home.evalset.json\n\n"
    "           agentgauge convert math.evalset.json math.adk.evalset.json --to adk",
)
def convert(
    source: Annotated[
        Path, typer.Argument(readable=False, help="Input file: eval set, metrics or result, any supported format.")
    ],
    target: Annotated[
        Path, typer.Argument(readable=False, help="Output file (written atomically; parent folders are created).")
    ],
    to: ToFormatOption = "native",
) -> None:
    """Convert an eval set, metrics file or result between the native format and Google ADK's.

    Metrics convert to ADK only when every metric uses an ADK criterion (test_config.json has no other form).
    Nothing is written when the input is invalid.
    """
    if to not in ("native", "adk"):
        fail_input(f"--to must be 'native' or 'adk', not {to!r}")
    with input_errors_exit_2():
        from .._util.fileio import check_output_target
        from ..formats import _api
        from ..formats._jsonio import dump_json
        from ..storage import atomic_write

        check_output_target(target)  # a FIFO, device or directory is refused before the input is read
        fmt: Any = to
        kind, loaded = _load_any(str(source))
        # Built here rather than by save_*, so that a document too deep to read back is refused before writing.
        if kind == "eval set":
            doc: Any = _api.eval_set_document(loaded, fmt)
        elif kind == "metrics":
            doc = json.loads(_api.dump_metrics(loaded, fmt=fmt, source=str(source)))
        elif kind == "result":
            doc = _api.result_document(loaded, fmt)
        else:
            from ..errors import InputError

            raise InputError(f"an {kind} file has a single format; nothing to convert", file=str(source))
        _check_depth_of_output(doc, str(source), to)
        atomic_write(target, dump_json(doc))
    typer.echo(f"wrote {target} ({to} {_summary(kind, loaded)})")


@app.command(
    epilog="Example:  agentgauge migrate tests/fixture/home.test.json evals/home.evalset.json "
    "--initial-session tests/fixture/initial.session.json",
)
def migrate(
    source: Annotated[
        Path, typer.Argument(readable=False, help="An ADK legacy .test.json file (rows of query/expected_tool_use).")
    ],
    target: Annotated[Path, typer.Argument(readable=False, help="The new eval set file to write.")],
    initial_session: Annotated[
        Path | None,
        typer.Option(
            "--initial-session", readable=False, help="ADK initial session JSON ({state, app_name, user_id})."
        ),
    ] = None,
    to: ToFormatOption = "native",
) -> None:
    """Migrate an ADK legacy .test.json file (one session) to an eval set file.

    The case id and eval set id are the file name without ".test.json". With --initial-session, its state,
    app_name and user_id become the case's session input.
    """
    if to not in ("native", "adk"):
        fail_input(f"--to must be 'native' or 'adk', not {to!r}")
    with input_errors_exit_2():
        from .._util.fileio import check_output_target
        from ..errors import InputError
        from ..formats import _api
        from ..formats._evalset_read import eval_set_from_document
        from ..formats._jsonio import parse_json, read_bytes
        from ..formats._legacy import is_legacy_document, session_input_from_initial

        check_output_target(target)  # a FIFO, device or directory is refused before the input is read
        path = str(source)
        doc = parse_json(read_bytes(path), path)
        if not is_legacy_document(doc):
            raise InputError(
                f"not a legacy ADK test file: found {_api.describe(doc)}; expected an array of "
                "{query, expected_tool_use, reference} rows (use 'agentgauge convert' for other formats)",
                file=path,
            )
        eval_set = eval_set_from_document(doc, path, default_id=_api.default_id_for(path))
        if initial_session is not None:
            session_path = str(initial_session)
            session = session_input_from_initial(parse_json(read_bytes(session_path), session_path), session_path)
            for case in eval_set.eval_cases:
                case.session_input = session.model_copy(deep=True)
        _api.save_eval_set(eval_set, target, fmt="adk" if to == "adk" else "native")
    typer.echo(f"wrote {target} (eval set {eval_set.eval_set_id!r}, {len(eval_set.eval_cases)} cases)")
