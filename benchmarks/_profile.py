"""Profiles of agentgauge's side: py-spy (sampling, low distortion) when installed, else cProfile.

cProfile inflates code made of many tiny calls (``copy.deepcopy``, pydantic internals) several times over, so
py-spy is preferred; ``--install-peers`` puts it into the peer virtualenv as a tool.
"""

from __future__ import annotations

import collections
import io
import pstats
import shutil
from pathlib import Path

from _peers import VENV_DIR

# Per measurement: the frame under which its work runs (see ours.py) and frames of untimed set-up to leave out.
# The e2e anchor is the whole coroutine because pipeline tasks run from the event loop, not under evaluate().
ANCHORS: dict[str, tuple[str, tuple[str, ...]]] = {
    "score": ("run (ours.py", ()),
    "load": ("load_eval_set (", ()),
    "e2e": ("e2e (ours.py", ("load_eval_set (", "_warm_up (ours.py", "_find_and_load (", "put (agentgauge")),
}


def py_spy() -> str | None:
    """Path of a py-spy executable, if one is installed."""
    local = VENV_DIR / "bin" / "py-spy"
    return str(local) if local.exists() else shutil.which("py-spy")


def wrap(cmd: list[str], out: Path) -> list[str]:
    """``cmd`` (``python script args``) run under the profiler, writing its data to ``out`` (no suffix)."""
    spy = py_spy()
    if spy:
        return [spy, "record", "--rate", "400", "--format", "raw", "--output", str(out.with_suffix(".raw")), "--", *cmd]
    return [cmd[0], "-m", "cProfile", "-o", str(out.with_suffix(".prof")), *cmd[1:]]


def summarize(out: Path, kind: str, top: int = 20) -> str:
    """Text summary of the profile written for ``out``; saved as ``out.txt`` (the raw profile is then deleted)."""
    raw, prof = out.with_suffix(".raw"), out.with_suffix(".prof")
    if raw.exists():
        anchor, skip = ANCHORS.get(kind, ("", ()))
        text = summarize_samples(raw, anchor, skip, top)
    elif prof.exists():
        buf = io.StringIO()
        pstats.Stats(str(prof), stream=buf).strip_dirs().sort_stats("tottime").print_stats(top)
        text = "cProfile, sorted by own time\n" + buf.getvalue()
    else:
        text = "no profile was written"
    out.with_suffix(".txt").write_text(text)
    for data in (raw, prof):  # the summary is what is kept; raw samples are megabytes
        data.unlink(missing_ok=True)
    return text


def summarize_samples(path: Path, anchor: str, skip: tuple[str, ...], top: int) -> str:
    """Inclusive and own-time shares of functions in py-spy samples taken under ``anchor`` and not under ``skip``."""
    inclusive: collections.Counter[str] = collections.Counter()
    own: collections.Counter[str] = collections.Counter()
    total = 0
    for line in path.read_text().splitlines():
        stack, _, count = line.rpartition(" ")
        frames = stack.split(";")
        start = next((i for i, f in enumerate(frames) if anchor in f), None)
        if start is None or not count.isdigit() or any(s in f for f in frames for s in skip):
            continue
        frames = frames[start:]
        n = int(count)
        total += n
        own[frames[-1]] += n
        for name in {f.rsplit(":", 1)[0] for f in frames}:
            inclusive[name] += n
    if not total:
        return f"py-spy: no samples under {anchor!r}"
    lines = [f"py-spy, {total} samples under {anchor!r} (CPU time only; idle waits are not sampled)", "inclusive:"]
    lines += [f"  {c / total:6.1%}  {f}" for f, c in inclusive.most_common(top)]
    lines.append("own time (line level):")
    lines += [f"  {c / total:6.1%}  {f}" for f, c in own.most_common(top)]
    return "\n".join(lines) + "\n"
