"""Every command that reads a result takes every selector: a file, a result id, ``label:KEY=VALUE`` and ``latest``
(``compare``, ``eval --baseline``, ``plan``, ``show``, ``calibrate``), among the result files under ``--output-dir``
and in a SQL store; a bad selector is one ``error:`` line naming it, exit 2."""

from __future__ import annotations

import json
import re
import shutil
import sqlite3
from pathlib import Path

import pytest
from typer.testing import CliRunner

from agentgauge.cli import app

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
GOOD = str(EXAMPLES / "calculator" / "agent.py")
BROKEN = str(EXAMPLES / "compare" / "broken_agent.py")
EVALSET = str(EXAMPLES / "calculator" / "calculator.evalset.json")
FAST = ["--bootstrap-resamples", "0"]
# Every selector kind where results are: the output dir's files, and a store (whose results have no file).
SELECTORS = [(kind, where) for where in ("files", "store") for kind in ("file", "id", "label", "latest")]
SELECTORS.remove(("file", "store"))


def _invoke(*args: str) -> tuple[int, str]:
    ran = CliRunner().invoke(app, list(args))
    return ran.exit_code, ran.output


def _eval(agent: str, label: str, where: list[str]) -> str:
    code, output = _invoke("eval", agent, EVALSET, "--label", label, *where, *FAST)
    assert code in (0, 1), output
    found = re.search(r"\(result (calculator_calculator_[0-9a-f-]+)\)", output)
    assert found is not None, output
    return found.group(1)


