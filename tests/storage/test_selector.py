"""Result selectors: parsing (files, ids, ``label:``, ``latest``), resolving against the result files under a folder
(ids, the newest match of labels / eval set / app, exclusions) and the pair of a comparison, with one-line errors."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from agentgauge.errors import InputError, NotFoundError
from agentgauge.formats import save_result
from agentgauge.model import EvalSetResult, RunMetadata
from agentgauge.storage import (
    ResultFiles,
    SelectorKind,
    Wanted,
    parse_result_selector,
    resolve_pair,
    resolve_result,
)


def _save(root: Path, app: str, result_id: str, eval_set: str, age: int, **labels: str) -> Path:
    """A result file ``root/app/<id>.evalset_result.json``, ``age`` seconds old."""
    path = root / app / f"{result_id}.evalset_result.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    result = EvalSetResult(
        eval_set_result_id=result_id, eval_set_id=eval_set, run_metadata=RunMetadata(labels=labels) if labels else None
    )
    save_result(result, path)
    stamp = 1_700_000_000 - age
    os.utime(path, (stamp, stamp))
    return path


@pytest.fixture
def root(tmp_path: Path) -> Path:
    """Results of two apps: calc's set ``s`` (prod older, staging newer, one unlabelled newest) and set ``t``."""
    root = tmp_path / "results"
    _save(root, "calc", "calc_s_1", "s", 50, env="prod")
    _save(root, "calc", "calc_s_2", "s", 40, env="staging", team="core")
    _save(root, "calc", "calc_s_3", "s", 30)
    _save(root, "calc", "calc_t_1", "t", 20, env="prod")
    _save(root, "other", "other_s_1", "s", 10, env="prod")
    (root / "calc" / "broken.evalset_result.json").write_text("{")  # newest of all, unreadable: skipped
    return root


def test_parse_every_kind(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    Path("latest").mkdir()  # an existing path always wins
    assert parse_result_selector("latest").kind is SelectorKind.FILE
    assert parse_result_selector("latest", files=False).kind is SelectorKind.LATEST
    Path("latest").rmdir()
    table = {
        "latest": SelectorKind.LATEST,
        "label:env=prod": SelectorKind.LABELS,
        "calc_s_1": SelectorKind.ID,
        "dir/missing.json": SelectorKind.FILE,
        "missing.json": SelectorKind.FILE,
        "a\\b": SelectorKind.FILE,
    }
    assert {text: parse_result_selector(text).kind for text in table} == table
    assert parse_result_selector("label:env=prod,team=core").labels == {"env": "prod", "team": "core"}
    assert (
        parse_result_selector("dir/x.json", files=False).kind is SelectorKind.ID
    )  # an HTTP request never names a file


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("label:", "'label:': no label given; expected label:KEY=VALUE[,KEY=VALUE...]"),
        ("label:env", "'label:env': label 'env' is not KEY=VALUE"),
        ("label:a b=c", "'label:a b=c': label 'a b=c': label key 'a b' is not valid"),
        ("", "an empty result name: give a result file, a result id, label:KEY=VALUE or latest"),
        ("  ", "an empty result name"),
    ],
)
def test_bad_selectors(text: str, message: str) -> None:
    with pytest.raises(InputError) as caught:
        parse_result_selector(text)
    assert str(caught.value).startswith(message)


_KEY = st.from_regex(r"[A-Za-z0-9][A-Za-z0-9_.\-/]{0,10}", fullmatch=True)
_VALUE = st.text(st.characters(blacklist_characters=",\x00", blacklist_categories=("Cs",)), max_size=12)


@given(st.dictionaries(_KEY, _VALUE, min_size=1, max_size=4))
def test_label_selectors_round_trip(labels: dict[str, str]) -> None:
    text = "label:" + ",".join(f"{k}={v}" for k, v in labels.items())
    selector = parse_result_selector(text, files=False)
    assert selector.kind is SelectorKind.LABELS and selector.labels == labels


@given(st.text(st.characters(blacklist_characters="/\\\x00", blacklist_categories=("Cs",)), min_size=1, max_size=30))
def test_any_other_name_is_an_id(text: str) -> None:
    if not text.strip() or text == "latest" or text.startswith("label:") or text.endswith(".json"):
        return
    assert parse_result_selector(text, files=False).kind is SelectorKind.ID


