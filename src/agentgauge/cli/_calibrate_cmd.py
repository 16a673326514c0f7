"""``agentgauge calibrate``: how often a judge metric agrees with people's labels (accuracy, Cohen's kappa)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from ._app import app
from ._common import EXIT_OK, echo_text, input_errors_exit_2
from ._options import DEFAULT_OUTPUT_DIR, AppNameOption, OutputDirOption, StoreOption
from ._selectors import SELECTOR_FORMS

if TYPE_CHECKING:  # pragma: no cover
    from ..calibration import LabelledResult
    from ..model import HumanLabel

__all__ = ["calibrate"]

CalibrateSourceArg = Annotated[
    str,
    typer.Argument(
        metavar="RESULT_OR_DIR",
        help=f"The results to calibrate: a folder of result files (searched recursively), or {SELECTOR_FORMS}.",
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
    output_dir: OutputDirOption = DEFAULT_OUTPUT_DIR,
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

      agentgauge calibrate latest
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
        results = _results(source, store, app_name, output_dir)
        text = render_calibration(compute(results, given), fmt)
    if fmt == "json":
        sys.stdout.write(text)
        sys.stdout.flush()
    else:
        echo_text(text.rstrip("\n"))
    raise typer.Exit(EXIT_OK)


def _results(source: str, store: str | None, app_name: str | None, output_dir: Path) -> list[LabelledResult]:
    """The folder ``source`` (every result file under it), or the result ``source`` selects: a file with the labels
    beside it, or a stored result with the labels stored for it."""
    from ..calibration import load_labelled_results

    if Path(source).is_dir():
        return load_labelled_results(source)
    from ..storage import resolve_result
    from ._selectors import result_catalog

    catalog = result_catalog([source], output_dir, store, app_name)
    found = resolve_result(source, catalog)
    if found.path is not None:
        return load_labelled_results(found.path)
    from ..calibration import LabelledResult
    from ..sqlstore import SqlLabelStore, StoredResultCatalog

    assert isinstance(catalog, StoredResultCatalog) and found.app_name is not None
    result = found.load()
    stored: list[HumanLabel] = SqlLabelStore(catalog.results.store).list(found.app_name, result.eval_set_result_id)
    return [LabelledResult(result, stored, found.source)]