@pytest.fixture(scope="module")
def saved(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """Two runs saved under an output dir and two in a store: env=prod (every case passes), then env=staging
    (the bug: two cases fail), the newest."""
    tmp = tmp_path_factory.mktemp("selectors")
    out, store = tmp / "out", f"sqlite:///{tmp / 'r.db'}"
    ids = {
        "prod": _eval(GOOD, "env=prod", ["--output-dir", str(out)]),
        "staging": _eval(BROKEN, "env=staging", ["--output-dir", str(out)]),
        "stored_prod": _eval(GOOD, "env=prod", ["--store", store]),
        "stored_staging": _eval(BROKEN, "env=staging", ["--store", store]),
    }
    return {**ids, "out": str(out), "store": store, "db": str(tmp / "r.db")}


def _selector(saved: dict[str, str], kind: str, run: str, where: str) -> str:
    """How ``kind`` names the ``run`` (``prod`` / ``staging``; ``latest`` is staging, the newest)."""
    stored = where == "store"
    result_id = saved[f"stored_{run}" if stored else run]
    if kind == "file":
        return str(Path(saved["out"]) / "calculator" / f"{result_id}.evalset_result.json")
    return {"id": result_id, "label": f"label:env={run}", "latest": "latest"}[kind]


def _where(saved: dict[str, str], where: str, copy: Path | None = None) -> list[str]:
    """Where the command reads: the output dir or the store (``copy``: a copy of it there, for a command that
    saves a result and would change what ``latest`` is for the others)."""
    if copy is not None:
        if where == "store":
            with sqlite3.connect(saved["db"]) as source, sqlite3.connect(copy.with_suffix(".db")) as target:
                source.backup(target)  # with what the write-ahead log still holds
            return ["--store", f"sqlite:///{copy.with_suffix('.db')}"]
        shutil.copytree(saved["out"], copy)
        return ["--output-dir", str(copy)]
    return ["--store", saved["store"]] if where == "store" else ["--output-dir", saved["out"]]


@pytest.mark.parametrize(("kind", "where"), SELECTORS)
def test_compare(saved: dict[str, str], kind: str, where: str) -> None:
    base = _selector(saved, "label" if kind == "latest" else kind, "prod", where)
    new = _selector(saved, kind, "staging", where)
    code, output = _invoke("compare", base, new, *_where(saved, where), *FAST, "--json")
    assert code == 1, output
    doc = json.loads(output[output.index("{\n") :])
    prefix = "stored_" if where == "store" else ""
    assert (doc["base"]["evalSetResultId"], doc["new"]["evalSetResultId"]) == (
        saved[f"{prefix}prod"],
        saved[f"{prefix}staging"],
    )
    assert [c["evalId"] for c in doc["cases"] if c["change"] == "broken"] == [
        "calc_natural_multiply",
        "calc_multi_turn",
    ]


@pytest.mark.parametrize(("kind", "where"), SELECTORS)
def test_eval_baseline(saved: dict[str, str], kind: str, where: str, tmp_path: Path) -> None:
    # The calculator against the staging run (latest: the newest before this run): two cases fixed.
    baseline = _selector(saved, kind, "staging", where)
    code, output = _invoke(
        "eval", GOOD, EVALSET, "--baseline", baseline, *_where(saved, where, tmp_path / "out"), *FAST
    )
    assert code == 0, output
    staging = saved["stored_staging" if where == "store" else "staging"]
    assert f"Compared with {staging}: 2 fixed, 0 broken" in output


@pytest.mark.parametrize(("kind", "where"), SELECTORS)
def test_plan(saved: dict[str, str], kind: str, where: str) -> None:
    code, output = _invoke("plan", _selector(saved, kind, "staging", where), *_where(saved, where), "--json")
    assert code == 0, output
    rates = [e["mean"] for e in json.loads(output)["estimates"] if e["name"] == "pass rate (runs)"]
    assert rates == [pytest.approx(4 / 6)]  # the staging run's pass rate, not prod's 1.0


@pytest.mark.parametrize(("kind", "where"), SELECTORS)
def test_show(saved: dict[str, str], kind: str, where: str) -> None:
    code, output = _invoke("show", _selector(saved, kind, "staging", where), *_where(saved, where), *FAST)
    assert code == 1, output  # the staging run failed two cases
    assert f"(result {saved['stored_staging' if where == 'store' else 'staging']})" in output


@pytest.mark.parametrize(("kind", "where"), SELECTORS)
def test_calibrate(saved: dict[str, str], kind: str, where: str) -> None:
    selector = _selector(saved, kind, "staging", where)
    code, output = _invoke("calibrate", selector, *_where(saved, where), "--format", "json")
    assert code == 0, output
    assert json.loads(output)["results"] == [saved["stored_staging" if where == "store" else "staging"]]


def test_bad_selectors_name_themselves(saved: dict[str, str], tmp_path: Path) -> None:
    out = tmp_path / "out"
    shutil.copytree(saved["out"], out)
    shutil.copytree(out / "calculator", out / "other")  # every id now in two apps
    missing = str(tmp_path / "missing.json")
    where = ["--output-dir", str(out)]
    cases = [  # a pattern of the one line (compare looks for a label: side among the other side's eval set)
        ("label:env=dev", rf"label:env=dev: no result( of eval set 'calculator')? with these labels under {out}$"),
        ("label:env", re.escape("'label:env': label 'env' is not KEY=VALUE") + "$"),
        (saved["prod"], re.escape(f"{saved['prod']}: several results have this id: ")),
        (missing, re.escape(f"{missing}: no such file") + "$"),
        ("nope", re.escape(f"nope: no such file, and no result with this id under {out}") + "$"),
    ]
    staging = str(out / "calculator" / f"{saved['staging']}.evalset_result.json")
    commands = [
        ["compare", "{}", staging],
        ["compare", staging, "{}"],
        ["plan", "{}"],
        ["show", "{}"],
        ["calibrate", "{}"],
        ["eval", GOOD, EVALSET, "--baseline", "{}"],
    ]
    for command in commands:
        for selector, message in cases:
            code, output = _invoke(*(selector if arg == "{}" else arg for arg in command), *where)
            assert code == 2 and re.match(f"error: {message}", output, re.M), (command, selector, output)
            assert output.count("\n") == 1, output
    code, output = _invoke("compare", "latest", "latest", *where)
    assert (code, output) == (
        2,
        "error: BASE and NEW are both 'latest': name one of them by file, id or label:KEY=VALUE\n",
    )
    code, output = _invoke("show", "latest", "--output-dir", str(tmp_path / "empty"))
    assert (code, output) == (2, f"error: latest: no result under {tmp_path / 'empty'}\n")
    store = ["--store", saved["store"]]
    code, output = _invoke("plan", "label:env=dev", *store)
    assert code == 2 and output.startswith("error: label:env=dev: no result with these labels in store sqlite:///")
    code, output = _invoke("eval", GOOD, EVALSET, "--baseline", "latest", "--app-name", "nobody", *store)
    assert code == 2 and output.startswith("error: latest: no result in store sqlite:///"), output
