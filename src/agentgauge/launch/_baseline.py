"""The result a request's run is compared with (its ``gate.baseline``): found before anything runs, compared with
each eval set's result as soon as that set has run, and the comparison's gate (``gate.fail_on``) judged at
``gate.alpha`` -- what ``agentgauge eval --baseline`` shows and sets its exit code from (see docs/compare.md)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..errors import InputError, NotFoundError
from ..storage import ResultFiles, parse_result_selector, resolve_result

if TYPE_CHECKING:  # pragma: no cover
    from ..compare import Comparison
    from ..run import EvaluationResult
    from ..storage import FoundResult, ResultCatalog, ResultSelector
    from ._checks import CheckedRequest
    from ._run import Note

__all__ = ["Baseline", "Compared", "load_baseline"]


@dataclass(frozen=True)
class Compared:
    """One eval set's result compared with the baseline: the comparison and how the baseline is named."""

    outcome: EvaluationResult
    comparison: Comparison
    label: str


@dataclass
class Baseline:
    """The baseline of a run (named by a file or an id: read before the run; by ``label:`` or ``latest``: picked
    for each eval set after its run, among the results of that eval set), the gate rule (``None``: the caller's
    verdict stays the cases') and the comparisons made with it so far."""

    selector: ResultSelector
    catalog: ResultCatalog
    found: FoundResult | None
    """The baseline named by a file or an id (``None`` for ``label:`` and ``latest``)."""
    fail_on: str | None
    alpha: float
    given_as: str
    """How messages name the baseline option (``--baseline``, ``baseline``)."""
    comparisons: list[Compared] = field(default_factory=list)

    @property
    def gated(self) -> bool:
        """Whether the comparisons' gate decides the verdict (a ``fail_on`` rule was given)."""
        return self.fail_on is not None

    @property
    def failed(self) -> bool:
        """True when a comparison fails its gate (by default: a case that passed in the baseline broke)."""
        return any(c.comparison.gate is not None and c.comparison.gate.failed for c in self.comparisons)

    def compared(self, outcome: EvaluationResult) -> Compared | None:
        """The comparison of ``outcome`` (``None``: not compared)."""
        return next((c for c in self.comparisons if c.outcome is outcome), None)

    def compare(self, outcome: EvaluationResult, *, several: bool, on_note: Note) -> None:
        """Compare ``outcome`` with the baseline when it applies: a named baseline, with one eval set always (a
        different set gets a note from the comparison), with several only its own eval set; a picked one, every
        eval set with the newest earlier result of that set (none: a note, no comparison)."""
        from ..compare import compare_results

        if self.found is not None and several and outcome.eval_set_id != self.found.load().eval_set_id:
            return
        against = self.found
        if against is None:
            new_id = outcome.eval_set_result.eval_set_result_id
            try:
                against = resolve_result(self.selector, self.catalog, eval_set_id=outcome.eval_set_id, exclude=[new_id])
            except (InputError, NotFoundError) as exc:
                on_note(f"Not compared with {self.given_as} {exc}")
                return
        new, before = outcome.eval_set_result, against.load()
        comparison = compare_results(
            before,
            new,
            base_source=against.source,
            new_source=new.eval_set_result_id or outcome.eval_set_id,
            alpha=self.alpha,
            fail_on=self.fail_on,
        )
        self.comparisons.append(Compared(outcome, comparison, before.eval_set_result_id or against.source))


def load_baseline(checked: CheckedRequest) -> Baseline | None:
    """The request's baseline, checked before anything runs (``None`` without one): a file or an id is read now; a
    ``label:`` or ``latest`` selector must match some result now (the newest of each eval set run is picked after
    its run). It is looked up in the request's SQL store (its ``results``), else among the result files under
    ``output_dir``. Bad input raises :class:`InputError` / :class:`NotFoundError`."""
    request = checked.request
    spec = request.gate.baseline
    if spec is None:
        return None
    selector = parse_result_selector(spec)
    catalog = _catalog(checked)
    found = resolve_result(selector, catalog)  # a picked one is only checked here: it is picked again per set
    if not selector.picks_newest:
        found.load()  # an invalid file is refused now, not after the run
    given_as = checked.surface.name("baseline")
    return Baseline(
        selector, catalog, None if selector.picks_newest else found, checked.fail_on, request.gate.alpha, given_as
    )


def _catalog(checked: CheckedRequest) -> ResultCatalog:
    """Where the baseline is looked up: the SQL store the results go to, else the result files."""
    request = checked.request
    results: Any = request.results
    if results is not None and hasattr(results, "store"):  # a SQL store's result manager
        from ..sqlstore import StoredResultCatalog

        return StoredResultCatalog(results, request.app_name)
    return ResultFiles(request.output_dir, request.app_name)
