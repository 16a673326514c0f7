"""Synthetic, seed-determined eval sets for the benchmarks (stdlib only, so the peer virtualenv can use it too).

One logical data set is written in two encodings (native camelCase and Google ADK snake_case), each as a *golden*
("expected") set and as a *recorded* ("actual") twin in which a fraction of the turns was perturbed in one of five
ways: a changed argument leaf, two calls exchanged, a call dropped, a call added, a reworded answer. Recorded call ids
never equal golden ids, so a scorer that leaned on ids would be caught.

    python benchmarks/gen.py --n 1000 --seed 11 --out /tmp/data

The same ``--n/--seed/--mutate-frac`` always produce byte-identical files.
"""

from __future__ import annotations

import argparse
import copy
import hashlib
import json
import random
import sys
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

DEFAULT_SEED = 11
DEFAULT_MUTATE_FRAC = 0.3
EPOCH = 1_700_000_000.0
APP = "gauge_bench"
ACTOR = "bench_tester"

# Twenty tools of a facilities / logistics / records desk.
TOOLS = (
    "catalog_lookup",
    "reserve_room",
    "irrigation_start",
    "thermostat_read",
    "thermostat_write",
    "sensor_list",
    "itinerary_plan",
    "parcel_track",
    "case_open",
    "units_convert",
    "invoice_fetch",
    "invoice_pay",
    "contact_find",
    "reply_draft",
    "address_geocode",
    "tide_forecast",
    "archive_query",
    "results_rank",
    "table_export",
    "team_notify",
)
FIELDS = (
    "title",
    "isbn",
    "branch",
    "zone",
    "target_c",
    "window",
    "radius_km",
    "tracking",
    "severity",
    "labels",
    "unit_from",
    "unit_to",
    "value",
    "invoice",
    "account",
    "recipients",
    "body",
    "coords",
    "constraints",
    "paging",
    "flags",
    "locale",
)
# Answer words; stems shared by several forms make the stemmer matter for ROUGE.
_WORDS = (
    "i we you it they the a one some every no more fewer most valve valves pump pumps pumped pumping sensor "
    "sensors reading readings read parcel parcels courier depot depots shelf shelves archive archived "
    "archiving record records recorded invoice invoices paid paying payment ledger room rooms reserve "
    "reserved reserving floor floors garden gardens water watered watering tide tides harbour coast "
    "north south east west inland level levels rising fell falling steady warm warmer cool cooler "
    "humid dry heat heating cooled cooling window schedule scheduled scheduling hour hours minute minutes "
    "monday friday weekend noon dawn dusk route routes routed routing van truck driver drivers "
    "late early ready pending closed open opened opening queue queued ticket tickets escalate escalated "
    "team teams owner owners note notes noted draft drafted reply replied export exported table tables "
    "rank ranked ranking score scores list listed match matched matching is are was were has have will "
    "should can must may not also then so because and or but after before until since near above "
    "below inside outside within about per of in on at to for from with by"
)
LEXICON = tuple(_WORDS.split())
# Reword table: true synonyms (change the stem) and inflections (the stemmer folds them back together).
REWORD = {
    "valve": "tap",
    "valves": "taps",
    "pump": "compressor",
    "reading": "measurement",
    "readings": "measurements",
    "parcel": "package",
    "parcels": "packages",
    "courier": "carrier",
    "depot": "warehouse",
    "shelf": "rack",
    "archived": "stored",
    "invoice": "bill",
    "invoices": "bills",
    "paid": "settled",
    "reserve": "book",
    "reserved": "booked",
    "garden": "yard",
    "rising": "climbing",
    "steady": "stable",
    "warm": "mild",
    "cool": "chilly",
    "route": "path",
    "late": "delayed",
    "ready": "prepared",
    "ticket": "case",
    "team": "crew",
    "note": "remark",
    "draft": "outline",
    "reply": "answer",
    "rank": "order",
    "pumps": "pumped",
    "records": "recording",
    "rooms": "room",
    "tides": "tide",
    "levels": "level",
    "hours": "hour",
    "queued": "queue",
    "ranked": "ranking",
    "watered": "watering",
}
OPENERS = ("Alright,", "Okay,", "So,", "Right,", "Well,")
MUTATIONS = ("argument", "reorder", "drop_call", "add_call", "reword")


@dataclass
class Call:
    """One tool call of the logical model."""

    ident: str
    name: str
    args: dict[str, Any]
    output: dict[str, Any]


