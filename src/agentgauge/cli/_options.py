"""Options shared by several commands, declared once (typer ``Annotated`` aliases), and what a command prints and
writes besides its summary (:class:`ReportOptions`).

Loaded by ``agentgauge --help``: imports typer and the standard library only.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import Annotated

import typer

__all__ = [
    "DEFAULT_OUTPUT_DIR",
    "AgentConfigOption",
    "AgentFollowRedirectsOption",
    "AgentHeaderOption",
    "AgentMaxResponseMbOption",
    "AgentTimeoutOption",
    "AppNameOption",
    "BootstrapResamplesOption",
    "BySessionOption",
    "CaseStatusOption",
    "DetailedOption",
    "HtmlOption",
    "JsonOption",
    "JudgeBaseUrlOption",
    "JudgeModelOption",
    "JudgeTimeoutOption",
    "JunitOption",
    "JunitRunsOption",
    "LabelFilterOption",
    "LabelOption",
    "MarkdownOption",
    "NoCacheOption",
    "OutputDirOption",
    "PluginOption",
    "ReportOptions",
    "SeedOption",
    "SimulatorBaseUrlOption",
    "SimulatorModelOption",
    "StoreOption",
    "TextOrJsonOption",
    "ToFormatOption",
    "UiUrlOption",
    "UserSimulatorOption",
]

DEFAULT_OUTPUT_DIR = Path(".agentgauge/results")
"""Where ``eval`` saves results and ``compare`` looks result ids up, unless ``--output-dir`` says otherwise."""

# --- where results are -----------------------------------------------------------------------------------------

OutputDirOption = Annotated[
    Path, typer.Option("--output-dir", readable=False, help="Where results are saved and result ids looked up.")
]
StoreOption = Annotated[
    str | None,
    typer.Option(
        "--store",
        envvar="AGENTGAUGE_STORE",
        show_envvar=True,
        help="The SQL store of results (sqlite:///file.db, postgresql+psycopg://user@host/db, or a .db path): eval "
        "saves there instead of --output-dir, the other commands read result ids from it; see docs/store.md.",
    ),
]
AppNameOption = Annotated[
    str | None,
    typer.Option(
        "--app-name",
        help="The app of the results: eval saves under it (default: the cases' sessionInput.appName); with --store, "
        "show and compare look result ids up in it (default: found by id).",
    ),
]

# --- what is printed and written -------------------------------------------------------------------------------

DetailedOption = Annotated[
    bool,
    typer.Option(
        "--print-detailed-results",
        "--print_detailed_results",
        help="Per case and invocation: metric, score, threshold, status and Expected / Actual for mismatches.",
    ),
]
JsonOption = Annotated[
    bool,
    typer.Option(
        "--json", help="Print the result (compare: the comparison) as JSON on stdout; human output goes to stderr."
    ),
]
JunitOption = Annotated[
    Path | None,
    typer.Option("--junit", readable=False, help="Also write a JUnit XML report (one testcase per eval case)."),
]
JunitRunsOption = Annotated[
    bool,
    typer.Option(
        "--junit-runs",
        help="With --junit: one testcase per case run (case_id [run 2]) instead of per case.",
        rich_help_panel="Output",
    ),
]
UiUrlOption = Annotated[
    str | None,
    typer.Option(
        "--ui-url",
        envvar="AGENTGAUGE_UI_URL",
        help="The address of 'agentgauge serve' (http://127.0.0.1:8000): the cases that did not pass link to their "
        "replay there, in the terminal, JUnit, Markdown, HTML and GitHub summary. Default: the serve running on the "
        "results folder this eval saves to, if any (its .agentgauge/serve.json); '' for no links.",
        rich_help_panel="Output",
    ),
]
HtmlOption = Annotated[
    Path | None, typer.Option("--html", readable=False, help="Also write a self-contained HTML report.")
]
MarkdownOption = Annotated[
    Path | None, typer.Option("--markdown", readable=False, help="Also write a Markdown summary.")
]
ToFormatOption = Annotated[str, typer.Option("--to", help="Output format: 'native' (camelCase) or 'adk'.")]
StrictOption = Annotated[
    bool,
    typer.Option(
        "--strict",
        help="Every input warning (e.g. an unknown key the file's own tool ignores) is an error: exit 2, for CI.",
        rich_help_panel="Input",
    ),
]
TextOrJsonOption = Annotated[
    str,
    typer.Option("--format", help="Output: 'text' (terminal, 80 columns) or 'json'.", rich_help_panel="Output"),
]
BootstrapResamplesOption = Annotated[
    int,
    typer.Option(
        "--bootstrap-resamples",
        min=0,
        help="Resamples of the percentile bootstrap behind the 95% intervals of pass rates, metric means and "
        "compare's deltas (cases resampled with their runs); 0 shows no intervals. See docs/reports.md.",
        rich_help_panel="Output",
    ),
]
SeedOption = Annotated[
    int,
    typer.Option(
        "--seed",
        help="Seed of the bootstrap resampling: the same result and seed always give the same intervals.",
        rich_help_panel="Output",
    ),
]

LabelOption = Annotated[
    list[str] | None,
    typer.Option(
        "--label",
        metavar="KEY=VALUE",
        help="Label the run (repeatable); saved with its git commit, agent source hash and models. "
        "See docs/running.md.",
        rich_help_panel="Output",
    ),
]

LabelFilterOption = Annotated[
    list[str] | None,
    typer.Option(
        "--label",
        metavar="KEY=VALUE",
        help="Only results whose run has this label (repeatable: every label must match).",
        rich_help_panel="Store",
    ),
]

# --- judges ----------------------------------------------------------------------------------------------------

JudgeModelOption = Annotated[
    str | None,
    typer.Option(
        "--judge-model",
        help="Judge model (OpenAI-compatible) of trpc judge metrics without llmJudge.judgeModel; generate: the "
        "model that writes the scenarios.",
    ),
]
JudgeBaseUrlOption = Annotated[
    str | None, typer.Option("--judge-base-url", help="OpenAI-compatible base URL of --judge-model.")
]
JudgeTimeoutOption = Annotated[
    float | None,
    typer.Option(
        "--judge-timeout",
        help="Seconds one judge call may take, retries included (default 45; a metric's judge timeout wins).",
    ),
]
NoCacheOption = Annotated[bool, typer.Option("--no-cache", help="Do not read or write the judge answer cache.")]
CaseStatusOption = Annotated[
    str | None,
    typer.Option(
        "--case-status",
        metavar="mean|all|majority|any",
        help="How a case's status follows from its --num-runs runs: mean (default: each metric's scores over the "
        "runs against its threshold, as ADK and trpc-agent-go decide), all, majority or any run passed. Every "
        "report names the rule. See docs/running.md.",
        rich_help_panel="Metrics",
        show_default=False,
    ),
]
PluginOption = Annotated[
    list[str] | None, typer.Option("--plugin", help="Import this module's register(registry) first (repeatable).")
]

# --- simulated users ---------------------------------------------------------------------------------------------

UserSimulatorOption = Annotated[
    str | None,
    typer.Option("--user-simulator", help="Simulated user for conversationScenario cases: file.py[:attribute]."),
]
SimulatorModelOption = Annotated[
    str | None,
    typer.Option("--simulator-model", help="Model playing the user and generating llmGenerator tool results."),
]
SimulatorBaseUrlOption = Annotated[
    str | None, typer.Option("--simulator-base-url", help="OpenAI-compatible base URL of --simulator-model.")
]

# --- remote agents ---------------------------------------------------------------------------------------------

AgentHeaderOption = Annotated[
    list[str] | None,
    typer.Option(
        "--agent-header",
        metavar="'NAME: VALUE'",
        rich_help_panel="Input",
        help="A header sent to a remote agent (a2a+http://, adk+http://, agui+http://, trpcagent+http://, http://), "
        "repeatable; "
        "${ENV} in the value is expanded and the value masked in every output.",
    ),
]
AgentConfigOption = Annotated[
    Path | None,
    typer.Option(
        "--agent-config",
        rich_help_panel="Input",
        help="JSON file for a remote agent: headers, timeouts, retries, TLS; for a plain http(s):// service also "
        "the request template and the JSON paths of its answer (see docs/agents.md).",
    ),
]

AgentTimeoutOption = Annotated[
    float | None,
    typer.Option(
        "--agent-timeout",
        metavar="SECONDS",
        rich_help_panel="Input",
        help="Seconds one turn of a remote agent may take in all: connecting, headers, body, stream, retries "
        "(default 300).",
    ),
]
AgentMaxResponseMbOption = Annotated[
    float | None,
    typer.Option(
        "--agent-max-response-mb",
        metavar="MB",
        rich_help_panel="Input",
        help="Largest answer read from a remote agent, a body or one turn's event stream (default 32); beyond it "
        "the turn fails.",
    ),
]
AgentFollowRedirectsOption = Annotated[
    bool,
    typer.Option(
        "--agent-follow-redirects",
        rich_help_panel="Input",
        help="Follow a remote agent's redirects and agent cards to another origin, without the configured headers "
        "(default: refused).",
    ),
]

# --- traces ----------------------------------------------------------------------------------------------------

BySessionOption = Annotated[
    bool,
    typer.Option(
        "--by-session",
        help="Traces sharing a session id (gen_ai.conversation.id) form one conversation (one trace per turn).",
    ),
]


@dataclass(frozen=True)
class ReportOptions:
    """What a command prints and writes besides its summary: report files, ``--json``, the detailed view."""

    junit: Path | None = None
    html: Path | None = None
    markdown: Path | None = None
    json_out: bool = False
    detailed: bool = False
    junit_runs: bool = False
    """``--junit-runs``: one JUnit testcase per case run instead of per eval case."""
    ui_url: str | None = None
    """``--ui-url``: the web UI whose replay of a case the reports link to (``None``: the running server's, when
    there is one; ``""``: no links)."""

    def files(self, *order: str) -> list[tuple[Path, str]]:
        """The report files asked for, as ``(path, format)``, in ``order`` (default: junit, html, markdown)."""
        given = {"junit": self.junit, "html": self.html, "markdown": self.markdown}
        return [(path, fmt) for fmt in order or given for path in (given[fmt],) if path is not None]

    def absolute(self) -> ReportOptions:
        """The same with absolute paths (an agent calling ``os.chdir()`` must not move where reports go)."""
        junit, html, markdown = (p.absolute() if p else None for p in (self.junit, self.html, self.markdown))
        return replace(self, junit=junit, html=html, markdown=markdown)
