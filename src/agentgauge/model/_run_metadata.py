"""What a run was: the user's labels (``eval --label KEY=VALUE``) and the provenance recorded automatically (git
state of the working directory, the agent's source hash, the models seen, the agentgauge version, start and end)."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Annotated

from pydantic import AfterValidator

from ._base import GaugeModel, omit_empty

__all__ = ["LABEL_KEY_PATTERN", "RunMetadata", "check_label_key", "parse_labels"]

LABEL_KEY_PATTERN = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.\-/]{0,62}")
"""A label key: a letter or digit, then up to 62 letters, digits, ``_``, ``.``, ``-`` or ``/`` (``env``,
``team/owner``, ``build.id``)."""

_LABEL_VALUE_MAX = 255  # the store's column width


def check_label_key(key: str) -> str:
    """``key`` when it is a valid label key (see :data:`LABEL_KEY_PATTERN`), else ``ValueError`` naming it."""
    if not LABEL_KEY_PATTERN.fullmatch(key):
        raise ValueError(
            f"label key {key!r} is not valid: use 1 to 63 letters, digits, '_', '.', '-' or '/', starting with a "
            "letter or digit"
        )
    return key


def _check_labels(labels: dict[str, str]) -> dict[str, str]:
    for key, value in labels.items():
        check_label_key(key)
        if len(value) > _LABEL_VALUE_MAX:
            raise ValueError(f"label {key!r}: the value has {len(value)} characters, at most {_LABEL_VALUE_MAX}")
    return labels


def parse_labels(given: Iterable[str]) -> dict[str, str]:
    """``KEY=VALUE`` strings as a dict (a later key replaces an earlier one); ``ValueError`` naming the first bad
    one (no ``=``, an invalid key or an overlong value)."""
    out: dict[str, str] = {}
    for text in given:
        key, sep, value = text.partition("=")
        if not sep:
            raise ValueError(f"label {text!r} is not KEY=VALUE")
        try:
            check_label_key(key)
            _check_labels({key: value})
        except ValueError as exc:
            raise ValueError(f"label {text!r}: {exc}") from None
        out[key] = value
    return out


Labels = Annotated[dict[str, str], AfterValidator(_check_labels)]


class RunMetadata(GaugeModel):
    """Labels and provenance of one evaluation run (``EvalSetResult.run_metadata``); every field is optional.

    - ``labels``: what the user attached (``eval --label env=prod``), to find and compare runs by.
    - ``git_commit`` / ``git_branch`` / ``git_dirty``: the working directory's repository when the run started
      (absent outside a git repository; ``git_branch`` absent on a detached head); ``git_dirty`` is true when
      tracked files had uncommitted changes.
    - ``agent``: the agent as given (a path, ``module:attr`` or a remote URL without credentials);
      ``agent_source_hash``: a sha256 prefix over the agent's Python sources (absent for remote agents and objects
      whose source cannot be found).
    - ``models``: the agent's models seen in the invocations' usage; ``judge_models``: the judge models configured
      for the run's metrics.
    - ``agentgauge_version``; ``started_at`` / ``finished_at``: seconds since the epoch.
    """

    labels: Labels = omit_empty(factory=dict)
    git_commit: str | None = omit_empty()
    git_branch: str | None = omit_empty()
    git_dirty: bool | None = omit_empty()
    agent: str | None = omit_empty()
    agent_source_hash: str | None = omit_empty()
    models: list[str] = omit_empty(factory=list)
    judge_models: list[str] = omit_empty(factory=list)
    agentgauge_version: str | None = omit_empty()
    started_at: float | None = omit_empty()
    finished_at: float | None = omit_empty()

    def matches(self, wanted: Mapping[str, str]) -> bool:
        """True when every ``wanted`` label is set to that value (an empty ``wanted`` matches every run)."""
        return all(self.labels.get(key) == value for key, value in wanted.items())
