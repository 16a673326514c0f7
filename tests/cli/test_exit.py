"""Objects a command leaves behind are never freed when the process ends right after it, and freed as usual
otherwise."""

from __future__ import annotations

import gc
import weakref

from agentgauge.cli import _exit


class _Thing:
    pass


def test_outside_the_entry_point_objects_are_freed_as_usual() -> None:
    thing = _Thing()
    ref = weakref.ref(thing)
    _exit.leave_to_the_os(thing)
    del thing
    gc.collect()
    assert ref() is None


def test_when_the_process_ends_after_the_command_objects_are_kept() -> None:
    frozen = gc.get_freeze_count()
    try:
        with _exit.process_ends_after_command():
            thing = _Thing()
            ref = weakref.ref(thing)
            _exit.leave_to_the_os(thing)
            del thing
            gc.collect()
            assert ref() is not None
        after = _Thing()
        after_ref = weakref.ref(after)
        _exit.leave_to_the_os(after)  # the block has ended: no longer kept
        del after
        gc.collect()
        assert after_ref() is None
    finally:
        if not frozen:
            gc.unfreeze()
