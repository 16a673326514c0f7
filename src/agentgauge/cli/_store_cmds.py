"""``agentgauge results``: the results kept in a SQL store, newest first."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Annotated

import typer

from ._app import app
from ._common import echo_text, fail_input, input_errors_exit_2
from ._options import LabelFilterOption, StoreOption

__all__ = ["results_command"]


@app.command("results")
def results_command(
    store: StoreOption = None,
    app_name: Annotated[str | None, typer.Option("--app-name", help="Only the results of this app.")] = None,
    eval_set: Annotated[str | None, typer.Option("--eval-set", help="Only the results of this eval set id.")] = None,
    limit: Annotated[int, typer.Option("--limit", help="At most this many results (newest first).")] = 20,
    json_out: Annotated[bool, typer.Option("--json", help="Print the list as JSON.")] = False,
    label: LabelFilterOption = None,
) -> None:
    """List the results stored in a SQL store, newest first: when, app, eval set, status, cases (passed of all,
    each case counted once over its runs), case runs (each case once per run), labels, id.

    Status is ``completed``, ``interrupted`` (stopped by Ctrl-C), ``running`` (still running, or the run was killed:
    its finished cases are kept) or ``aborted``. Read one with ``agentgauge show RESULT_ID --store URL``.

    Example:

      agentgauge results --store sqlite:///results.db --eval-set calculator

      agentgauge results --store results.db --label env=prod --label team=core
    """
    from ..sqlstore import resolve_store_url
    from ._run_metadata import format_labels

    url = resolve_store_url(store)
    if url is None:
        fail_input("no store given: use --store URL or set AGENTGAUGE_STORE")
    if limit < 1:
        fail_input(f"--limit must be at least 1, got {limit}")
    from ..model import parse_labels

    try:
        wanted = parse_labels(label or ())
    except ValueError as exc:
        fail_input(f"--label: {exc}")
    with input_errors_exit_2():
        from ..sqlstore._cli import open_result_store

        found = open_result_store(url).find(app=app_name, eval_set_id=eval_set, limit=limit, labels=wanted)
    if json_out:
        rows = [
            {
                "appName": i.app_name,
                "evalSetResultId": i.eval_set_result_id,
                "evalSetId": i.eval_set_id,
                "status": i.status,
                "numCases": i.num_cases,
                "caseStatusCounts": i.case_counts,
                "creationTimestamp": i.creation_timestamp,
                "labels": i.labels,
            }
            for i in found
        ]
        typer.echo(json.dumps(rows, indent=2))
        return
    if not found:
        typer.echo(f"no results stored with {format_labels(wanted)}" if wanted else "no results stored")
        return
    header = ("Created (UTC)", "App", "Eval set", "Status", "Cases", "Case runs", "Labels", "Result id")
    table: list[tuple[str, ...]] = [header]
    for i in found:
        when = (
            ""
            if i.creation_timestamp is None
            else f"{datetime.fromtimestamp(i.creation_timestamp, UTC):%Y-%m-%d %H:%M:%S}"
        )
        labels = format_labels(i.labels).replace(", ", ",") or "-"
        cases = "-" if i.case_counts is None else f"{i.case_counts['passed']}/{i.cases} passed"
        table.append((when, i.app_name, i.eval_set_id, i.status, cases, str(i.num_cases), labels, i.eval_set_result_id))
    # Plain columns, never cut: ids are what users copy from this list.
    widths = [max(len(row[n]) for row in table) for n in range(len(header) - 1)]
    for line in table:
        echo_text("  ".join([*(cell.ljust(w) for cell, w in zip(line, widths, strict=False)), line[-1]]))
