"""``EvalRequest.check``: every option checked once, before anything is loaded, naming the option or field as the
caller spells it (``--parallelism`` on the command line, ``parallelism`` in Python and the HTTP API), with the web
server's own bounds on runs and parallelism."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from agentgauge.errors import InputError
from agentgauge.launch import (
    COMMAND_LINE,
    HTTP_API,
    PYTHON,
    EngineOptions,
    EvalRequest,
    EvalSetSpec,
    GateOptions,
    JudgeOptions,
    MetricOptions,
    RemoteOptions,
    SimulationOptions,
    Surface,
)

SET = "examples/calculator/calculator.evalset.json"

# (request fields, message on the command line, message in Python); the HTTP API spells fields in camel case.
CASES: dict[str, tuple[dict[str, Any], str, str]] = {
    "num runs": ({"num_runs": 0}, "--num-runs must be between 1 and 1000, got 0", "num_runs must be between 1 and"),
    "parallelism": ({"parallelism": 0}, "--parallelism must be at least 1, got 0", "parallelism must be at least 1"),
    "timeout": ({"timeout": float("nan")}, "--timeout must be positive, got nan", "timeout must be positive"),
    "judge timeout": (
        {"judge": JudgeOptions(timeout=0)},
        "--judge-timeout must be a positive number of seconds, got 0",
        "judge_timeout must be",
    ),
    "judge url": ({"judge": JudgeOptions(base_url="http://j")}, "--judge-base-url needs --judge-model", "needs"),
    "reducer": ({"metrics": MetricOptions(reducer="nope")}, "--reducer: ", "reducer: "),
    "dialect": ({"metrics": MetricOptions(dialect="adk-go")}, "--dialect must be one of adk, adk-ts", "dialect"),
    "judge parallelism": (
        {"metrics": MetricOptions(judge_parallelism=0)},
        "--judge-parallelism must be at least 1, got 0",
        "judge_parallelism must be at least 1",
    ),
    "empty only": ({"metrics": MetricOptions(only=" , ")}, "--only-metrics needs at least one metric name", "only"),
    "case status": (
        {"metrics": MetricOptions(case_status="most")},
        "--case-status: unknown case status rule 'most': expected one of mean, all, majority, any",
        "case_status: unknown case status rule 'most'",
    ),
    "gate without a baseline": (
        {"gate": GateOptions(fail_on="significant")},
        "--fail-on needs --baseline RESULT_ID_OR_FILE",
        "fail_on needs a baseline",
    ),
    "old gate without a baseline": (
        {"gate": GateOptions(fail_on_regression=True)},
        "--fail-on-regression needs --baseline RESULT_ID_OR_FILE",
        "fail_on_regression needs a baseline",
    ),
    "unknown gate": (
        {"gate": GateOptions("latest", fail_on="worse")},
        "--fail-on: unknown rule 'worse'; choose broken, significant, any-change, never",
        "fail_on: unknown rule 'worse'",
    ),
    "two gates": (
        {"gate": GateOptions("latest", fail_on="never", fail_on_regression=True)},
        "--fail-on-regression is --fail-on broken: it cannot be given with --fail-on never",
        "fail_on_regression is fail_on broken",
    ),
    "alpha": (
        {"gate": GateOptions("latest", alpha=1.0)},
        "--alpha must be between 0 and 1 (exclusive), got 1",
        "alpha must be between 0 and 1",
    ),
    "label": ({"labels": ("env",)}, "--label: ", "label: "),
    "executor": ({"engine": EngineOptions("dask")}, "--executor must be one of local, ray, got 'dask'", "executor"),
    "ray address": (
        {"engine": EngineOptions(ray_address="auto")},
        "--ray-address and --rate-limit need --executor ray",
        "ray_address and rate_limit need executor ray",
    ),
    "traces and simulation": (
        {"traces": Path("t.json"), "simulation": SimulationOptions(max_turns=2)},
        "--user-simulator, --simulator-model, --expected-agent and --max-turns cannot be used with --traces",
        "cannot be used with traces",
    ),
    "traces and resume": (
        {"traces": Path("t.json"), "resume": "r"},
        "--resume, --cache-agent, --agent-header, --agent-config, --agent-timeout, --agent-max-response-mb and "
        "--agent-follow-redirects apply to agent runs, not to --traces",
        "apply to agent runs, not to traces",
    ),
    "eval set without traces": (
        {"eval_set": SET},
        "--eval-set, --by-session and --require-all-cases are only used with --traces",
        "eval_set, by_session and require_all_cases are only used with traces",
    ),
    "two sets with traces": (
        {"traces": Path("t.json"), "sets": (SET, SET)},
        "with --traces give at most one eval set (positional or --eval-set) and no agent; got ",
        "with traces give at most one eval set",
    ),
    "headers of a local agent": (
        {"agent": "agent.py", "remote": RemoteOptions(("X-Key: 1",))},
        "--agent-header, --agent-config, --agent-timeout, --agent-max-response-mb and --agent-follow-redirects apply "
        "to remote agents (a2a+http://, adk+http://, agui+http://, trpcagent+http://, http://), not to agent.py",
        "agent_max_response_mb and agent_follow_redirects apply to remote agents",
    ),
    "agent cache of an agent object": (
        {"agent": object(), "agent_cache": Path("cache")},
        "--cache-agent needs the agent given by its spec",
        "agent_cache needs the agent given by its spec",
    ),
    "no eval set": ({"sets": ()}, "no eval set given: usage: agentgauge eval [AGENT] EVAL_SET", "no eval set given"),
}


@pytest.mark.parametrize("name", CASES)
def test_every_option_is_named_as_its_caller_spells_it(name: str) -> None:
    fields, on_the_command_line, in_python = CASES[name]
    request = EvalRequest(**{"sets": (SET,), **fields})
    with pytest.raises(InputError) as command_line:
        EvalRequest(**{**vars(request), "surface": COMMAND_LINE}).check()
    assert str(command_line.value).startswith(on_the_command_line), str(command_line.value)
    with pytest.raises(InputError) as python:
        request.check()
    assert in_python in str(python.value) and "--" not in str(python.value)


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"num_runs": 101}, "numRuns must be between 1 and 100, got 101"),
        ({"parallelism": 65}, "parallelism must be between 1 and 64, got 65"),
        ({"parallelism": 0}, "parallelism must be between 1 and 64, got 0"),
    ],
)
def test_the_web_servers_bounds_are_its_requests_checks(fields: dict[str, Any], message: str) -> None:
    with pytest.raises(InputError, match=message):
        EvalRequest(sets=(SET,), surface=HTTP_API, **fields).check()


def test_the_command_line_allows_more_runs_and_parallelism_than_the_server() -> None:
    checked = EvalRequest(sets=(SET,), surface=COMMAND_LINE, num_runs=1000, parallelism=500).check()
    assert checked.judge_parallelism == 500


def test_a_checked_request_keeps_what_the_checks_derived() -> None:
    checked = EvalRequest(
        agent="a2a+http://127.0.0.1:1",
        sets=(f"{SET}:calc_add,calc_divide", EvalSetSpec(Path("other.evalset.json"))),
        labels=("env=prod", "team=core"),
        metrics=MetricOptions(skip="response_match_score", dialect="adk-ts"),
        remote=RemoteOptions(("X-Key: ${KEY}",)),
        parallelism=8,
    ).check()
    assert checked.labels == {"env": "prod", "team": "core"}
    assert checked.judge_parallelism == 8 and checked.dialect == "adk-ts" and checked.selection is not None
    assert [s.case_ids for s in checked.sets] == [("calc_add", "calc_divide"), ()]
    assert checked.remote is not None and checked.engine.kind == "local" and checked.trace_set is None


def test_surfaces_spell_fields_and_phrases() -> None:
    assert (COMMAND_LINE.name("num_runs"), HTTP_API.name("num_runs"), PYTHON.name("num_runs")) == (
        "--num-runs",
        "numRuns",
        "num_runs",
    )
    assert COMMAND_LINE.name("case_id") == "with EVAL_SET:case_id" and HTTP_API.name("config") == "metrics"
    assert "--" not in HTTP_API.name("simulated_user") and "--simulator-model" in COMMAND_LINE.name("simulated_user")
    assert Surface("field", {"a_b": "x"}).name("a_b") == "x"


@pytest.mark.parametrize(
    ("arg", "path", "cases"),
    [
        ("s.evalset.json", "s.evalset.json", ()),
        ("s.evalset.json:a,b", "s.evalset.json", ("a", "b")),
        ("s.evalset.json: a , ,b", "s.evalset.json", ("a", "b")),
        ("C:\\sets\\s.json:a", "C:\\sets\\s.json", ("a",)),
        ("C:\\sets\\s.json", "C:\\sets\\s.json", ()),
    ],
)
def test_an_eval_set_argument_names_its_file_and_cases(arg: str, path: str, cases: tuple[str, ...]) -> None:
    spec = EvalSetSpec.parse(arg)
    assert (spec.path, spec.case_ids) == (Path(path), cases)


def test_an_existing_file_whose_name_holds_a_colon_is_taken_whole(tmp_path: Path) -> None:
    odd = tmp_path / "a:b.evalset.json"
    odd.write_text("{}")
    assert EvalSetSpec.parse(str(odd)) == EvalSetSpec(odd)


_ID = st.text(st.characters(categories=["L", "N"]) | st.sampled_from("_-."), min_size=1, max_size=12)


@given(st.lists(_ID, min_size=1, max_size=4))
def test_case_filters_round_trip(ids: list[str]) -> None:
    spec = EvalSetSpec.parse(f"missing/set.evalset.json:{','.join(ids)}")
    assert spec.path == Path("missing/set.evalset.json") and spec.case_ids == tuple(ids)
