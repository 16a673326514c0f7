"""``agentgauge eval --baseline``: the comparison in the terminal summary and the reports, --fail-on-regression."""

from __future__ import annotations

import re
from pathlib import Path

from typer.testing import CliRunner

from agentgauge.cli import app
from agentgauge.cli._eval_baseline import insert_before_body_end

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
GOOD = str(EXAMPLES / "calculator" / "agent.py")
BROKEN = str(EXAMPLES / "compare" / "broken_agent.py")
EVALSET = str(EXAMPLES / "calculator" / "calculator.evalset.json")
BASE = str(EXAMPLES / "compare" / "base.evalset_result.json")  # every case passed
NEW = str(EXAMPLES / "compare" / "new.evalset_result.json")  # two cases broken by the bug
BASE_ID = "calculator_calculator_804df8ef-d9dc-416e-88d0-d32c6601ab91"


def _eval(*args: str) -> tuple[int, str]:
    ran = CliRunner().invoke(app, ["eval", *args])
    return ran.exit_code, ran.output


def test_broken_cases_named_in_summary_and_reports(tmp_path: Path) -> None:
    md, page = tmp_path / "r.md", tmp_path / "r.html"
    out = str(tmp_path / "out")
    code, output = _eval(BROKEN, EVALSET, "--baseline", BASE, "--output-dir", out, "--html", str(page),
                         "--markdown", str(md))  # fmt: skip
    assert code == 1, output  # unchanged: cases failed
    lines = output.splitlines()
    block = lines.index(f"Compared with {BASE_ID}: 0 fixed, 2 broken")
    # Each with its first reason, as every report gives it.
    assert lines[block + 1].startswith("  broken: calc_natural_multiply: tool_trajectory_avg_score (invocation 1)")
    assert lines[block + 2].startswith("  broken: calc_multi_turn: tool_trajectory_avg_score (invocation 2)")
    assert block < next(i for i, line in enumerate(lines) if line.startswith("Results saved to"))
    new_id = re.search(r"\(result (calculator_calculator_\S+)\)", output)
    assert new_id, output
    text = md.read_text()
    assert text.index("## agentgauge: `calculator`") < text.index(f"\n### Comparison with {BASE_ID}\n")
    assert "**REGRESSED: 2 broken, 4 still passing**" in text
    assert f"- New: `{new_id.group(1)}`: 4/6 cases passed" in text
    assert "| calc_natural_multiply | broken | passed | failed | 1/1 → 0/1 |" in text
    html = page.read_text()
    assert html.count('<section class="comparison"') == 1 and html.endswith("</section>\n</body></html>\n")
    assert html.index('id="case-list"') < html.index(f"<h2>Comparison with {BASE_ID}</h2>")
    assert '<td class="broken">broken</td>' in html and "<script>" in html  # the report's own script is kept


def test_fail_on_regression_sets_the_exit_code(tmp_path: Path) -> None:
    out = ["--output-dir", str(tmp_path / "out")]
    # The same bug as the baseline: 2 still failing, nothing broke -> 0 (1 without the flag).
    code, output = _eval(BROKEN, EVALSET, "--baseline", NEW, "--fail-on-regression", *out)
    assert code == 0, output
    assert "Compared with calculator_calculator_d9e1697e" in output and ": 0 fixed, 0 broken" in output
    assert _eval(BROKEN, EVALSET, "--baseline", NEW, *out)[0] == 1
    # The bug put in: 2 broken -> 1; the bug fixed: 2 fixed -> 0.
    code, output = _eval(BROKEN, EVALSET, "--baseline", BASE, "--fail-on-regression", *out)
    assert code == 1 and "0 fixed, 2 broken" in output
    code, output = _eval(GOOD, EVALSET, "--baseline", NEW, "--fail-on-regression", *out)
    assert code == 0 and "2 fixed, 0 broken" in output and "  broken:" not in output


def test_baseline_by_id_under_the_output_dir(tmp_path: Path) -> None:
    out = ["--output-dir", str(tmp_path / "out")]
    code, first = _eval(GOOD, EVALSET, *out)
    assert code == 0, first
    found = re.search(r"\(result (calculator_calculator_\S+)\)", first)
    assert found
    code, second = _eval(GOOD, EVALSET, "--baseline", found.group(1), "--fail-on-regression", *out)
    assert code == 0, second
    assert f"Compared with {found.group(1)}: 0 fixed, 0 broken" in second


def test_bad_baseline_or_flag_alone_exit_2_before_running(tmp_path: Path) -> None:
    out = tmp_path / "out"
    code, output = _eval(GOOD, EVALSET, "--baseline", "nope", "--output-dir", str(out))
    assert code == 2
    assert output.strip() == f"error: nope: no such file, and no result with this id under {out}"
    assert not out.exists()  # nothing ran, nothing saved
    code, output = _eval(GOOD, EVALSET, "--fail-on-regression", "--output-dir", str(out))
    assert code == 2 and output.strip() == "error: --fail-on-regression needs --baseline RESULT_ID_OR_FILE"
    bad = tmp_path / "bad.json"
    bad.write_text("{")
    code, output = _eval(GOOD, EVALSET, "--baseline", str(bad), "--output-dir", str(out))
    assert code == 2 and output.startswith(f"error: {bad}") and not out.exists()


def test_insert_before_body_end_copies_large_files_piecewise(tmp_path: Path) -> None:
    page = tmp_path / "p.html"
    body = b"x" * (3 << 20)  # larger than one copy chunk
    page.write_bytes(b"<html><body>" + body + b"<script>s</script></body></html>\n")
    insert_before_body_end(page, b"<section>c</section>", b"</body>")
    assert page.read_bytes() == b"<html><body>" + body + b"<script>s</script><section>c</section></body></html>\n"
    text = tmp_path / "r.md"
    text.write_bytes(b"# R\n")
    insert_before_body_end(text, b"\n## C\n", None)
    insert_before_body_end(text, b"tail\n", b"</body>")  # marker absent: appended
    assert text.read_bytes() == b"# R\n\n## C\ntail\n"
