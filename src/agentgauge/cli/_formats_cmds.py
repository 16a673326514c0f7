"""``validate``, ``convert`` and ``migrate``: check files and move them between native and ADK formats."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any

import typer

from ._app import app
from ._common import EXIT_INVALID, echo_text, error_line, fail_input, input_errors_exit_2
from ._options import PluginOption, ToFormatOption

__all__ = ["convert", "migrate", "validate"]


def _load_any(path: str, registry: Any = None, keys: list[Any] | None = None) -> tuple[str, Any]:
    """Read a file, detect its kind and load it: ``("eval set" | "metrics" | "result", loaded)``.

    ``keys``, when given, receives the :class:`~agentgauge.formats.KeyReport` of an eval set (its unknown keys)."""
    from ..errors import InputError
    from ..formats import _api
    from ..formats._evalset_read import eval_set_from_document
    from ..formats._jsonio import parse_json, read_bytes
    from ..formats._metrics import metrics_from_document
    from ..formats._results import result_from_document

    doc = parse_json(read_bytes(path), path)
    kind = _api.detect_kind(doc)
    if kind == "eval_set":
        if keys is not None:
            from ..formats import check_keys

            keys.append(check_keys(doc))  # before the reader consumes the document
        return "eval set", eval_set_from_document(doc, path, default_id=_api.default_id_for(path), consume=True)
    if kind == "metrics":
        metrics = metrics_from_document(doc, path, expand=False)
        _check_metric_names(metrics, path, registry)
        return "metrics", metrics
    if kind == "result":
        return "result", result_from_document(doc, path)
    if isinstance(doc, dict) and ("app_name" in doc or "appName" in doc) and set(doc) <= _SESSION_KEYS:
        from ..formats import session_input_from_initial

        return "initial session", session_input_from_initial(doc, path)
    raise InputError(
        f"unrecognised file: found {_api.describe(doc)}; expected an eval set (object with 'evalCases'/'eval_cases', "
        "or an ADK legacy .test.json array), a metrics file (array of metrics, or test_config.json with 'criteria') "
        "or an eval set result (object with 'evalCaseResults'/'eval_case_results')",
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


def _check_metric_names(metrics: Any, path: str, registry: Any = None) -> None:
    """Unknown metric names and invalid criteria are invalid input; custom ADK metrics are checked at run time."""
    from ..evaluators import Registry

    (registry or Registry()).validate_metrics(
        [m for m in metrics if not (isinstance(m.extension, dict) and "custom_metric" in m.extension)],
        file=path,
        warn=lambda message: echo_text(f"warning: {message}", err=True),
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
        list[Path], typer.Argument(readable=False, help="Eval set, metrics / test_config.json or result files.")
    ],
    plugin: PluginOption = None,
    strict: Annotated[
        bool, typer.Option("--strict", help="Unknown keys in native eval sets are errors too (exit 2), not warnings.")
    ] = False,
) -> None:
    """Check eval sets, metrics files and results in any supported format.

    Prints one line per file: "ok: FILE (eval set, N cases)" or "error: FILE: JSON.PATH: what was expected".
    Every key of an eval set that no reader knows is named with its JSON path and the closest known key: an error in
    an ADK file (ADK's models refuse unknown keys), a warning in a native file ("--strict": an error).
    Exits 0 when every file is valid, 2 when any is not.
    """
    from ..errors import InputError, NotFoundError
    from ..evaluators import Registry

    registry = Registry()
    with input_errors_exit_2():
        registry.load_plugins(plugin or ())
    bad = 0
    for file in files:
        keys: list[Any] = []
        try:
            kind, loaded = _load_any(str(file), registry, keys)
        except (InputError, NotFoundError) as exc:
            bad += 1
            _echo_unknown_keys(file, keys, strict)
            typer.echo(error_line(exc), err=True)
            continue
        if _echo_unknown_keys(file, keys, strict):
            bad += 1
            continue
        typer.echo(f"ok: {file} ({_summary(kind, loaded)})")
    if bad:
        raise typer.Exit(EXIT_INVALID)


def _echo_unknown_keys(file: Path, reports: list[Any], strict: bool) -> bool:
    """Print one line per unknown key (``error:`` or ``warning:``); True when they make the file invalid."""
    if not reports or not reports[0].unknown:
        return False
    report = reports[0]
    fatal = report.blocking or strict
    if report.blocking:
        why = "ADK's models allow no unknown keys"
    else:
        why = "it has no effect (--strict)" if strict else "it has no effect (an error with --strict)"
    for key in report.unknown:
        line = f"{file}: {key.path}: {key.message()}; {why}"
        shown = error_line(line)  # secrets masked, long values cut
        typer.echo(shown if fatal else "warning: " + shown.removeprefix("error: "), err=True)
    return fatal


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
