"""The progress log of a run: appended per case, readable after a kill, secrets masked, checked on resume."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agentgauge._util.redact import clear_secrets, register_secret
from agentgauge.errors import InputError
from agentgauge.model import EvalCaseResult, EvalMetric, EvalSet, EvalSetResult, EvalStatus
from agentgauge.run._resume import ProgressLog, load_resume, metrics_fingerprint, progress_path, read_progress


def _log(path: Path, *, append: bool = False) -> ProgressLog:
    return ProgressLog(
        path, eval_set_result_id="app_s_1", eval_set_id="s", app_name="app", num_runs=2, metrics="m", append=append
    )


def _case(eval_id: str, run_id: int = 1, error: str | None = None) -> EvalCaseResult:
    return EvalCaseResult(
        eval_set_id="s", eval_id=eval_id, run_id=run_id, final_eval_status=EvalStatus.PASSED, error_message=error
    )


def test_progress_path_sits_beside_the_result() -> None:
    assert progress_path(Path("out/app/app_s_1.evalset_result.json")) == Path("out/app/app_s_1.progress.jsonl")


def test_a_line_cut_short_by_a_kill_is_ignored_and_dropped_before_appending(tmp_path: Path) -> None:
    path = tmp_path / "app_s_1.progress.jsonl"
    log = _log(path)
    log.add(_case("a"))
    log.add(_case("b"))
    log.close(remove=False)
    with open(path, "ab") as handle:
        handle.write(b'{"evalId": "c", "evalSetId"')  # the kill came mid-write
    header, results = read_progress(path)
    assert header["evalSetResultId"] == "app_s_1" and header["numRuns"] == 2
    assert [r.eval_id for r in results] == ["a", "b"]
    again = _log(path, append=True)
    again.add(_case("c"))
    again.close(remove=False)
    assert [r.eval_id for r in read_progress(path)[1]] == ["a", "b", "c"]
    assert path.read_bytes().count(b"\n") == 4  # the header and three whole lines
    again.close(remove=True)
    assert not path.exists()


def test_a_broken_line_in_the_middle_names_its_line(tmp_path: Path) -> None:
    path = tmp_path / "x.progress.jsonl"
    log = _log(path)
    log.add(_case("a"))
    log.close(remove=False)
    with open(path, "ab") as handle:
        handle.write(b"{not json}\n" + json.dumps(_case("b").model_dump(mode="json")).encode() + b"\n")
    with pytest.raises(InputError, match=r"line 3: unreadable case result"):
        read_progress(path)
    path.write_text('{"something": "else"}\n')
    with pytest.raises(InputError, match="not an agentgauge progress log"):
        read_progress(path)
    path.write_text("")
    with pytest.raises(InputError, match="empty progress log"):
        read_progress(path)


def test_registered_secrets_never_reach_the_log(tmp_path: Path) -> None:
    secret = "sk-resume-secret-0123456789"
    register_secret(secret)
    try:
        path = tmp_path / "x.progress.jsonl"
        log = _log(path)
        log.add(_case("a", error=f"judge refused key {secret}"))
        log.close(remove=False)
        assert secret not in path.read_text()
        assert "***" in path.read_text()
    finally:
        clear_secrets()


def test_load_resume_merges_the_interrupted_file_and_the_log(tmp_path: Path) -> None:
    result_path = tmp_path / "app_s_1.evalset_result.json"
    interrupted = EvalSetResult(
        eval_set_result_id="app_s_1", eval_set_id="s", eval_case_results=[_case("a")], interrupted=True
    )
    result_path.write_text(interrupted.model_dump_json())
    log = _log(progress_path(result_path))
    log.add(_case("b", run_id=2))
    log.close(remove=False)
    stale = tmp_path / ".app_s_1.evalset_result.json.0123456789ab.tmp"
    stale.write_text("{")
    state = load_resume(result_path)
    assert set(state.done) == {("a", 1), ("b", 2)}
    assert (state.eval_set_result_id, state.num_runs, state.metrics) == ("app_s_1", 2, "m")
    assert not stale.exists()  # the killed run's temporary file is cleaned up
    assert load_resume(progress_path(result_path)).done.keys() == state.done.keys()
    with pytest.raises(InputError, match="metrics differ"):
        state.check(eval_set_id="s", num_runs=2, metrics=[], case_ids=["a", "b"])
    state.metrics = metrics_fingerprint([])
    state.check(eval_set_id="s", num_runs=2, metrics=[], case_ids=["a", "b"])  # continues this run: no error
    with pytest.raises(InputError, match="does not select"):
        state.check(eval_set_id="s", num_runs=2, metrics=[], case_ids=["a"])
    with pytest.raises(InputError, match="--num-runs 2"):
        state.check(eval_set_id="s", num_runs=3, metrics=[], case_ids=["a", "b"])
    with pytest.raises(InputError, match="evaluated eval set 's', not 't'"):
        state.check(eval_set_id="t", num_runs=2, metrics=[], case_ids=["a", "b"])
    complete = interrupted.model_copy(update={"interrupted": False})
    result_path.write_text(complete.model_dump_json())
    with pytest.raises(InputError, match="nothing to resume"):
        load_resume(result_path)
    with pytest.raises(InputError, match="no such result file"):
        load_resume(tmp_path / "missing.evalset_result.json")


def test_metrics_fingerprint_follows_the_configuration() -> None:
    one = [EvalMetric(metric_name="response_match_score", threshold=0.5)]
    assert metrics_fingerprint(one) == metrics_fingerprint(
        [EvalMetric(metric_name="response_match_score", threshold=0.5)]
    )
    assert metrics_fingerprint(one) != metrics_fingerprint(
        [EvalMetric(metric_name="response_match_score", threshold=0.6)]
    )


def test_a_crash_keeps_the_log_and_the_run_resumes_from_it(tmp_path: Path) -> None:
    from agentgauge.run._evaluator import AgentEvaluator
    from agentgauge.service import LoadedEvalSet
    from agentgauge.storage import InMemoryMetricManager, LocalEvalResultManager

    eval_set = EvalSet.model_validate(
        {
            "evalSetId": "s",
            "evalCases": [
                {
                    "evalId": f"c{i}",
                    "conversation": [{"userContent": {"content": f"q{i}"}, "finalResponse": {"content": f"q{i}"}}],
                }
                for i in range(5)
            ],
        }
    )
    metrics = InMemoryMetricManager()
    metrics.put_all("app", "s", [EvalMetric(metric_name="response_match_score", threshold=0.5)])
    calls: list[str] = []

    def agent(request: object) -> str:
        calls.append(request.user_content.content)  # type: ignore[attr-defined]
        return request.user_content.content  # type: ignore[attr-defined]

    def crash(done: int, total: int) -> None:
        if done == 3:
            raise RuntimeError("the machine ran out of something")

    def evaluator(progress: object) -> AgentEvaluator:
        return AgentEvaluator(
            "app",
            agent,
            eval_set_manager=LoadedEvalSet(eval_set),
            metric_manager=metrics,
            result_manager=LocalEvalResultManager(tmp_path),
            parallelism=1,
            progress=progress,  # type: ignore[arg-type]
        )

    with pytest.raises(RuntimeError, match="ran out"):
        evaluator(crash).evaluate_sync("s")
    (log,) = (tmp_path / "app").glob("*.progress.jsonl")
    assert not list((tmp_path / "app").glob("*.evalset_result.json"))
    state = load_resume(log)
    assert sorted(state.done) == [("c0", 1), ("c1", 1), ("c2", 1)]
    calls.clear()
    import asyncio

    outcome = asyncio.run(evaluator(None).evaluate("s", resume=state))
    assert calls == ["q3", "q4"]
    assert outcome.eval_set_result.eval_set_result_id == state.eval_set_result_id
    assert [r.eval_id for r in outcome.eval_set_result.eval_case_results] == ["c0", "c1", "c2", "c3", "c4"]
    assert outcome.overall_status is EvalStatus.PASSED
    assert sorted(p.name for p in (tmp_path / "app").iterdir()) == [f"{state.eval_set_result_id}.evalset_result.json"]
