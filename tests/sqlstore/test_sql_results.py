"""SQL result store: exact round trips on SQLite and PostgreSQL, idempotent writes, streaming, concurrency."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
import sqlalchemy as sa

from agentgauge import AgentEvaluator
from agentgauge.errors import InputError, NotFoundError
from agentgauge.formats import load_result
from agentgauge.formats._api import parse_result
from agentgauge.model import EvalCaseResult, EvalMetricResult, EvalSetResult, EvalStatus
from agentgauge.reporting import render
from agentgauge.sqlstore import SqlEvalResultManager, open_store

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"
MATH_RESULT = (
    EXAMPLES / "math_basic" / "math-eval-app_math-basic_538cdf6e-925d-41cf-943b-2849982b195e.evalset_result.json"
)


def _case(eval_id: str, run_id: int = 1, *, status: EvalStatus = EvalStatus.PASSED, **extra: object) -> EvalCaseResult:
    return EvalCaseResult(
        eval_set_id="s",
        eval_id=eval_id,
        run_id=run_id,
        final_eval_status=status,
        overall_eval_metric_results=[
            EvalMetricResult(metric_name="m1", score=0.5 if status is EvalStatus.FAILED else 1.0, eval_status=status,
                             threshold=0.8),
            EvalMetricResult(metric_name="m2", score=None, eval_status=EvalStatus.NOT_EVALUATED, threshold=0.0),
        ],
        session_id=f"sess-{eval_id}-{run_id}",
        user_id="u",
        **extra,
    )  # fmt: skip


def _tricky() -> EvalSetResult:
    """A result with what databases get wrong: NUL and non-ASCII text, unknown keys, null scores, key order."""
    cases = [
        _case("ünïcode ✓", 1),
        _case("b", 1, status=EvalStatus.FAILED, error_message="boom\x00 after NUL — “quoted”"),
        _case("b", 2, zExtraKey={"nested": [1, 2.5, None, "x"], "a": True}),
    ]
    return EvalSetResult(
        eval_set_result_id="app_s_1",
        eval_set_result_name="tricky run",
        eval_set_id="s",
        eval_case_results=cases,
        creation_timestamp=1766455261.342534,
        customTopLevel={"kept": 1},
    )


async def _calculator_result(tmp_path: Path) -> EvalSetResult:
    """A real run of the calculator example (two runs per case), saved as a file."""
    from agentgauge.agents import load_agent
    from agentgauge.storage import LocalEvalResultManager, LocalEvalSetManager, LocalMetricManager

    evaluator = AgentEvaluator(
        "calculator",
        load_agent(str(EXAMPLES / "calculator" / "agent.py")),
        eval_set_manager=LocalEvalSetManager(EXAMPLES, _FlatLocator(".evalset.json")),
        metric_manager=LocalMetricManager(EXAMPLES, _FlatLocator(".metrics.json")),
        result_manager=LocalEvalResultManager(tmp_path),
        num_runs=2,
    )
    outcome = await evaluator.evaluate("calculator")
    assert outcome.result_path is not None
    return load_result(outcome.result_path)


class _FlatLocator:
    def __init__(self, suffix: str) -> None:
        self.suffix = suffix

    def build(self, base_dir: Path, app: str, id: str) -> Path:
        return Path(base_dir) / "calculator" / f"{id}{self.suffix}"

    def list(self, base_dir: Path, app: str) -> list[str]:
        return ["calculator"]


def _count(url: str, table: str) -> int:
    engine = sa.create_engine(url)
    try:
        with engine.connect() as conn:
            return int(conn.execute(sa.text(f"SELECT count(*) FROM {table}")).scalar_one())
    finally:
        engine.dispose()


async def test_same_result_reads_back_identical_from_sqlite_and_postgresql(
    sqlite_url: str, postgres_url: str, tmp_path: Path
) -> None:
    originals = [load_result(MATH_RESULT), _tricky(), await _calculator_result(tmp_path)]
    read_back: dict[str, list[EvalSetResult]] = {}
    for name, url in (("sqlite", sqlite_url), ("postgresql", postgres_url)):
        results = open_store(url).results()
        for result in originals:
            results.save("app", result.model_copy(deep=True))
        read_back[name] = [results.get("app", r.eval_set_result_id) for r in originals]
    for original, lite, pg in zip(originals, read_back["sqlite"], read_back["postgresql"], strict=True):
        assert lite == original
        assert pg == original
        # Byte for byte the same document as the file it came from (what show / reports / --json print).
        assert render(lite, "json") == render(original, "json") == render(pg, "json")
    assert read_back["postgresql"][1].eval_case_results[1].error_message == "boom\x00 after NUL — “quoted”"


async def test_evaluator_streams_into_the_store_and_reads_back(store_url: str) -> None:
    from agentgauge.agents import load_agent
    from agentgauge.storage import LocalEvalSetManager, LocalMetricManager

    evaluator = AgentEvaluator(
        "calculator",
        load_agent(str(EXAMPLES / "calculator" / "agent.py")),
        eval_set_manager=LocalEvalSetManager(EXAMPLES, _FlatLocator(".evalset.json")),
        metric_manager=LocalMetricManager(EXAMPLES, _FlatLocator(".metrics.json")),
        store=store_url,
        num_runs=2,
    )
    outcome = await evaluator.evaluate("calculator")
    assert outcome.result_path is None
    stored = evaluator.result_manager.get("calculator", outcome.eval_set_result.eval_set_result_id)  # type: ignore[attr-defined]
    assert stored == outcome.eval_set_result
    assert len(stored.eval_case_results) == 12
    assert _count(store_url, "evaluation_case_results") == 12
    assert _count(store_url, "evaluation_metric_results") == 24  # two metrics per case run
    info = evaluator.result_manager.find()  # type: ignore[attr-defined]
    assert [(i.status, i.num_cases) for i in info] == [("completed", 12)]


def test_rewrites_are_idempotent(store_url: str) -> None:
    results = open_store(store_url).results()
    result = _tricky()
    for _ in range(3):
        results.save("app", result.model_copy(deep=True))
    assert results.list("app") == ["app_s_1"]
    assert _count(store_url, "evaluation_eval_set_results") == 1
    assert _count(store_url, "evaluation_case_results") == 3
    assert _count(store_url, "evaluation_metric_results") == 6
    # The same case run written again through a writer replaces its row (and its metric rows).
    writer = results.open_writer("app", "s", "app_s_2")
    writer.add(_case("a"))
    writer.add(_case("a", status=EvalStatus.FAILED))
    writer.commit()
    stored = results.get("app", "app_s_2")
    assert [(c.eval_id, c.final_eval_status) for c in stored.eval_case_results] == [("a", EvalStatus.FAILED)]
    assert _count(store_url, "evaluation_case_results") == 4
    assert _count(store_url, "evaluation_metric_results") == 8
    # A re-save replaces the result as a whole: case runs it no longer has are gone.
    smaller = result.model_copy(deep=True)
    smaller.eval_case_results = smaller.eval_case_results[:1]
    results.save("app", smaller)
    assert results.get("app", "app_s_1") == smaller
    assert _count(store_url, "evaluation_case_results") == 2


def test_unfinished_run_keeps_its_finished_cases(store_url: str) -> None:
    results = open_store(store_url).results()
    writer = results.open_writer("app", "s", "app_s_run")
    writer.add(_case("a"))
    writer.add(_case("b", status=EvalStatus.FAILED))
    # No commit: the process died here. A reader sees the finished cases, marked interrupted, with a summary.
    other = open_store(store_url).results()
    found = other.get("app", "app_s_run")
    assert found.interrupted
    assert [c.eval_id for c in found.eval_case_results] == ["a", "b"]
    assert found.summary is not None and found.summary.overall_status is EvalStatus.FAILED
    assert [(i.status, i.num_cases) for i in other.find("app_s_run")] == [("running", 2)]
    assert other.scored("app", "app_s_run") == {("a", 1), ("b", 1)}


def test_killed_process_loses_no_finished_case(store_url: str, tmp_path: Path) -> None:
    script = tmp_path / "killed.py"
    script.write_text(
        textwrap.dedent(
            f"""
            import os, signal, sys
            sys.path.insert(0, {str(Path(__file__).parent)!r})
            from test_sql_results import _case
            from agentgauge.sqlstore import open_store
            writer = open_store(sys.argv[1]).results().open_writer("app", "s", "app_s_killed")
            for i in range(5):
                writer.add(_case(f"c{{i}}"))
            os.kill(os.getpid(), signal.SIGKILL)
            """
        )
    )
    proc = subprocess.run([sys.executable, str(script), store_url], capture_output=True, text=True, timeout=120)
    assert proc.returncode == -signal.SIGKILL, proc.stderr
    found = open_store(store_url).results().get("app", "app_s_killed")
    assert [c.eval_id for c in found.eval_case_results] == [f"c{i}" for i in range(5)]
    assert found.interrupted


_WORKER = """
import sys
sys.path.insert(0, {tests!r})
from test_sql_results import _case
from agentgauge.sqlstore import open_store
url, worker = sys.argv[1], sys.argv[2]
results = open_store(url).results()
shared = results.open_writer("app", "s", "app_s_shared")
for i in range(40):
    shared.add(_case(f"w{{worker}}-{{i}}"))
    own = _case(f"own-{{i}}")
    results.save("app", __import__("agentgauge").EvalSetResult(
        eval_set_result_id=f"app_s_w{{worker}}_{{i}}", eval_set_id="s", eval_case_results=[own]))
