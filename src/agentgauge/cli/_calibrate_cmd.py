"""``agentgauge calibrate``: how often a judge metric agrees with people's labels (accuracy, Cohen's kappa)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from ._app import app
from ._common import EXIT_OK, echo_text, input_errors_exit_2
from ._options import AppNameOption, StoreOption

if TYPE_CHECKING:  # pragma: no cover
    from ..calibration import LabelledResult
    from ..model import HumanLabel

__all__ = ["calibrate"]

CalibrateSourceArg = Annotated[
    str,
    typer.Argument(
        metavar="RESULT_OR_DIR",
        help="A result file (agentgauge, trpc-agent-go or ADK), a folder of result files (searched recursively), or "
        "with --store a result id.",
    ),
]
LabelsOption = Annotated[
    Path | None,
    typer.Option(
        "--labels",
        readable=False,
        rich_help_panel="Judges",
        help="A LABELS.jsonl of people's verdicts (one JSON object per line; see docs/judges.md). Optional when the "
        "results have labels stored with them (given in the web UI).",
    ),
]
CalibrationFormatOption = Annotated[
    str,
    typer.Option(
        "--format",
        rich_help_panel="Output",
        help="text (a table of at most 80 columns), json or markdown.",
    ),
]

_FORMATS = ("text", "json", "markdown")


@app.command()
def calibrate(
    source: CalibrateSourceArg,
    labels: LabelsOption = None,
    fmt: CalibrationFormatOption = "text",
    store: StoreOption = None,
    app_name: AppNameOption = None,
) -> None:
    """Compare a judge metric's verdicts with people's labels: accuracy, Cohen's kappa, confusion matrix and the
    verdicts they disagree on, per metric, judge model and level (case or invocation).

    Labels come from --labels and from the labels stored with the results (the web UI's; a result's
    <id>.labels.jsonl beside it, or the store's table). Results of several judge models are shown side by side;
    labels given on one result also count for the others that hold the same conversation.

    Exit code 0 when the comparison was made (even with no labelled verdict), 2 on bad input.

    Examples:

      agentgauge calibrate examples/calibration/results --labels examples/calibration/LABELS.jsonl

      agentgauge calibrate .agentgauge/results/calculator --format markdown

      agentgauge calibrate calculator_calculator_1f0c... --store sqlite:///results.db
    """
    from .._util.redact import mask_standard_streams

    mask_standard_streams()
    with input_errors_exit_2():
        from ..calibration import calibrate as compute
        from ..calibration import render_calibration
        from ..errors import InputError
        from ..storage import read_labels

        if fmt not in _FORMATS:
            raise InputError(f"--format: unknown format {fmt!r}; choose text, json or markdown")
        given = read_labels(labels) if labels is not None else []
        results = _results(source, store, app_name)
        text = render_calibration(compute(results, given), fmt)
    if fmt == "json":
        sys.stdout.write(text)
        sys.stdout.flush()
    else:
        echo_text(text.rstrip("\n"))
    raise typer.Exit(EXIT_OK)


def _results(source: str, store: str | None, app_name: str | None) -> list[LabelledResult]:
    """The result file or folder ``source``, or with a store (and ``source`` not an existing path) the stored
    result of that id with the labels stored for it."""
    from ..calibration import load_labelled_results
    from ..sqlstore import resolve_store_url

    url = resolve_store_url(store)
    if url is None or Path(source).exists():
        return load_labelled_results(source)
    from ..calibration import LabelledResult
    from ..sqlstore import SqlLabelStore
    from ..sqlstore._cli import load_stored_result, open_result_store

    results = open_result_store(url)
    result = load_stored_result(results, source, app_name)
    app = app_name or next(info.app_name for info in results.find(source))
    stored: list[HumanLabel] = SqlLabelStore(results.store).list(app, source)
    return [LabelledResult(result, stored, source)]
