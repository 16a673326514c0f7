"""``agentgauge list-metrics``: every registered metric with what it needs and the values it produces."""

from __future__ import annotations

import json
import math
from typing import TYPE_CHECKING, Annotated

import typer

from ._app import app
from ._common import input_errors_exit_2
from ._options import PluginOption

if TYPE_CHECKING:
    from ..evaluators import MetricInfo

__all__ = ["list_metrics"]


def _range(lo: float, hi: float) -> str:
    return f"≥ {lo:g}" if math.isinf(hi) else f"{lo:g}–{hi:g}"


def _one_line(description: str) -> str:
    """The first line of a description, up to its first ``"; "`` (the table shows the gist; --json has it all)."""
    first = description.strip().splitlines()[0] if description.strip() else ""
    return first.split("; ", 1)[0]


_TABLE_MIN_WIDTH = 120
"""Below this many columns the table's description column would wrap a word per line: list blocks instead."""


def _blocks(infos: list[MetricInfo], width: int) -> str:
    """One block per metric: the name with its needs and range, then the description wrapped under it."""
    import textwrap

    lines = ["agentgauge metrics", ""]
    for i in infos:
        facts = (
            f"expected: {'yes' if i.needs_expected else 'no'}  judge: {'yes' if i.needs_judge else 'no'}  "
            f"range: {_range(i.min_value, i.max_value)}"
        )
        head = f"{i.name}  {facts}"
        lines.append(head if len(head) <= width else f"{i.name}\n  {facts}")
        lines.extend(
            textwrap.wrap(
                _one_line(i.description),
                max(width - 2, 20),
                initial_indent="  ",
                subsequent_indent="  ",
                break_on_hyphens=False,
            )
        )
    return "\n".join(lines)


@app.command("list-metrics")
def list_metrics(
    json_out: Annotated[bool, typer.Option("--json", help="Print the list as JSON instead of a table.")] = False,
    plugin: PluginOption = None,
) -> None:
    """List the metrics available to eval runs: name, whether expected data or a judge model is needed, the value
    range and a one-line description.

    Examples:

        agentgauge list-metrics

        agentgauge list-metrics --json
    """
    from ..evaluators import Registry

    registry = Registry()
    with input_errors_exit_2():
        registry.load_plugins(plugin or ())
    infos = registry.infos()
    if json_out:
        rows = [
            {
                "name": i.name,
                "needsExpected": i.needs_expected,
                "needsJudge": i.needs_judge,
                "minValue": i.min_value,
                "maxValue": None if math.isinf(i.max_value) else i.max_value,  # unbounded (counts, seconds)
                "description": i.description,
            }
            for i in infos
        ]
        typer.echo(json.dumps(rows, indent=2, ensure_ascii=False))
        return

    import shutil

    width = shutil.get_terminal_size().columns
    if width < _TABLE_MIN_WIDTH:
        typer.echo(_blocks(infos, width))
        return

    from rich.console import Console
    from rich.table import Table

    table = Table(title="agentgauge metrics", title_justify="left")
    table.add_column("metric", style="bold", no_wrap=True)
    table.add_column("expected", justify="center")
    table.add_column("judge", justify="center")
    table.add_column("range", justify="center", no_wrap=True)
    table.add_column("description")
    for i in infos:
        table.add_row(
            i.name,
            "yes" if i.needs_expected else "no",
            "yes" if i.needs_judge else "no",
            _range(i.min_value, i.max_value),
            _one_line(i.description),
        )
    Console(emoji=False).print(table)
