"""``agentgauge gate``: judge a candidate result against a baseline by the rules of a rules file (minimum gain,
no new failures, critical cases, per-case budgets, overfit); exit 0 when accepted, 1 when rejected."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from ._app import app
from ._common import EXIT_FAILED, EXIT_OK, input_errors_exit_2
from ._options import (
    DEFAULT_OUTPUT_DIR,
    AppNameOption,
    BootstrapResamplesOption,
    JsonOption,
    OutputDirOption,
    SeedOption,
    StoreOption,
)

if TYPE_CHECKING:  # pragma: no cover
    from ..compare import GateReport

__all__ = ["gate"]

_Rules = Annotated[
    Path | None,
    typer.Option(
        "--rules",
        readable=False,
        rich_help_panel="Input",
        help="The gate's rules (YAML or JSON): min_gain, metric, no_new_failures, critical_cases, case_budgets, "
        "overfit, alpha. Default: every rule with its default. See The gate in docs/optimize.md.",
    ),
]
_Train = Annotated[
    tuple[str, str] | None,
    typer.Option(
        "--train",
        metavar="TRAIN_BASE TRAIN_NEW",
        rich_help_panel="Input",
        help="The two results on the train split (same forms as BASE and NEW), for the overfit rule: train "
        "improved while validation did not.",
    ),
]
_Alpha = Annotated[
    float | None,
    typer.Option(
        "--alpha",
        rich_help_panel="Metrics",
        help="The significance level of the tests (default: the rules file's, else 0.05).",
    ),
]


@app.command()
def gate(
    base: Annotated[str, typer.Argument(metavar="BASE", help="The baseline's result (as compare's BASE).")],
    new: Annotated[str, typer.Argument(metavar="NEW", help="The candidate's result, judged against BASE.")],
    rules: _Rules = None,
    train: _Train = None,
    alpha: _Alpha = None,
    output_dir: OutputDirOption = DEFAULT_OUTPUT_DIR,
    store: StoreOption = None,
    app_name: AppNameOption = None,
    json_out: JsonOption = False,
    bootstrap_resamples: BootstrapResamplesOption = 10_000,
    seed: SeedOption = 0,
) -> None:
    """Accept or reject a candidate: NEW against BASE, rule by rule.

    The gain in pass rate (or in a metric's mean) must be beyond chance: its 95% paired-bootstrap interval lies above
    0, with its low end at least min_gain. No case that passed in BASE may fail in NEW (with several runs, only a
    significant drop counts: Fisher's exact test at --alpha); the critical cases must pass; every case of NEW must
    keep within the cost, token and latency budgets; and with --train, train must not improve while validation does
    not (overfit). Each rule's verdict is printed.

    Exit code 0: accepted; 1: rejected; 2: bad input.

    \b
    Examples:
      agentgauge gate base.evalset_result.json new.evalset_result.json --rules gate.yaml
      agentgauge gate label:role=baseline,split=validation label:role=candidate,split=validation
    """
    from .._util.redact import mask_standard_streams

    mask_standard_streams()
    with input_errors_exit_2():
        report = _judge(base, new, rules, train, alpha, output_dir, store, app_name, bootstrap_resamples, seed)
    for line in report.lines():
        typer.echo(line, err=json_out)
    if json_out:
        typer.echo(report.model_dump_json(indent=2))
    raise typer.Exit(EXIT_OK if report.accepted else EXIT_FAILED)


def _judge(
    base: str,
    new: str,
    rules_file: Path | None,
    train: tuple[str, str] | None,
    alpha: float | None,
    output_dir: Path,
    store: str | None,
    app_name: str | None,
    resamples: int,
    seed: int,
) -> GateReport:
    from ..compare import GateRules, check_alpha, compare_results, gate_report, load_gate_rules, rules_alpha
    from ..storage import resolve_pair
    from ._selectors import result_catalog

    rules = load_gate_rules(rules_file) if rules_file is not None else GateRules()
    level = check_alpha(rules_alpha(rules, alpha))
    specs = [base, new, *(train or ())]
    catalog = result_catalog(specs, output_dir, store, app_name)
    comparisons = []
    for before_spec, after_spec in [(base, new), *([train] if train is not None else [])]:
        before, after = resolve_pair(before_spec, after_spec, catalog)
        after_result = after.load()
        comparisons.append(
            (
                compare_results(
                    before.load(),
                    after_result,
                    base_source=before.source,
                    new_source=after.source,
                    resamples=resamples,
                    seed=seed,
                    alpha=level,
                    fail_on=None,
                ),
                after_result,
            )
        )
    (validation, candidate), *rest = comparisons
    return gate_report(validation, rules, candidate, train=rest[0][0] if rest else None)