@dataclass
class Turn:
    """One user turn: the question, the calls made for it and the final answer."""

    ident: str
    question: str
    answer: str
    calls: list[Call] = field(default_factory=list)


@dataclass
class Dataset:
    """The golden cases, their recorded twins and how many turns got each perturbation."""

    golden: list[list[Turn]]
    recorded: list[list[Turn]]
    tally: Counter[str]


class Synth:
    """Draws every value from one ``random.Random`` so a seed fixes the whole data set."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)

    def leaf(self) -> Any:
        roll = self.rng.random()
        if roll < 0.3:
            return "-".join(self.rng.choice(LEXICON) for _ in range(self.rng.randint(1, 2)))
        if roll < 0.55:
            return self.rng.randint(0, 9999)
        if roll < 0.75:
            return round(self.rng.uniform(-50.0, 500.0), 3)
        if roll < 0.85:
            return self.rng.choice((True, False))
        if roll < 0.9:
            return None
        return f"{self.rng.choice('ABCDEFGH')}{self.rng.randint(100, 999)}/{self.rng.randint(1, 99)}"

    def node(self, depth: int) -> Any:
        roll = self.rng.random()
        if depth < 3 and roll < 0.18:
            keys = self.rng.sample(FIELDS, self.rng.randint(1, 3))
            return {k: self.node(depth + 1) for k in keys}
        if depth < 3 and roll < 0.3:
            return [self.node(depth + 1) for _ in range(self.rng.randint(0, 3))]
        return self.leaf()

    def arguments(self) -> dict[str, Any]:
        keys = self.rng.sample(FIELDS, self.rng.randint(1, 4))
        return {k: self.node(0) for k in keys}

    def output(self, tool: str) -> dict[str, Any]:
        return {
            "ok": self.rng.random() < 0.85,
            "source": tool,
            "rows": [self.arguments() for _ in range(self.rng.randint(0, 2))],
            "elapsed_ms": self.rng.randint(1, 900),
        }

    def answer(self) -> str:
        words: list[str] = []
        target = self.rng.randint(20, 80)
        start = True
        while len(words) < target:
            word = self.rng.choice(LEXICON)
            if self.rng.random() < 0.04:
                word = f"{self.rng.randint(2, 400)}"
            if start:
                word = word[:1].upper() + word[1:]
                start = False
            if len(words) == target - 1 or self.rng.random() < 0.12:
                word += self.rng.choice(".!.") if len(words) > 3 else ""
                start = word.endswith((".", "!"))
            elif self.rng.random() < 0.05:
                word += ";"
            words.append(word)
        if not words[-1].endswith((".", "!")):
            words[-1] += "."
        return " ".join(words)

    def question(self, case: int, turn: int, calls: list[Call]) -> str:
        asks = " and ".join(c.name.replace("_", " ") for c in calls) or "nothing in particular"
        detail = " ".join(self.rng.choice(LEXICON) for _ in range(self.rng.randint(5, 15)))
        return f"Ticket {case}.{turn}: could you handle {asks}? Context: {detail}."

    def golden(self, n: int, turns_per_case: int | None = None) -> list[list[Turn]]:
        cases: list[list[Turn]] = []
        for c in range(n):
            turns: list[Turn] = []
            count = self.rng.randint(1, 3)  # drawn either way, so a fixed count keeps the rest of the stream
            for t in range(turns_per_case or count):
                calls = []
                for k in range(self.rng.randint(0, 6)):
                    name = self.rng.choice(TOOLS)
                    calls.append(Call(f"g{c}_{t}_{k}", name, self.arguments(), self.output(name)))
                turns.append(Turn(f"c{c}-t{t}", self.question(c, t, calls), self.answer(), calls))
            cases.append(turns)
        return cases


def _leaves(value: Any, trail: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    if isinstance(value, dict) and value:
        return [p for k, v in value.items() for p in _leaves(v, (*trail, k))]
    if isinstance(value, list) and value:
        return [p for i, v in enumerate(value) for p in _leaves(v, (*trail, i))]
    return [trail]


def _bump(value: Any) -> Any:
    if value is None:
        return 0
    if isinstance(value, bool):
        return not value
    if isinstance(value, int):
        return value + 7
    if isinstance(value, float):
        return round(value + 1.5, 3)
    if isinstance(value, str):
        return value + "-x"
    return "altered"  # an empty dict or list becomes a scalar


def _tweak_argument(synth: Synth, calls: list[Call]) -> None:
    call = synth.rng.choice(calls)
    trail = synth.rng.choice(_leaves(call.args))
    holder: Any = call.args
    for step in trail[:-1]:
        holder = holder[step]
    holder[trail[-1]] = _bump(holder[trail[-1]])


def _reword(synth: Synth, text: str) -> str:
    out: list[str] = []
    for token in text.split(" "):
        stem = token.rstrip(".!;")
        tail = token[len(stem) :]
        roll = synth.rng.random()
        if roll < 0.06 and out:
            out[-1] += tail
            continue
        lower = stem.lower()
        if lower in REWORD and roll < 0.7:
            new = REWORD[lower]
            stem = new[:1].upper() + new[1:] if stem[:1].isupper() else new
        elif roll < 0.15:
            stem = synth.rng.choice(LEXICON)
        out.append(stem + tail)
    if synth.rng.random() < 0.4 or out == text.split(" "):
        out.insert(0, synth.rng.choice(OPENERS))  # also guarantees that a reworded answer differs
    return " ".join(out)


def _perturb(synth: Synth, case: int, turn: Turn) -> str:
    kind = synth.rng.choice(MUTATIONS)
    calls = turn.calls
    distinct = [(i, j) for i in range(len(calls)) for j in range(i + 1, len(calls)) if _differ(calls[i], calls[j])]
    if kind == "reorder" and not distinct:
        kind = "argument" if calls else "add_call"
    if kind in ("argument", "drop_call") and not calls:
        kind = "add_call"
    if kind == "argument":
        _tweak_argument(synth, calls)
    elif kind == "reorder":
        i, j = synth.rng.choice(distinct)
        calls[i], calls[j] = calls[j], calls[i]
    elif kind == "drop_call":
        calls.pop(synth.rng.randrange(len(calls)))
    elif kind == "add_call":
        name = synth.rng.choice(TOOLS)
        extra = Call(f"r{case}_{turn.ident}_extra", name, synth.arguments(), synth.output(name))
        calls.insert(synth.rng.randint(0, len(calls)), extra)
    else:
        turn.answer = _reword(synth, turn.answer)
    return kind


def _differ(a: Call, b: Call) -> bool:
    return a.name != b.name or a.args != b.args


def build(
    n: int, seed: int = DEFAULT_SEED, mutate_frac: float = DEFAULT_MUTATE_FRAC, turns: int | None = None
) -> Dataset:
    """The golden cases and their recorded twins (a separate stream, seed + 1, draws the perturbations); ``turns``:
    that many turns in every case (default 1-3 at random)."""
    golden = Synth(seed).golden(n, turns)
    recorded = copy.deepcopy(golden)
    synth = Synth(seed + 1)
    tally: Counter[str] = Counter()
    for c, turns in enumerate(recorded):
        for turn in turns:
            for call in turn.calls:
                call.ident = "r" + call.ident[1:]
            if synth.rng.random() < mutate_frac:
                tally[_perturb(synth, c, turn)] += 1
            else:
                tally["same"] += 1
    return Dataset(golden, recorded, tally)


def native_form(cases: list[list[Turn]], set_id: str, note: str) -> dict[str, Any]:
    """The camelCase native eval set."""
    return {
        "evalSetId": set_id,
        "name": set_id,
        "description": note,
        "evalCases": [
            {
                "evalId": f"case{c:05d}",
                "conversation": [
                    {
                        "invocationId": turn.ident,
                        "userContent": {"role": "user", "content": turn.question},
                        "finalResponse": {"role": "assistant", "content": turn.answer},
                        "tools": [
                            {"id": k.ident, "name": k.name, "arguments": k.args, "result": k.output} for k in turn.calls
                        ],
                        "creationTimestamp": EPOCH + c + t * 0.25,
                    }
                    for t, turn in enumerate(turns)
                ],
                "sessionInput": {"appName": APP, "userId": ACTOR, "state": {}},
                "creationTimestamp": EPOCH + c,
            }
            for c, turns in enumerate(cases)
        ],
        "creationTimestamp": EPOCH,
    }


def adk_form(cases: list[list[Turn]], set_id: str, note: str) -> dict[str, Any]:
    """The snake_case ADK EvalSet (function calls in ``intermediate_data``)."""

    def content(text: str, role: str) -> dict[str, Any]:
        return {"role": role, "parts": [{"text": text}]}

    return {
        "eval_set_id": set_id,
        "name": set_id,
        "description": note,
        "eval_cases": [
            {
                "eval_id": f"case{c:05d}",
                "conversation": [
                    {
                        "invocation_id": turn.ident,
                        "user_content": content(turn.question, "user"),
                        "final_response": content(turn.answer, "model"),
                        "intermediate_data": {
                            "tool_uses": [{"id": k.ident, "name": k.name, "args": k.args} for k in turn.calls],
                            "tool_responses": [
                                {"id": k.ident, "name": k.name, "response": k.output} for k in turn.calls
                            ],
                            "intermediate_responses": [],
                        },
                        "creation_timestamp": EPOCH + c + t * 0.25,
                    }
                    for t, turn in enumerate(turns)
                ],
                "session_input": {"app_name": APP, "user_id": ACTOR, "state": {}},
                "creation_timestamp": EPOCH + c,
            }
            for c, turns in enumerate(cases)
        ],
        "creation_timestamp": EPOCH,
    }


ADK_CRITERIA = {"criteria": {"tool_trajectory_avg_score": 1.0, "response_match_score": 0.8}}
NATIVE_METRICS = [
    {
        "metricName": "tool_trajectory_avg_score",
        "threshold": 1.0,
        "criterion": {"toolTrajectory": {"orderSensitive": True}},
    },
    {"metricName": "response_match_score", "threshold": 0.8},
]


def _encode(obj: Any, indent: int | None = None) -> bytes:
    text = json.dumps(obj, ensure_ascii=False, indent=indent, separators=(",", ":") if indent is None else None)
    return text.encode("utf-8")


def write(
    out: Path, n: int, seed: int = DEFAULT_SEED, mutate_frac: float = DEFAULT_MUTATE_FRAC, turns: int | None = None
) -> dict[str, Any]:
    """Write the six files for ``n`` cases (``turns`` turns each, default 1-3) under ``out`` and return the
    manifest (also written)."""
    data = build(n, seed, mutate_frac, turns)
    out = out.resolve()
    out.mkdir(parents=True, exist_ok=True)
    set_id = f"gauge_n{n}_s{seed}"
    files: dict[str, dict[str, Any]] = {}
    blobs = {
        "expected.native": native_form(data.golden, set_id, "golden turns"),
        "actual.native": native_form(data.recorded, set_id, "recorded turns"),
        "expected.adk": adk_form(data.golden, set_id, "golden turns"),
        "actual.adk": adk_form(data.recorded, set_id, "recorded turns"),
    }
    for key, obj in blobs.items():
        raw = _encode(obj)
        path = out / f"{set_id}.{key}.json"
        path.write_bytes(raw)
        files[key] = {"path": str(path), "bytes": len(raw), "sha256": hashlib.sha256(raw).hexdigest()}
    (out / "test_config.json").write_bytes(_encode(ADK_CRITERIA, 2))
    (out / "metrics.json").write_bytes(_encode(NATIVE_METRICS, 2))
    turns = [t for case in data.golden for t in case]
    manifest = {
        "n_cases": n,
        "seed": seed,
        "mutate_frac": mutate_frac,
        "n_invocations": len(turns),
        "n_tool_calls": sum(len(t.calls) for t in turns),
        "invocations_per_case": [len(case) for case in data.golden],
        "mutations": dict(sorted(data.tally.items())),
        "files": files,
        "test_config": str(out / "test_config.json"),
        "metrics": str(out / "metrics.json"),
    }
    (out / f"{set_id}.manifest.json").write_bytes(_encode(manifest, 2))
    return manifest


def main(argv: list[str] | None = None) -> int:
    """Command line: write a data set and print its manifest summary."""
    parser = argparse.ArgumentParser(description="Write a deterministic synthetic eval set (native + ADK forms).")
    parser.add_argument("--n", type=int, default=1000, help="number of cases")
    parser.add_argument("--seed", type=int, default=DEFAULT_SEED)
    parser.add_argument("--mutate-frac", type=float, default=DEFAULT_MUTATE_FRAC)
    parser.add_argument("--out", type=Path, default=Path("bench-data"))
    args = parser.parse_args(argv)
    manifest = write(args.out, args.n, args.seed, args.mutate_frac)
    summary = {k: v for k, v in manifest.items() if k not in ("files", "invocations_per_case")}
    print(json.dumps(summary))
    for key, info in manifest["files"].items():
        print(f"{key:16s} {info['bytes'] / 1e6:8.2f} MB  {info['path']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
