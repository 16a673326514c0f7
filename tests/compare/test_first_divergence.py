"""compare shows, for every case whose runs took other steps, the first divergence: in the model (``--json``), the
terminal, Markdown and HTML."""

from __future__ import annotations

from pathlib import Path

from rich.console import Console

from agentgauge.compare import compare_results, print_comparison, render_html, render_markdown
from agentgauge.divergence import DivergenceKind
from agentgauge.formats import load_result

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def test_a_broken_replay_shows_where_it_forked() -> None:
    base = load_result(EXAMPLES / "replay" / "replayed.evalset_result.json")
    new = load_result(EXAMPLES / "replay" / "swapped.evalset_result.json")
    comparison = compare_results(base, new)
    [case] = comparison.cases
    found = case.first_divergence
    assert found is not None
    assert (found.kind, found.turn, found.step) == (DivergenceKind.DIFFERENT_ARGUMENTS, 2, 1)
    assert found.base is not None and found.base.arguments == {"a": 42, "b": 8, "operation": "add"}
    assert comparison.model_dump(mode="json")["cases"][0]["firstDivergence"]["kind"] == "different_arguments"
    line = "product_then_sum: first divergence at turn 2, step 1 (step 3): different arguments"
    assert line in render_markdown(comparison)
    html = render_html(comparison)
    assert '<ul class="divergences">' in html and "different arguments" in html
    console = Console(width=200, record=True)
    print_comparison(comparison, console)
    assert line in console.export_text()


def test_cases_that_took_the_same_steps_have_no_divergence() -> None:
    base = load_result(EXAMPLES / "compare" / "base.evalset_result.json")
    comparison = compare_results(base, base)
    assert all(c.first_divergence is None for c in comparison.cases)
    assert "First divergences" not in render_markdown(comparison)
    new = compare_results(base, load_result(EXAMPLES / "compare" / "new.evalset_result.json"))
    kinds = {c.eval_id: c.first_divergence.kind for c in new.cases if c.first_divergence is not None}
    # The multiplying-by-adding bug: the same calls, other results, in exactly the two broken cases.
    assert kinds == {
        "calc_natural_multiply": DivergenceKind.DIFFERENT_RESULT,
        "calc_multi_turn": DivergenceKind.DIFFERENT_RESULT,
    }