def test_ids_and_newest_picks(root: Path) -> None:
    files = ResultFiles(root)
    assert resolve_result("calc_s_2", files).path == root / "calc" / "calc_s_2.evalset_result.json"
    assert resolve_result("latest", files).source.endswith("broken.evalset_result.json")  # newest file, not read
    assert resolve_result("latest", files, eval_set_id="s").source.endswith("other_s_1.evalset_result.json")
    assert resolve_result("latest", ResultFiles(root, "calc"), eval_set_id="s").load().eval_set_result_id == "calc_s_3"
    picked = resolve_result("label:env=prod", files, eval_set_id="s", exclude=["other_s_1"])
    assert picked.load().eval_set_result_id == "calc_s_1" and picked.app_name == "calc"
    assert resolve_result("label:env=prod", files).load().eval_set_result_id == "other_s_1"
    assert resolve_result("label:team=core,env=staging", files).load().eval_set_result_id == "calc_s_2"
    assert files.newest(Wanted({"env": "dev"})) is None


def test_failures_name_the_selector(root: Path, tmp_path: Path) -> None:
    files = ResultFiles(root)
    _save(root, "other", "calc_s_1", "s", 5)  # the same id in two apps
    cases: list[tuple[str, dict[str, object], str]] = [
        ("nope", {}, f"nope: no such file, and no result with this id under {root}"),
        ("calc_s_1", {}, "calc_s_1: several results have this id: "),
        ("label:env=dev", {}, f"label:env=dev: no result with these labels under {root}"),
        ("label:env=prod", {"eval_set_id": "u"}, "label:env=prod: no result of eval set 'u' with these labels under"),
        (
            "latest",
            {"eval_set_id": "t", "exclude": ["calc_t_1"]},
            "latest: no result of eval set 't' besides 'calc_t_1'",
        ),
        (str(tmp_path / "missing.json"), {}, f"{tmp_path / 'missing.json'}: no such file"),
        (str(root), {}, f"{root}: not a result file"),
    ]
    for text, limits, message in cases:
        with pytest.raises((InputError, NotFoundError)) as caught:
            resolve_result(text, files, **limits)  # type: ignore[arg-type]
        assert str(caught.value).startswith(message), (text, str(caught.value))
        assert "\n" not in str(caught.value)
    assert resolve_result("calc_s_1", ResultFiles(root, "other")).load().eval_set_id == "s"  # --app-name chooses
    with pytest.raises(InputError, match=f"no result of app 'calc' with this id under {root}"):
        resolve_result("other_s_1", ResultFiles(root, "calc"))
    assert ResultFiles(tmp_path / "absent").newest(Wanted()) is None


def test_pairs_pick_from_the_other_side(root: Path) -> None:
    files = ResultFiles(root, "calc")
    named = str(root / "calc" / "calc_t_1.evalset_result.json")

    def ids(base: str, new: str) -> tuple[str, str]:
        before, after = resolve_pair(base, new, files)
        return before.load().eval_set_result_id, after.load().eval_set_result_id

    # Two label: sides: BASE is the newest match, NEW the newest match of BASE's eval set.
    assert ids("label:env=staging", "label:env=prod") == ("calc_s_2", "calc_s_1")
    assert ids("label:env=prod", "label:env=prod") == ("calc_t_1", "calc_t_1")
    assert ids("label:env=prod", named) == ("calc_t_1", "calc_t_1")  # the prod run of NEW's eval set
    assert ids("calc_s_1", "latest") == ("calc_s_1", "calc_s_3")
    assert ids("latest", "calc_s_3") == ("calc_s_2", "calc_s_3")  # latest besides NEW: the run before it
    assert ids("label:env=staging", "latest") == ("calc_s_2", "calc_s_3")
    assert ids("latest", "label:env=staging") == ("calc_s_3", "calc_s_2")  # the label: side is picked first
    with pytest.raises(InputError, match=r"^BASE and NEW are both 'latest'"):
        resolve_pair("latest", "latest", files)
    with pytest.raises(NotFoundError, match=r"^latest: no result of eval set 't' besides 'calc_t_1' under"):
        resolve_pair(named, "latest", files)
