"""``--help`` laid out for the terminal's width: options in two columns (names, then what they do), never clipped.

typer's own layout gives long option names, their aliases and their type three columns joined without spaces
(``--config,--metrics,--con…``), which an 80-column terminal clips. Here the names, the ``/`` of a switch and the
type share one column that wraps between names, sized to the longest entry but at most ~40% of the width, and the
help takes the rest. Panels (``rich_help_panel``) are kept: every command groups its options the same way.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from typer.core import TyperCommand, TyperGroup

if TYPE_CHECKING:  # pragma: no cover
    from rich.console import Console
    from rich.text import Text

__all__ = ["PANELS", "CompactHelpCommand", "CompactHelpGroup", "install_compact_help", "panel_of"]

PANELS = ("Input", "Metrics", "Judges", "Execution", "Output", "Store")
"""The help panels every command groups its options in, in this order (an option may name its own)."""

_PANEL_OF: dict[str, str] = {
    **dict.fromkeys(
        (
            "--traces", "--eval-set", "--by-session", "--require-all-cases", "--expected-agent", "--user-simulator",
            "--simulator-model", "--simulator-base-url", "--max-turns", "--scenarios", "--session-input",
            "--description", "--description-file", "--environment-context", "--initial-session", "--eval-set-id",
            "--evals-dir", "--user-id", "--instruction", "--count", "--strict", "--header", "--endpoint",
        ),
        "Input",
    ),
    **dict.fromkeys(
        ("--config", "--only-metrics", "--skip-metrics", "--plugin", "--dialect", "--reducer", "--prices"), "Metrics"
    ),
    **dict.fromkeys(
        ("--judge-model", "--judge-base-url", "--judge-timeout", "--judge-parallelism", "--no-judges", "--no-cache"),
        "Judges",
    ),
    **dict.fromkeys(
        (
            "--num-runs", "--parallelism", "--timeout", "--executor", "--ray-address", "--rate-limit", "--resume",
            "--cache-agent", "--cache-agent-dir", "--host", "--port", "--token", "--allowed-host", "--cors",
            "--allow-remote-writes", "--insecure-no-auth", "--max-upload-mb", "--adk-web", "--debug",
        ),
        "Execution",
    ),
    **dict.fromkeys(
        (
            "--output-dir", "--print-detailed-results", "--json", "--junit", "--html", "--markdown", "--format", "--to",
            "--out", "--limit",
        ),
        "Output",
    ),
    **dict.fromkeys(("--store", "--baseline", "--fail-on-regression", "--app-name", "--data-dir"), "Store"),
}  # fmt: skip


def panel_of(param: Any) -> str | None:
    """The help panel of an option: its own ``rich_help_panel``, else the one its first name is filed under
    (``None`` for arguments and ``--help``, which typer shows in panels of their own)."""
    own = getattr(param, "rich_help_panel", None)
    if own or not getattr(param, "opts", None) or not param.opts[0].startswith("--"):
        return own
    return _PANEL_OF.get(param.opts[0])


def _params_in_panels(command: Any) -> list[Any]:
    """Every parameter of ``command`` with its panel set, in :data:`PANELS` order (typer shows panels in the order
    it first meets them); the command keeps its own list, whose order click parses by."""
    for param in command.params:
        panel = panel_of(param)
        if panel is not None:
            param.rich_help_panel = panel
    order = {name: index for index, name in enumerate(PANELS)}
    return sorted(command.params, key=lambda p: order.get(getattr(p, "rich_help_panel", None) or "", len(PANELS)))


_NAME_STYLE = "bold cyan"
_TYPE_STYLE = "bold yellow"


def _names(param: Any, ctx: Any) -> Text:
    """The option's names (``--a, --b``; a switch as ``--x/--no-x``) and its type, breakable between names."""
    from rich.text import Text
    from typer.core import TyperArgument

    if isinstance(param, TyperArgument):
        label = param.display_name_raw + ("..." if param.metavar is None and param.nargs != 1 else "")
        names = [label]
    else:
        names = [", ".join(param.opts)]
        if param.secondary_opts:
            names[0] += " / " + ", ".join(param.secondary_opts)
    text = Text(names[0], style=_NAME_STYLE, overflow="fold")
    kind = None if getattr(param, "is_flag", False) else param.display_type_rich(ctx=ctx)
    if kind:
        text.append(" " + str(kind), style=_TYPE_STYLE)
    return text


def _compact_options_panel(
    *, name: str, params: list[Any], ctx: Any, markup_mode: Any, console: Console, **_: Any
) -> None:
    """Drop-in for typer's options panel: two columns, names wrapped rather than clipped."""
    from rich import box
    from rich.panel import Panel
    from rich.table import Table
    from rich.text import Text
    from typer import rich_utils

    if not params:
        return
    rows = [(_names(param, ctx), param) for param in params]
    longest = max(row[0].cell_len for row in rows)
    names_width = max(16, min(longest, int(console.width * 0.4)))
    table = Table.grid(expand=True, padding=(0, 1))
    table.add_column(width=1, no_wrap=True)
    table.add_column(width=names_width, overflow="fold")
    table.add_column(ratio=1, overflow="fold")
    for names, param in rows:
        required = Text("*", style="red") if getattr(param, "required", False) else Text("")
        table.add_row(required, names, rich_utils._get_parameter_help(param=param, ctx=ctx, markup_mode=markup_mode))
    console.print(Panel(table, box=box.ROUNDED, border_style="dim", title=name, title_align="left"))


def install_compact_help() -> None:
    """Make every command's ``--help`` use the two-column options layout (idempotent; typer renders help through
    ``typer.rich_utils``, which is imported only when help is shown)."""
    from typer import rich_utils

    if rich_utils._print_options_panel is not _compact_options_panel:
        rich_utils._print_options_panel = _compact_options_panel


class CompactHelpCommand(TyperCommand):
    """A command whose ``--help`` uses the two-column options layout."""

    def format_help(self, ctx: Any, formatter: Any) -> None:
        """Render the help with the compact options panels, options grouped in :data:`PANELS`."""
        install_compact_help()
        declared = self.params
        self.params = _params_in_panels(self)
        try:
            super().format_help(ctx, formatter)
        finally:
            self.params = declared


class CompactHelpGroup(TyperGroup):
    """A command group whose ``--help`` uses the two-column options layout."""

    def format_help(self, ctx: Any, formatter: Any) -> None:
        """Render the help with the compact options panels."""
        install_compact_help()
        super().format_help(ctx, formatter)
