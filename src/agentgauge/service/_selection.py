"""Running a subset of an eval set's metrics: only some, all but some, or none of the LLM judges.

``agentgauge eval --only-metrics / --skip-metrics / --no-judges`` and ``AgentEvaluator(metric_selection=...)``
share :class:`MetricSelection`, so the deterministic part of a metrics file runs without a judge key.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from ..errors import InputError
from ..model import EvalMetric

__all__ = ["MetricSelection", "metric_needs_judge"]


def _names(value: Iterable[str] | str | None) -> tuple[str, ...] | None:
    if value is None:
        return None
    items = value.split(",") if isinstance(value, str) else list(value)
    return tuple(dict.fromkeys(name.strip() for name in items if name.strip()))


def metric_needs_judge(evaluators: object, metric: EvalMetric) -> bool:
    """True when ``metric`` is scored by an LLM judge: the registry's listing says so (``Registry.info``), else
    the evaluator's own ``needs_judge`` attribute. ADK custom-function metrics and unknown names are not judges."""
    from ..evaluators._custom import custom_function_path

    if custom_function_path(metric) is not None:
        return False
    info = getattr(evaluators, "info", None)
    if callable(info):
        try:
            return bool(info(metric.evaluator_key).needs_judge)
        except (LookupError, AttributeError):
            return False
    resolve = getattr(evaluators, "resolve", None)
    try:
        evaluator = resolve(metric) if callable(resolve) else None
    except Exception:  # an unknown metric fails at scoring time, as it would without a selection
        return False
    return bool(getattr(evaluator, "needs_judge", False))


@dataclass(frozen=True, slots=True)
class MetricSelection:
    """Which of an eval set's metrics a run scores with.

    - ``only``: these metric names (``None``: every metric); a comma-separated string is accepted too.
    - ``skip``: not these (a list, or a comma-separated string).
    - ``judges``: ``False`` leaves out every LLM-judge metric (see :func:`metric_needs_judge`), so no judge
      model, key or endpoint is needed.

    Names in ``only`` and ``skip`` must be metrics of the set: :meth:`select` raises
    :class:`~agentgauge.errors.InputError` naming the unknown ones (with a did-you-mean), and also when the
    selection leaves no metric to run. ``options`` are the names the messages use for ``only``, ``skip`` and
    ``judges=False`` (the CLI's ``--only-metrics``, ``--skip-metrics``, ``--no-judges``).
    """

    only: Sequence[str] | None = None
    skip: Sequence[str] = ()
    judges: bool = True
    options: tuple[str, str, str] = field(default=("only", "skip", "judges=False"), compare=False, repr=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "only", _names(self.only))
        object.__setattr__(self, "skip", _names(self.skip) or ())

    @property
    def selects_all(self) -> bool:
        """True when nothing is left out (the selection changes nothing)."""
        return self.only is None and not self.skip and self.judges

    def unknown(self, metrics: Iterable[EvalMetric]) -> str | None:
        """The message naming every name of ``only`` / ``skip`` that is not a metric of ``metrics`` (``None``
        when all are known)."""
        known = list(dict.fromkeys(m.metric_name for m in metrics))
        problems = []
        for option, names in ((self.options[0], self.only or ()), (self.options[1], self.skip)):
            for name in names:
                if name in known:
                    continue
                import difflib  # only for the message

                close = difflib.get_close_matches(name, known, n=1, cutoff=0.6)
                hint = f" (did you mean {close[0]!r}?)" if close else ""
                problems.append(f"{option}: unknown metric {name!r}{hint}")
        if not problems:
            return None
        return f"{'; '.join(problems)}; the metrics are: {', '.join(known) or 'none'}"

    def select(
        self, metrics: Sequence[EvalMetric], evaluators: object, *, file: str | None = None
    ) -> tuple[list[EvalMetric], list[str]]:
        """The metrics to run and the names left out, in the order of ``metrics``.

        ``evaluators`` (a registry) tells which metrics need a judge. Raises :class:`InputError` (naming ``file``)
        for an unknown name, or when metrics were configured but the selection leaves none.
        """
        problem = self.unknown(metrics)
        if problem is not None:
            raise InputError(problem, file=file)
        if self.selects_all:
            return list(metrics), []
        kept: list[EvalMetric] = []
        skipped: list[str] = []
        for metric in metrics:
            wanted = (self.only is None or metric.metric_name in self.only) and metric.metric_name not in self.skip
            if wanted and not self.judges and metric_needs_judge(evaluators, metric):
                wanted = False
            if wanted:
                kept.append(metric)
            else:
                skipped.append(metric.metric_name)
        if metrics and not kept:
            given = (self.only is not None, bool(self.skip), not self.judges)
            used = [option for option, on in zip(self.options, given, strict=True) if on]
            raise InputError(
                f"{' / '.join(used)} leave no metric to run; the metrics are: "
                + ", ".join(dict.fromkeys(m.metric_name for m in metrics)),
                file=file,
            )
        return kept, skipped
