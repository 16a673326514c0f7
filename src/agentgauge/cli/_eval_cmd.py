"""``agentgauge eval``: run an agent over eval sets, score, save results, report, and set the exit code.

This module declares the command (its options, in the order ``--help`` lists them) and maps them onto one
:class:`~agentgauge.launch.EvalRequest`; ``_eval_run`` (imported when the command runs) runs it and reports.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Annotated

import typer

from ._app import app
from ._options import (
    DEFAULT_OUTPUT_DIR,
    AgentConfigOption,
    AgentFollowRedirectsOption,
    AgentHeaderOption,
    AgentMaxResponseMbOption,
    AgentTimeoutOption,
    AppNameOption,
    BootstrapResamplesOption,
    BySessionOption,
    CaseStatusOption,
    DetailedOption,
    HtmlOption,
    JsonOption,
    JudgeBaseUrlOption,
    JudgeModelOption,
    JudgeTimeoutOption,
    JunitOption,
    JunitRunsOption,
    LabelOption,
    MarkdownOption,
    NoCacheOption,
    OutputDirOption,
    PluginOption,
    ReportOptions,
    SeedOption,
    SimulatorBaseUrlOption,
    SimulatorModelOption,
    StoreOption,
    StrictOption,
    UiUrlOption,
    UserSimulatorOption,
)

__all__ = ["eval_command"]

# --- what runs, and how many times -----------------------------------------------------------------------------

_Sets = Annotated[
    list[str] | None,
    typer.Argument(
        metavar="[AGENT] EVAL_SET[:case1,case2]...",
        help="AGENT is path/to/agent.py, an ADK agent directory, package.module:attribute or a remote agent URL "
        "(a2a+http://, adk+http://HOST/apps/APP, agui+http://, trpcagent+http://HOST/APP, http:// with "
        "--agent-config); optional when every selected case is in trace mode.",
        show_default=False,
    ),
]
_Config = Annotated[
    Path | None,
    typer.Option(
        "--config",
        "--metrics",
        "--config_file_path",
        readable=False,
        help="Metrics file (.metrics.json array or ADK test_config.json). Default: <evalSetId>.metrics.json "
        "beside the eval set, else test_config.json beside it, else ADK's default criteria.",
    ),
]
_NumRuns = Annotated[int, typer.Option("--num-runs", help="Run every case this many times (1 to 1000).")]
_Parallelism = Annotated[int, typer.Option("--parallelism", help="Cases (and runs) in flight at once.")]
_Timeout = Annotated[float | None, typer.Option("--timeout", help="Per-case inference timeout in seconds.")]
_Prices = Annotated[
    Path | None,
    typer.Option("--prices", help="JSON price table (USD per 1M tokens) for the cost of recorded token usage."),
]

# --- recorded traces instead of an agent -----------------------------------------------------------------------

_Traces = Annotated[
    Path | None, typer.Option("--traces", help="Score recorded traces (file or directory); see docs/traces.md.")
]
_EvalSet = Annotated[str | None, typer.Option("--eval-set", help="With --traces: the eval set to compare with.")]
_RequireAllCases = Annotated[
    bool,
    typer.Option(
        "--require-all-cases", help="With --traces and --eval-set: a case of the set without a trace is an error."
    ),
]

# --- where cases run -------------------------------------------------------------------------------------------

_Executor = Annotated[
    str, typer.Option("--executor", help="Where cases run: local (this process) or ray (a Ray cluster).")
]
_RayAddress = Annotated[
    str | None, typer.Option("--ray-address", help="With --executor ray: auto, ray://HOST:PORT or HOST:PORT.")
]
_RateLimit = Annotated[
    list[str] | None,
    typer.Option(
        "--rate-limit", help="With --executor ray: ENDPOINT=RPM or ENDPOINT=RPM/CONCURRENT, e.g. judge=600/8."
    ),
]

# --- earlier runs: resume, agent cache, baseline ---------------------------------------------------------------

_Resume = Annotated[
    str | None,
    typer.Option(
        "--resume",
        metavar="RESULT_ID_OR_FILE",
        help="Continue an interrupted run (Ctrl-C, crash, kill): its result file, .progress.jsonl log or id. "
        "Give the same agent, eval set, metrics and --num-runs; scored case runs are kept.",
    ),
]
_CacheAgent = Annotated[
    bool,
    typer.Option(
        "--cache-agent",
        help="Reuse the agent's earlier answers (same agent source, request and run) and store new ones, "
        "e.g. to score a run again with other metrics. Default directory: <output-dir>/.agent_cache.",
    ),
]
_CacheAgentDir = Annotated[
    Path | None, typer.Option("--cache-agent-dir", readable=False, help="Directory of --cache-agent (implies it).")
]
_Baseline = Annotated[
    str | None,
    typer.Option(
        "--baseline",
        metavar="RESULT_ID_OR_FILE",
        help="Compare the new result with this one (a result file, an id under --output-dir or in --store, "
        "label:KEY=VALUE or latest: the newest result of the eval set run): fixed / broken cases in the summary "
        "and in --html / --markdown; see docs/compare.md.",
    ),
]
_FailOnRegression = Annotated[
    bool,
    typer.Option(
        "--fail-on-regression",
        help="With --baseline: the exit code is 1 when a case that passed in the baseline does not pass now, "
        "else 0 (cases failing in both runs do not fail the command): --fail-on broken.",
    ),
]
_FailOn = Annotated[
    str | None,
    typer.Option(
        "--fail-on",
        metavar="RULE",
        help="With --baseline: the comparison's gate sets the exit code: broken, significant, any-change or never "
        "(see Gates in docs/compare.md).",
        rich_help_panel="Store",
    ),
]
_Alpha = Annotated[
    float,
    typer.Option(
        "--alpha", help="With --baseline: the significance level of the comparison's tests.", rich_help_panel="Store"
    ),
]

# --- simulated users and expected agents -----------------------------------------------------------------------

_ExpectedAgent = Annotated[
    str | None,
    typer.Option("--expected-agent", help="Agent producing the expected invocations (expectedRunnerEnabled)."),
]
_MaxTurns = Annotated[int | None, typer.Option("--max-turns", help="User-turn limit of every scenario (0: unlimited).")]

# --- which metrics score, and how ------------------------------------------------------------------------------

_OnlyMetrics = Annotated[
    str | None,
    typer.Option(
        "--only-metrics",
        metavar="NAME,...",
        help="Score with these metrics of the metrics file only (comma-separated names).",
    ),
]
_SkipMetrics = Annotated[
    str | None,
    typer.Option("--skip-metrics", metavar="NAME,...", help="Do not score with these metrics (comma-separated names)."),
]
_NoJudges = Annotated[
    bool,
    typer.Option(
        "--no-judges",
        help="Skip every LLM-judge metric: the other metrics run without a judge model, key or endpoint.",
    ),
]
_JudgeParallelism = Annotated[
    int | None,
    typer.Option(
        "--judge-parallelism",
        metavar="N",
        help="Judge calls in flight at once, per judge model (default: --parallelism).",
        show_default=False,
    ),
]
_Dialect = Annotated[
    str | None,
    typer.Option(
        "--dialect",
        metavar="adk|adk-ts",
        help="Score ADK metrics (test_config.json criteria, tool_trajectory_avg_score, response_match_score) with "
        "Google ADK's rules (adk) or ADK-TS's (adk-ts); default: as the metrics file says (adk). See docs/metrics.md.",
        rich_help_panel="Metrics",
        show_default=False,
    ),
]
_Replay = Annotated[
    bool,
    typer.Option(
        "--replay",
        help="Run replay cases (made by 'replay-set' or 'traces to-evalset --mocks'): every tool call is answered "
        "from the recording, and replay_fidelity (threshold 1 unless the metrics file sets it) reports argument "
        "drift, calls the recording lacks and recorded results never consumed. See docs/replay.md.",
        rich_help_panel="Metrics",
    ),
]
_Reducer = Annotated[
    str | None,
    typer.Option(
        "--reducer",
        metavar="NAME",
        help="How a case's scores over --num-runs runs become one, for every metric without a 'reducer' of its own "
        "in the metrics file: mean (default), median, mode, max, min or at_least_K (K runs reached the threshold, "
        "e.g. at_least_2). See docs/running.md.",
        rich_help_panel="Metrics",
        show_default=False,
    ),
]


@app.command(
    "eval",
    help="Evaluate an agent on one or more eval sets and save the results.\n\nExit code 0: every selected case "
    "passed; 1: a case failed, errored or was not evaluated; 2: bad input.",
    epilog="Examples:  agentgauge eval agent.py calculator.evalset.json\n\n"
    "           agentgauge eval my_agent/ smoke.evalset.json:greeting,refund --num-runs 3\n\n"
    "           agentgauge eval a2a+http://127.0.0.1:8001 calculator.evalset.json --json",
)
def eval_command(
    targets: _Sets = None,
    config: _Config = None,
    num_runs: _NumRuns = 1,
    parallelism: _Parallelism = 4,
    timeout: _Timeout = None,
    output_dir: OutputDirOption = DEFAULT_OUTPUT_DIR,
    app_name: AppNameOption = None,
    print_detailed_results: DetailedOption = False,
    json_out: JsonOption = False,
    junit: JunitOption = None,
    junit_runs: JunitRunsOption = False,
    html: HtmlOption = None,
    ui_url: UiUrlOption = None,
    markdown: MarkdownOption = None,
    no_cache: NoCacheOption = False,
    traces: _Traces = None,
    eval_set: _EvalSet = None,
    by_session: BySessionOption = False,
    require_all_cases: _RequireAllCases = False,
    judge_timeout: JudgeTimeoutOption = None,
    judge_model: JudgeModelOption = None,
    judge_base_url: JudgeBaseUrlOption = None,
    plugin: PluginOption = None,
    executor: _Executor = "local",
    ray_address: _RayAddress = None,
    rate_limit: _RateLimit = None,
    prices: _Prices = None,
    resume: _Resume = None,
    cache_agent: _CacheAgent = False,
    cache_agent_dir: _CacheAgentDir = None,
    store: StoreOption = None,
    baseline: _Baseline = None,
    fail_on_regression: _FailOnRegression = False,
    fail_on: _FailOn = None,
    alpha: _Alpha = 0.05,
    user_simulator: UserSimulatorOption = None,
    simulator_model: SimulatorModelOption = None,
    simulator_base_url: SimulatorBaseUrlOption = None,
    expected_agent: _ExpectedAgent = None,
    max_turns: _MaxTurns = None,
    only_metrics: _OnlyMetrics = None,
    skip_metrics: _SkipMetrics = None,
    no_judges: _NoJudges = False,
    judge_parallelism: _JudgeParallelism = None,
    dialect: _Dialect = None,
    reducer: _Reducer = None,
    case_status: CaseStatusOption = None,
    replay: _Replay = False,
    agent_header: AgentHeaderOption = None,
    agent_config: AgentConfigOption = None,
    agent_timeout: AgentTimeoutOption = None,
    agent_max_response_mb: AgentMaxResponseMbOption = None,
    agent_follow_redirects: AgentFollowRedirectsOption = False,
    bootstrap_resamples: BootstrapResamplesOption = 10_000,
    seed: SeedOption = 0,
    label: LabelOption = None,
    strict: StrictOption = False,
) -> None:
    """``agentgauge eval``: the options mapped onto one :class:`~agentgauge.launch.EvalRequest` (help: above)."""
    given = locals()  # the options as parsed, by parameter name
    from ..launch import (
        EngineOptions,
        EvalRequest,
        GateOptions,
        JudgeOptions,
        MetricOptions,
        RemoteOptions,
        SimulationOptions,
    )
    from ._eval_run import run_eval

    headers = tuple(agent_header or ())
    request = EvalRequest(
        # An option named as a field of the request is that field (num_runs, parallelism, timeout, traces, ...).
        **{field.name: given[field.name] for field in dataclasses.fields(EvalRequest) if field.name in given},
        sets=tuple(targets or ()),  # with the agent first, unless the traces are scored: see run_eval
        metrics=MetricOptions(
            only_metrics, skip_metrics, no_judges, judge_parallelism, dialect, reducer, case_status, replay
        ),
        judge=JudgeOptions(judge_model, judge_base_url, judge_timeout, no_cache, tuple(plugin or ())),
        simulation=SimulationOptions(user_simulator, simulator_model, simulator_base_url, expected_agent, max_turns),
        remote=RemoteOptions(headers, agent_config, agent_timeout, agent_max_response_mb, agent_follow_redirects),
        engine=EngineOptions(executor, ray_address, tuple(rate_limit or ())),
        gate=GateOptions(baseline, fail_on, fail_on_regression, alpha),
        agent_cache=(cache_agent_dir or output_dir / ".agent_cache") if cache_agent or cache_agent_dir else None,
        labels=tuple(label or ()),
    )
    report = ReportOptions(
        junit, html, markdown, json_out=json_out, detailed=print_detailed_results, junit_runs=junit_runs, ui_url=ui_url
    )
    run_eval(request, report, store, (bootstrap_resamples, seed))
