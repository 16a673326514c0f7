"""What the input checks find, as data: one :class:`InputProblem` per finding, gathered in an :class:`InputReport`.

A problem is an **error** when the tool whose file it is refuses the input (ADK's ``Invocation`` refuses an
unknown key) and a **warning** when that tool accepts it but it has no effect (ADK's ``EvalCase`` keeps unknown keys;
trpc-agent-go ignores them). A strict report (``--strict``) counts every warning as an error. Nothing here prints:
callers show the problems (one line each: file, JSON path, message) or answer them over HTTP.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from typing import Any, Literal

from ..errors import InputError

__all__ = ["InputProblem", "InputReport", "Severity", "did_you_mean"]

Severity = Literal["error", "warning"]


def did_you_mean(word: str, candidates: Iterable[str]) -> str | None:
    """The candidate closest to ``word`` (difflib's ratio at least 0.6), or ``None``."""
    import difflib

    found = difflib.get_close_matches(word, sorted(set(candidates)), n=1, cutoff=0.6)
    return found[0] if found else None


@dataclass(frozen=True, slots=True)
class InputProblem:
    """One finding: where (``file``, JSON ``path`` as spelled in the file), what (``message``) and how much it
    matters (``severity``); ``key`` and ``suggestion`` are set for an unknown key (``suggestion``: the closest known
    key, if any)."""

    file: str | None
    path: str
    message: str
    severity: Severity
    key: str | None = None
    suggestion: str | None = None

    @property
    def is_error(self) -> bool:
        """True for an error (the input is refused)."""
        return self.severity == "error"

    def line(self) -> str:
        """``file: path: message`` (the parts that are set)."""
        return ": ".join(part for part in (self.file, self.path, self.message) if part)

    def as_json(self) -> dict[str, Any]:
        """``{"file", "path", "message", "severity", "key", "didYouMean"}`` for HTTP answers."""
        return {
            "file": self.file,
            "path": self.path,
            "message": self.message,
            "severity": self.severity,
            "key": self.key,
            "didYouMean": self.suggestion,
        }


@dataclass
class InputReport:
    """The problems found in the inputs of one command or request, in the order they were found.

    ``strict``: every warning counts as an error, its message ending with `` (<strict_reason>)``.
    :meth:`raise_errors` refuses the inputs when there is any error; the warnings stay for the caller to show.
    A report is filled by one command or request at a time (not shared between threads).
    """

    strict: bool = False
    strict_reason: str = "strict"
    problems: list[InputProblem] = field(default_factory=list)
    _seen: set[InputProblem] = field(default_factory=set, repr=False)

    def add(self, problem: InputProblem) -> None:
        """Record one problem (a warning becomes an error in a strict report); the same problem found again (a
        metrics file shared by several eval sets) is recorded once."""
        if self.strict and not problem.is_error:
            problem = replace(problem, severity="error", message=f"{problem.message} ({self.strict_reason})")
        if problem not in self._seen:
            self._seen.add(problem)
            self.problems.append(problem)

    def extend(self, problems: Iterable[InputProblem]) -> None:
        """Record several problems."""
        for problem in problems:
            self.add(problem)

    def warn(self, file: str | None, path: str, message: str) -> None:
        """Record a warning that is not about a key (e.g. a judge metric without its judge model)."""
        self.add(InputProblem(file, path, message, "warning"))

    @property
    def errors(self) -> list[InputProblem]:
        """The problems that refuse the input."""
        return [p for p in self.problems if p.is_error]

    @property
    def warnings(self) -> list[InputProblem]:
        """The problems that do not."""
        return [p for p in self.problems if not p.is_error]

    def raise_errors(self) -> None:
        """Raise the :class:`InputError` of the first error (saying how many more there are), if any."""
        errors = self.errors
        if not errors:
            return
        first = errors[0]
        more = f" (and {len(errors) - 1} more {'error' if len(errors) == 2 else 'errors'})" if len(errors) > 1 else ""
        raise InputError(first.message + more, file=first.file, location=first.path or None)
