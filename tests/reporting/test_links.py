"""Replay links: with the UI's address set, every report links each case that did not pass to its replay (the
fragment the web UI reads), and no report links anything without it."""

from __future__ import annotations

import io

import pytest
from result_samples import multi_run_result, single_run_result

from agentgauge.model import EvalSetResult
from agentgauge.reporting import print_summary, render, replay_link, ui_links

UI = "http://127.0.0.1:8000"
FAILED = f"{UI}/#app=calculator&set=calc&tab=replay&result=calc_run_1&case=multiply_pipe%7C%3Ctag%3E&run=1"


def _terminal(result: EvalSetResult) -> str:
    from rich.console import Console

    out = io.StringIO()
    print_summary(result, console=Console(file=out, width=400, color_system=None))
    return out.getvalue()


SURFACES = {
    "terminal": (_terminal, FAILED),
    "junit": (lambda r: render(r, "junit"), FAILED.replace("&", "&amp;")),
    "markdown": (lambda r: render(r, "markdown"), f"]({FAILED})"),
    "html": (lambda r: render(r, "html"), FAILED.replace("&", "&amp;")),
}


@pytest.mark.parametrize("surface", sorted(SURFACES))
def test_every_report_links_a_failed_case_to_its_replay(surface: str) -> None:
    draw, expected = SURFACES[surface]
    result = single_run_result()
    assert expected in draw_with_links(draw, result)
    assert "tab=replay" not in draw(result)  # no address, no link


def draw_with_links(draw: object, result: EvalSetResult) -> str:
    with ui_links(UI + "/", "calculator"):
        return draw(result)  # type: ignore[operator, no-any-return]


def test_a_passing_case_is_not_linked_and_names_are_quoted() -> None:
    result = multi_run_result()
    with ui_links(UI, "my app"):
        text = render(result, "markdown")
        link = replay_link("calc", "calc_multi", "multiply_pipe|<tag>", 1)
    assert link == f"{UI}/#app=my%20app&set=calc&tab=replay&result=calc_multi&case=multiply_pipe%7C%3Ctag%3E&run=1"
    assert "case=add_small" not in text
    assert replay_link("calc", "calc_multi", "add_small") is None  # outside ui_links
