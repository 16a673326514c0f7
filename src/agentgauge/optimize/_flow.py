"""One optimisation from start to audit report: the baseline's evidence, the search, the candidate's evidence on
fresh runs, the gate, and what is written in ``--out``.

Each finished stage is recorded in ``state.json`` (the result files of the gate's evidence, the search's outcome),
so the same command run again after an interruption continues: finished stages are read back, the search continues
from the optimiser's own state, and candidate runs already made get their agent answers from the cache.
"""

from __future__ import annotations

import dataclasses
import json
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from ..compare import Comparison, compare_results, gate_report
from ..model import DEFAULT_CASE_STATUS, EvalSetResult
from ._audit import AuditReport, CandidateRecord, Spent, SplitEvidence, SplitRef, SplitScore, SurfaceRecord, split_score
from ._engine import RunOutcome
from ._inputs import Split
from ._patch import make_patch, patch_diff, patch_id
from ._prepare import Prepared
from ._search import (
    EvaluationTiming,
    ScoredBatch,
    SearchCandidate,
    SearchOutcome,
    SearchSession,
    SearchSettings,
    SplitName,
    scored_batch,
)
from ._surfaces import text_hash

__all__ = ["run_optimization"]

Note = Callable[[str], None]
_OUTCOME = "outcome.json"


@dataclasses.dataclass
class _Evidence:
    """A saved evaluation of the gate's evidence: its result and file."""

    result: EvalSetResult
    file: str | None


class _Run:
    """The state of one running optimisation."""

    def __init__(self, prepared: Prepared, note: Note) -> None:
        self.p = prepared
        self.note = note
        self.state: dict[str, Any] = prepared.out.state() or {}
        self.state.setdefault("fingerprint", prepared.fingerprint)
        self.state.setdefault("results", {})
        self.timings: list[EvaluationTiming] = [EvaluationTiming(**t) for t in self.state.get("timings", [])]
        self.search_seconds = float(self.state.get("search_seconds", 0.0))

    def save(self) -> None:
        self.state["timings"] = [t.model_dump() for t in self.timings]
        self.state["search_seconds"] = self.search_seconds
        self.p.out.save_state(self.state)

    def _timing(self, phase: str, split: str, outcome: RunOutcome, cases: int) -> None:
        runs = len(outcome.result.eval_case_results)
        timing = EvaluationTiming(phase=phase, split=split, cases=cases, case_runs=runs, seconds=outcome.seconds)
        timing.model_calls, timing.cached_runs = outcome.model_calls, outcome.cached
        self.timings.append(timing)

    async def evidence(self, role: str, texts: Mapping[str, str], split: Split) -> _Evidence:
        """The gate's evidence for ``role`` (``baseline`` / ``candidate``) on ``split``: saved earlier, or run now."""
        from ..formats import load_result

        key = f"{role}:{split.name}"
        saved = self.state["results"].get(key)
        if saved:
            try:
                return _Evidence(load_result(saved), saved)
            except Exception:  # a result file lost or torn since: run it again
                self.note(f"the saved {role} result on {split.name} cannot be read; running it again")
        p = self.p
        labels = [f"optimize={p.optimization_id}", f"role={role}", f"split={split.name}"]
        outcome = await p.runner.run(
            texts, split, role=f"gate:{key}", num_runs=p.request.num_runs, labels=labels, save=True
        )
        p.spending.proof_runs += len(outcome.result.eval_case_results)
        self._timing("gate", split.name, outcome, len(split.case_ids))
        self.state["results"][key] = outcome.result_file
        self.save()
        score = split_score(outcome.result, outcome.result_file, 0, 0)
        self.note(f"{role} on {split.name}: {score.passed_cases}/{score.cases} cases passed ({outcome.seconds:.1f} s)")
        return _Evidence(outcome.result, outcome.result_file)

    async def _evaluate(
        self, texts: Mapping[str, str], split_name: SplitName, case_ids: Sequence[str], feedback: bool
    ) -> ScoredBatch:
        p = self.p
        split = p.train if split_name == "train" else p.validation
        outcome = await p.runner.run(texts, split, role="search", case_ids=case_ids)
        p.spending.metric_calls += len(outcome.result.eval_case_results)
        self._timing("search", split_name, outcome, len(case_ids))
        return scored_batch(outcome.result.eval_case_results, outcome.cases, p.request.search.metric, feedback)

    async def _reflect(self, prompt: str) -> str:
        assert self.p.reflector is not None, "the optimizer said it does not use the reflection model"
        return await self.p.reflector.ask(prompt)

    async def search(self) -> SearchOutcome:
        """The search's outcome: saved earlier, or searched now."""
        p = self.p
        path = p.out.search_dir / _OUTCOME
        if self.state.get("search_done"):
            try:
                return _load_outcome(json.loads(path.read_bytes()))
            except (OSError, ValueError, TypeError, KeyError):
                self.note("the saved search outcome cannot be read; searching again")
        request = p.request
        calls = request.budget.metric_calls or request.search.max_metric_calls or 100
        settings = dataclasses.replace(request.search, max_metric_calls=calls, state_dir=p.out.search_dir / "state")
        session = SearchSession(
            p.surfaces.texts(),
            p.surfaces.surfaces,
            p.train.case_ids,
            p.validation.case_ids,
            settings,
            evaluate=self._evaluate,
            reflect=self._reflect,
            budget=request.budget.with_calls(calls),
            spending=p.spending,
            note=self.note,
        )
        self.note(f"searching with {p.optimizer.name} ({calls} metric calls at most)")
        started = time.perf_counter()
        try:
            outcome = await p.optimizer.search(session)
        except Exception as exc:  # a failing optimiser ends the search, not the optimisation: nothing to gate
            from .._util.redact import redact
            from ..errors import shorten

            self.search_seconds += time.perf_counter() - started
            why = shorten(redact(" ".join(f"{type(exc).__name__}: {exc}".split())))
            failure = f"the {p.optimizer.name} optimizer failed: {why}; run again to retry"
            self.note(failure)
            p.notes.append(failure)
            return SearchOutcome([SearchCandidate(p.surfaces.texts())], None, {"error": failure})
        self.search_seconds += time.perf_counter() - started
        from .._util.fileio import atomic_write

        atomic_write(path, json.dumps(dataclasses.asdict(outcome), default=str).encode("utf-8"))
        self.state["search_done"] = True
        self.save()
        return outcome


