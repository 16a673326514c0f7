"""``agentgauge optimize``: improve an agent's texts, then prove it with a statistical gate (a drop-in for ``adk
optimize``: the same command line and config files, with ``agentgauge`` in place of ``adk``).

This module declares the command and its options; what it does is in ``_optimize_flow``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from ._app import app
from ._options import (
    DEFAULT_OUTPUT_DIR,
    AppNameOption,
    BootstrapResamplesOption,
    CaseStatusOption,
    JsonOption,
    JudgeBaseUrlOption,
    JudgeModelOption,
    JudgeTimeoutOption,
    LabelOption,
    NoCacheOption,
    OutputDirOption,
    PluginOption,
)

__all__ = ["optimize_command"]

_ADK = "ADK drop-in"
_SEARCH = "Search"
_GATE = "Gate"

_Agent = Annotated[
    str,
    typer.Argument(
        metavar="AGENT",
        help="The agent: path/to/agent.py, an ADK agent directory (with ADK's sampler config: the folder whose "
        "name is app_name and which holds the eval sets) or package.module:attribute.",
        show_default=False,
    ),
]
_Sampler = Annotated[
    Path | None,
    typer.Option(
        "--sampler_config_file_path",
        "--sampler-config",
        readable=False,
        rich_help_panel=_ADK,
        help="ADK's LocalEvalSamplerConfig (eval_config, app_name, train/validation eval sets and case ids): "
        "replaces --train, --validation and --metrics.",
    ),
]
_OptimizerConfig = Annotated[
    Path | None,
    typer.Option(
        "--optimizer_config_file_path",
        "--optimizer-config",
        readable=False,
        rich_help_panel=_ADK,
        help="ADK's GEPA (or simple) optimizer config: optimizer_model (the reflection model), model_configuration, "
        "max_metric_calls, reflection_minibatch_size, run_dir (the --out folder), num_iterations, batch_size.",
    ),
]
_Detailed = Annotated[
    bool,
    typer.Option(
        "--print_detailed_results",
        "--print-detailed-results",
        rich_help_panel=_ADK,
        help="Also print the optimizer's own record of its search (GEPA's result) as JSON.",
    ),
]
_LogLevel = Annotated[
    str,
    typer.Option("--log_level", "--log-level", rich_help_panel=_ADK, help="DEBUG, INFO, WARNING, ERROR or CRITICAL."),
]
_Train = Annotated[
    str | None,
    typer.Option(
        "--train",
        metavar="SET[:cases]",
        rich_help_panel="Input",
        help="The eval set (and cases) the search learns from.",
    ),
]
_Validation = Annotated[
    str | None,
    typer.Option(
        "--validation",
        metavar="SET[:cases]",
        rich_help_panel="Input",
        help="The eval set (and cases) the gate judges the candidate on (default: the train cases).",
    ),
]
_Metrics = Annotated[
    Path | None,
    typer.Option(
        "--metrics",
        readable=False,
        rich_help_panel="Metrics",
        help="Metrics file of both splits (default: each eval set's, as eval finds it).",
    ),
]
_Optimizer = Annotated[
    str,
    typer.Option(
        "--optimizer",
        rich_help_panel=_SEARCH,
        help="gepa (GEPA, as adk optimize), simple (a few rewrites, as ADK's SimplePromptOptimizer) or a plug-in: "
        "module:attribute or file.py:attribute.",
    ),
]
_Budget = Annotated[
    list[str] | None,
    typer.Option(
        "--budget",
        metavar="calls=N,cost=X,time=T",
        rich_help_panel=_SEARCH,
        help="Limits of the search: metric calls (case runs scored; default 100), cost (agent, judge and "
        "reflection model calls, at --prices), wall time (90, 15m, 2h).",
    ),
]
_Surface = Annotated[
    list[str] | None,
    typer.Option("--surface", metavar="ID", rich_help_panel=_SEARCH, help="Only this text may change (repeatable)."),
]
_ReflectionModel = Annotated[
    str | None,
    typer.Option(
        "--reflection-model",
        rich_help_panel=_SEARCH,
        help="The model that proposes new texts (default: optimizer_model, else the judge model).",
    ),
]
_ReflectionUrl = Annotated[
    str | None,
    typer.Option("--reflection-base-url", rich_help_panel=_SEARCH, help="OpenAI-compatible base URL of it."),
]
_Seed = Annotated[int, typer.Option("--seed", rich_help_panel=_SEARCH, help="Seed of the search and of the intervals.")]
_Rules = Annotated[
    Path | None,
    typer.Option(
        "--rules", readable=False, rich_help_panel=_GATE, help="The gate's rules file (see agentgauge gate --help)."
    ),
]
_Alpha = Annotated[
    float | None,
    typer.Option("--alpha", rich_help_panel=_GATE, help="Significance level (default: the rules', else 0.05)."),
]
_NumRuns = Annotated[
    int, typer.Option("--num-runs", rich_help_panel=_GATE, help="Runs per case of the gate's evidence.")
]
_Out = Annotated[
    Path | None,
    typer.Option(
        "--out",
        readable=False,
        help="The optimisation's folder: patch, patched agent, audit report, state (default: "
        ".agentgauge/optimize/<app>-<settings hash>; the same command run again continues there).",
    ),
]
_Parallelism = Annotated[int, typer.Option("--parallelism", help="Cases (and runs) in flight at once.")]
_Timeout = Annotated[float | None, typer.Option("--timeout", help="Per-case inference timeout in seconds.")]
_Prices = Annotated[Path | None, typer.Option("--prices", help="JSON price table (USD per 1M tokens).")]


@app.command("optimize")
def optimize_command(
    agent: _Agent,
    sampler_config: _Sampler = None,
    optimizer_config: _OptimizerConfig = None,
    print_detailed_results: _Detailed = False,
    log_level: _LogLevel = "INFO",
    train: _Train = None,
    validation: _Validation = None,
    metrics: _Metrics = None,
    optimizer: _Optimizer = "gepa",
    budget: _Budget = None,
    surface: _Surface = None,
    reflection_model: _ReflectionModel = None,
    reflection_base_url: _ReflectionUrl = None,
    seed: _Seed = 0,
    rules: _Rules = None,
    alpha: _Alpha = None,
    num_runs: _NumRuns = 1,
    case_status: CaseStatusOption = None,
    out: _Out = None,
    parallelism: _Parallelism = 4,
    timeout: _Timeout = None,
    prices: _Prices = None,
    output_dir: OutputDirOption = DEFAULT_OUTPUT_DIR,
    app_name: AppNameOption = None,
    judge_model: JudgeModelOption = None,
    judge_base_url: JudgeBaseUrlOption = None,
    judge_timeout: JudgeTimeoutOption = None,
    no_cache: NoCacheOption = False,
    plugin: PluginOption = None,
    label: LabelOption = None,
    json_out: JsonOption = False,
    bootstrap_resamples: BootstrapResamplesOption = 10_000,
) -> None:
    """Improve the agent's texts with an optimizer, then accept the result only if a statistical gate does.

    The baseline runs on train and validation; the optimizer searches for better texts (instructions, skills,
    system prompt, tool descriptions); the candidate it proposes runs again on both splits and is judged by the
    gate's rules. --out gets the candidate as patch.json, the patched agent beside it, and the audit report (JSON,
    Markdown, HTML).

    Exit code 0: the candidate was accepted; 1: rejected, or no candidate better than the baseline; 2: bad input.

    \b
    Examples:
      agentgauge optimize my_agent --sampler_config_file_path sampler.json --optimizer_config_file_path gepa.json
      agentgauge optimize agent.py --train train.evalset.json --validation val.evalset.json --budget calls=200
    """
    from ._optimize_flow import OptimizeArgs, run_optimize

    run_optimize(
        OptimizeArgs(
            agent=agent,
            sampler_config=sampler_config,
            optimizer_config=optimizer_config,
            detailed=print_detailed_results,
            log_level=log_level,
            train=train,
            validation=validation,
            metrics=metrics,
            optimizer=optimizer,
            budget=tuple(budget or ()),
            surfaces=tuple(surface or ()),
            reflection_model=reflection_model,
            reflection_base_url=reflection_base_url,
            seed=seed,
            rules=rules,
            alpha=alpha,
            num_runs=num_runs,
            case_status=case_status,
            out=out,
            parallelism=parallelism,
            timeout=timeout,
            prices=prices,
            output_dir=output_dir,
            app_name=app_name,
            judge_model=judge_model,
            judge_base_url=judge_base_url,
            judge_timeout=judge_timeout,
            no_cache=no_cache,
            plugins=tuple(plugin or ()),
            labels=tuple(label or ()),
            json_out=json_out,
            bootstrap_resamples=bootstrap_resamples,
        )
    )