print("done")
"""


def test_concurrent_writers_in_two_processes_lose_nothing(store_url: str, tmp_path: Path) -> None:
    script = tmp_path / "worker.py"
    script.write_text(_WORKER.format(tests=str(Path(__file__).parent)))
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    procs = [
        subprocess.Popen([sys.executable, str(script), store_url, str(n)], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True, env=env)
        for n in (1, 2)
    ]  # fmt: skip
    for proc in procs:
        out, err = proc.communicate(timeout=300)
        assert proc.returncode == 0, err
        assert out.strip() == "done"
    results = open_store(store_url).results()
    shared = results.get("app", "app_s_shared")
    assert sorted(c.eval_id for c in shared.eval_case_results) == sorted(f"w{n}-{i}" for n in (1, 2) for i in range(40))
    assert len(results.list("app")) == 81
    assert _count(store_url, "evaluation_case_results") == 80 + 80


def test_not_found_and_bad_ids(store_url: str) -> None:
    results = open_store(store_url).results()
    with pytest.raises(NotFoundError, match="'nope' of app 'app' not found"):
        results.get("app", "nope")
    with pytest.raises(InputError, match="eval set result id"):
        results.get("app", "../x")
    with pytest.raises(InputError, match="evalSetId"):
        results.open_writer("app", "", "x")
    assert results.list("app") == []


def test_large_results_keep_the_trpc_array_empty(sqlite_url: str) -> None:
    results = SqlEvalResultManager(sqlite_url, array_max_cases=2)
    result = _tricky()
    results.save("app", result.model_copy(deep=True))
    engine = sa.create_engine(sqlite_url)
    with engine.connect() as conn:
        array = conn.execute(sa.text("SELECT eval_case_results FROM evaluation_eval_set_results")).scalar_one()
    engine.dispose()
    assert array == "[]"
    assert results.get("app", "app_s_1") == result  # read from the normalised rows


def test_trpc_rows_without_case_rows_are_read(sqlite_url: str) -> None:
    """A result as trpc-agent-go saves it (whole array in the header row, no normalised rows) reads back."""
    original = parse_result(MATH_RESULT.read_bytes())
    results = open_store(sqlite_url).results()
    results.store.ping()
    engine = sa.create_engine(sqlite_url)
    doc = original.model_dump(mode="json")
    with engine.begin() as conn:
        conn.execute(
            sa.text(
                "INSERT INTO evaluation_eval_set_results (app_name, eval_set_result_id, eval_set_id, "
                "eval_set_result_name, eval_case_results, summary) VALUES (:a, :i, :s, :n, :c, :m)"
            ),
            {"a": "app", "i": "r1", "s": original.eval_set_id, "n": "r1",
             "c": __import__("json").dumps(doc["evalCaseResults"]), "m": None},
        )  # fmt: skip
    engine.dispose()
    found = results.get("app", "r1")
    assert found.eval_case_results == original.eval_case_results
    assert found.creation_timestamp is not None  # rebuilt from created_at, as trpc-agent-go does
    assert not found.interrupted


def test_registered_secrets_never_reach_the_database(store_url: str) -> None:
    from agentgauge._util.redact import clear_secrets, register_secret

    secret = "sk-test-registered-secret-123"
    register_secret(secret)
    try:
        result = _tricky()
        result.eval_case_results[0].error_message = f"judge said no (key {secret})"
        result.eval_case_results[0].session_id = f"s-{secret}"
        results = open_store(store_url).results()
        results.save("app", result)
        writer = results.open_writer("app", "s", "app_s_stream")
        writer.add(result.eval_case_results[0])
        writer.commit()
        engine = sa.create_engine(store_url)
        with engine.connect() as conn:
            for table in ("evaluation_eval_set_results", "evaluation_case_results", "evaluation_metric_results"):
                for row in conn.execute(sa.text(f"SELECT * FROM {table}")):
                    assert secret not in repr(tuple(row)), table
        engine.dispose()
        assert results.get("app", "app_s_1").eval_case_results[0].error_message == "judge said no (key ***)"
    finally:
        clear_secrets()


def test_a_new_sqlite_store_in_a_new_folder(tmp_path: Path) -> None:
    results = open_store(str(tmp_path / "new" / "folder" / "r.db")).results()
    results.save("app", _tricky())
    assert (tmp_path / "new" / "folder" / "r.db").is_file()


def test_large_run_reports_read_case_results_back_from_the_store(
    sqlite_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Above the in-memory limit the run keeps compact rows only; reports and --json read the store."""
    import json
    import xml.etree.ElementTree as ET

    from typer.testing import CliRunner

    import agentgauge.run._evaluator
    from agentgauge.cli import app

    monkeypatch.setattr(agentgauge.run._evaluator, "DEFAULT_MAX_RESULTS_IN_MEMORY", 2)
    junit = tmp_path / "r.xml"
    ran = CliRunner().invoke(
        app,
        [
            "eval", str(EXAMPLES / "calculator" / "agent.py"), str(EXAMPLES / "calculator" / "calculator.evalset.json"),
            "--store", sqlite_url, "--junit", str(junit), "--json", "--num-runs", "2",
        ],
    )  # fmt: skip
    assert ran.exit_code == 0, ran.output
    doc = json.loads(ran.stdout)
    assert len(doc["evalCaseResults"]) == 12
    from_file = tmp_path / "file.xml"
    args = ["eval", str(EXAMPLES / "calculator" / "agent.py"), str(EXAMPLES / "calculator" / "calculator.evalset.json")]
    args += ["--output-dir", str(tmp_path / "out"), "--junit", str(from_file), "--num-runs", "2"]
    assert CliRunner().invoke(app, args).exit_code == 0

    def names(path: Path) -> list[str | None]:
        return [case.get("name") for case in ET.parse(path).getroot().iter("testcase")]

    # One testcase per case (six cases, two runs each), the same report as from a result file.
    assert len(names(junit)) == 6 and names(junit) == names(from_file)
    stored = open_store(sqlite_url).results().get("calculator", doc["evalSetResultId"])
    doc["summary"].pop("statistics")  # --json adds the intervals; the stored result has none
    assert stored.model_dump(mode="json") == doc