def _load_outcome(data: dict[str, Any]) -> SearchOutcome:
    candidates = [SearchCandidate(**c) for c in data["candidates"]]
    return SearchOutcome(candidates, data["best"], data.get("details") or {})


def _split_ref(split: Split) -> SplitRef:
    return SplitRef(
        name=split.name,
        eval_set_id=split.eval_set_id,
        file=str(split.path),
        case_ids=list(split.case_ids),
        metrics=[m.metric_name for m in split.metrics],
        metrics_source=split.metrics_source,
    )


def _score(evidence: _Evidence) -> SplitScore:
    from ..stats import current_bootstrap

    settings = current_bootstrap()
    return split_score(evidence.result, evidence.file, settings.resamples, settings.seed)


def _compare(base: _Evidence, new: _Evidence, alpha: float) -> Comparison:
    base_source, new_source = base.file or "baseline", new.file or "candidate"
    return compare_results(
        base.result, new.result, base_source=base_source, new_source=new_source, alpha=alpha, fail_on=None
    )


def _split_evidence(name: str, base: _Evidence, new: _Evidence, comparison: Comparison) -> SplitEvidence:
    from ..compare import ChangeKind

    def ids(kind: ChangeKind) -> list[str]:
        return [c.eval_id for c in comparison.cases if c.change is kind]

    return SplitEvidence(
        split=name,
        baseline=_score(base),
        candidate=_score(new),
        estimates=comparison.estimates,
        fixed=ids(ChangeKind.FIXED),
        broken=ids(ChangeKind.BROKEN),
        within_noise=ids(ChangeKind.WITHIN_NOISE),
    )


def _models(results: Sequence[EvalSetResult]) -> list[str]:
    from ..summary import case_usage

    seen: dict[str, None] = {}
    for result in results:
        for case in result.eval_case_results:
            seen.update(dict.fromkeys(case_usage(case).models))
    return list(seen)


def _candidates(outcome: SearchOutcome) -> list[CandidateRecord]:
    return [
        CandidateRecord(
            index=index,
            patch_id=patch_id(c.texts),
            search_score=c.score,
            parents=c.parents,
            sha256={sid: text_hash(text) for sid, text in c.texts.items()},
            proposed=index == outcome.best,
        )
        for index, c in enumerate(outcome.candidates)
    ]


