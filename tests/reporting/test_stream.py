"""Reports and ``show`` of results read case by case agree exactly with the whole-result ones."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from result_samples import multi_run_result, single_run_result, usage_result
from rich.console import Console
from typer.testing import CliRunner

from agentgauge.cli import app
from agentgauge.formats import save_result
from agentgauge.model import EvalSetResult, EvalStatus
from agentgauge.reporting import build_view, print_summary, render, view_from_rows
from agentgauge.reporting._stream import scan_result_file, stream_reports
from agentgauge.reporting._terminal import print_overview
from agentgauge.service import case_row, summarize_rows


@pytest.mark.parametrize("make", [single_run_result, multi_run_result, usage_result])
def test_streamed_reports_equal_rendered_ones(make: object, tmp_path: Path) -> None:
    result: EvalSetResult = make()  # type: ignore[operator]
    formats = ("junit", "markdown", "html")
    console = Console(file=io.StringIO(), width=100)
    stream_reports(build_view(result), iter(result.eval_case_results),
                   [(tmp_path / f"r.{fmt}", fmt) for fmt in formats], console=console)  # fmt: skip
    for fmt in formats:
        assert (tmp_path / f"r.{fmt}").read_text(encoding="utf-8") == render(result, fmt)  # type: ignore[arg-type]
    whole = Console(file=io.StringIO(), width=100)
    print_summary(result, console=whole, detailed=True)
    print_overview(build_view(result), console)
    assert console.file.getvalue() == whole.file.getvalue()  # type: ignore[attr-defined]


@pytest.mark.parametrize("make", [multi_run_result, usage_result])
def test_view_from_compact_rows_matches_the_whole_view(make: object) -> None:
    result: EvalSetResult = make()  # type: ignore[operator]
    case_ids = list(dict.fromkeys(c.eval_id for c in result.eval_case_results))
    rows = summarize_rows(map(case_row, result.eval_case_results), case_ids=case_ids, num_runs=2)
    header = result.model_copy(update={"eval_case_results": []})
    fast, whole = view_from_rows(header, rows), build_view(result)
    assert [(c.eval_id, c.runs, c.runs_passed, c.rows) for c in fast.cases] == [
        (c.eval_id, c.runs, c.runs_passed, c.rows) for c in whole.cases
    ]
    assert fast.pass_k == whole.pass_k and fast.num_runs == whole.num_runs
    assert fast.usage == whole.usage and [c.reason for c in fast.cases] == [c.reason for c in whole.cases]
    assert [t.summary() for t in fast.metrics] == [t.summary() for t in whole.metrics]


def test_a_failed_report_leaves_nothing_behind(tmp_path: Path) -> None:
    result = single_run_result()

    def cases():  # type: ignore[no-untyped-def]
        yield result.eval_case_results[0]
        raise RuntimeError("reading stopped")

    with pytest.raises(RuntimeError):
        stream_reports(build_view(result), cases(), [(tmp_path / "r.html", "html"), (tmp_path / "r.xml", "junit")])
    assert list(tmp_path.iterdir()) == []


def test_scan_checks_every_case(tmp_path: Path) -> None:
    path = tmp_path / "r.json"
    save_result(single_run_result(), path)
    scanned = scan_result_file(path)
    assert scanned is not None and scanned[1].count(EvalStatus.FAILED) == build_view(single_run_result()).count(
        EvalStatus.FAILED
    )
    path.write_text(path.read_text().replace('"finalEvalStatus": "failed"', '"finalEvalStatus": "maybe"', 1))
    assert scan_result_file(path) is None  # the whole-file reader reports it


@pytest.mark.parametrize("make", [single_run_result, multi_run_result, usage_result])
@pytest.mark.parametrize("with_summary", [True, False])
def test_the_scanned_view_equals_the_whole_view(make: object, with_summary: bool, tmp_path: Path) -> None:
    result: EvalSetResult = make()  # type: ignore[operator]
    if not with_summary:  # as ADK writes them: statuses come from the runs
        result = result.model_copy(update={"summary": None})
    path = tmp_path / "r.json"
    save_result(result, path)
    scanned = scan_result_file(path)
    assert scanned is not None
    view, whole = scanned[1], build_view(result)
    assert list(view.cases) == list(whole.cases) and view.pass_k == whole.pass_k and view.num_runs == whole.num_runs
    assert [t.summary() for t in view.metrics] == [t.summary() for t in whole.metrics]
    assert view.overall_status is whole.overall_status and view.usage == whole.usage


@pytest.mark.parametrize("options", [[], ["--print-detailed-results"], ["--json"]])
def test_show_streamed_prints_what_show_prints(
    options: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "r.evalset_result.json"
    save_result(multi_run_result(), path)
    runner = CliRunner()
    reports = ["--junit", "r.xml", "--markdown", "r.md", "--html", "r.html"]
    monkeypatch.chdir(tmp_path)
    whole = runner.invoke(app, ["show", str(path), *options, *reports])
    outputs = {name: (tmp_path / name).read_bytes() for name in ("r.xml", "r.md", "r.html")}
    monkeypatch.setenv("AGENTGAUGE_STREAM_MIN_BYTES", "0")
    streamed = runner.invoke(app, ["show", str(path), *options, *reports])
    assert (streamed.exit_code, streamed.stdout) == (whole.exit_code, whole.stdout)
    assert whole.exit_code == 1
    assert {name: (tmp_path / name).read_bytes() for name in outputs} == outputs
    if options == ["--json"]:
        import json

        assert json.loads(streamed.stdout) == json.loads(whole.stdout)