def test_a_case_run_written_again_keeps_only_its_new_metrics(store_url: str) -> None:
    results = open_store(store_url).results()
    writer = results.open_writer("app", "s", "app_s_m")
    writer.add(_case("a"))
    fewer = _case("a")
    fewer.overall_eval_metric_results = fewer.overall_eval_metric_results[1:]
    writer.add(fewer)
    writer.commit()
    engine = sa.create_engine(store_url)
    with engine.connect() as conn:
        names = conn.execute(sa.text("SELECT metric_name FROM evaluation_metric_results")).scalars().all()
    engine.dispose()
    assert names == ["m2"]


def test_abort_keeps_the_cases_and_never_raises(sqlite_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    from agentgauge.sqlstore import StoreError

    results = open_store(sqlite_url).results()
    with results.open_writer("app", "s", "app_s_abort") as writer:
        writer.add(_case("a"))
    # Leaving the block without a commit aborts: the case stays, the result is marked.
    assert [(i.status, i.num_cases) for i in results.find("app_s_abort")] == [("aborted", 1)]
    assert results.get("app", "app_s_abort").interrupted

    other = results.open_writer("app", "s", "app_s_abort2")

    def broken() -> None:
        raise StoreError("store down")

    monkeypatch.setattr(results.store, "begin", broken)
    other.abort()  # the store failing too must not replace the error being handled
    assert other.closed