def _settings(p: Prepared, search: SearchSettings) -> dict[str, Any]:
    request = p.request
    return {
        "seed": search.seed,
        "max_metric_calls": request.budget.metric_calls or search.max_metric_calls or 100,
        "minibatch": search.minibatch,
        "iterations": search.iterations,
        "batch_size": search.batch_size,
        "metric": search.metric or "passed",
        "num_runs": request.num_runs,
        "case_status": (request.case_status or DEFAULT_CASE_STATUS).value,
        "parallelism": request.parallelism,
        "alpha": p.alpha,
        "rules": request.rules.model_dump(),
        "surfaces": [s.surface_id for s in p.surfaces.surfaces],
    }


def _spent(p: Prepared, run: _Run, stopped_by: str | None) -> Spent:
    s = p.spending
    return Spent(
        metric_calls=s.metric_calls,
        gate_case_runs=s.proof_runs,
        model_calls=s.model_calls,
        agent_cost=s.agent_cost,
        agent_cost_missing=s.agent_cost_missing,
        reflection_calls=s.reflection_calls,
        reflection_cost=s.reflection_cost,
        judge_calls=s.judge_calls,
        judge_cost=s.judge_cost,
        total_cost=s.cost,
        currency=p.runner.prices.currency,
        seconds=s.seconds,
        search_seconds=run.search_seconds,
        stopped_by=stopped_by,
    )


async def run_optimization(prepared: Prepared, *, on_note: Note | None = None) -> AuditReport:
    """Run the prepared optimisation (see the module's description) and write its files in ``--out``."""
    from .._util.version import VERSION

    p = prepared
    run = _Run(p, on_note or (lambda _: None))
    base_texts = p.surfaces.texts()
    same = p.request.validation is None
    baseline = {"train": await run.evidence("baseline", base_texts, p.train)}
    baseline["validation"] = baseline["train"] if same else await run.evidence("baseline", base_texts, p.validation)
    outcome = await run.search()
    stopped_by = p.spending.exhausted(p.request.budget)
    budget = p.request.budget.with_calls(p.request.search.max_metric_calls or 100)
    report = AuditReport(
        optimization_id=p.optimization_id,
        created=time.time(),
        agentgauge_version=VERSION,
        agent=p.surfaces.spec,
        agent_identity=p.identity,
        app_name=p.app_name,
        optimizer=p.optimizer.name,
        settings=_settings(p, p.request.search),
        budget=budget.describe(),
        reflection_model=p.reflector.model if p.reflector is not None else None,
        train=_split_ref(p.train),
        validation=_split_ref(p.validation),
        baseline={name: _score(e) for name, e in baseline.items()},
        candidates=_candidates(outcome),
        proposed=outcome.best,
        notes=list(p.notes),
        search_details=outcome.details,
    )
    results = [e.result for e in baseline.values()]
    if outcome.best is not None:
        results += await _judge(run, report, outcome.candidates[outcome.best].texts, baseline, same)
    report.surfaces = _surface_records(p, report)
    report.models = _models(results)
    report.evaluations = run.timings
    report.spent = _spent(p, run, stopped_by)
    if report.patch is not None:
        p.out.write_patch(report.patch, report)
    p.out.write_audit(report)
    run.state["done"] = True
    run.save()
    return report


async def _judge(
    run: _Run, report: AuditReport, texts: Mapping[str, str], baseline: dict[str, _Evidence], same: bool
) -> list[EvalSetResult]:
    """Run the candidate's evidence, compare it with the baseline's and judge it by the gate's rules."""
    p = run.p
    candidate = {"train": await run.evidence("candidate", texts, p.train)}
    candidate["validation"] = candidate["train"] if same else await run.evidence("candidate", texts, p.validation)
    comparisons = {name: _compare(baseline[name], candidate[name], p.alpha) for name in ("train", "validation")}
    report.evidence = {
        name: _split_evidence(name, baseline[name], candidate[name], comparisons[name]) for name in comparisons
    }
    train = None if same else comparisons["train"]
    report.gate = gate_report(comparisons["validation"], p.request.rules, candidate["validation"].result, train=train)
    report.accepted = report.gate.accepted
    report.patch = make_patch(p.surfaces, texts)
    report.diff = patch_diff(p.surfaces.texts(), report.patch)
    return [e.result for e in candidate.values()]


def _surface_records(p: Prepared, report: AuditReport) -> list[SurfaceRecord]:
    changed = report.patch.texts if report.patch is not None else {}
    return [
        SurfaceRecord(
            surface_id=s.surface_id,
            kind=s.kind,
            owner=s.owner,
            text=s.text,
            sha256=s.sha256,
            proposed_sha256=text_hash(changed[s.surface_id]) if s.surface_id in changed else None,
        )
        for s in p.surfaces.surfaces
    ]
