"""The depth limit checked while parsing (orjson's own limit, reached by wrapping the value in arrays) refuses
exactly the values that walking the parsed value finds too deep."""

from __future__ import annotations

from typing import Any

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agentgauge.formats._jsonio import MAX_DEPTH, loads_within_depth, nests_deeper

_leaves = st.none() | st.booleans() | st.integers(-(2**63), 2**64 - 1) | st.text(max_size=5)
_values = st.recursive(
    _leaves, lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner, max_size=3),
    max_leaves=25,
)  # fmt: skip


def _nested(levels: int, leaf: bytes = b"1") -> bytes:
    """``levels`` containers, arrays and objects alternating, around ``leaf``."""
    opening = b"".join(b"[" if level % 2 == 0 else b'{"k":' for level in range(levels))
    closing = b"".join(b"]" if level % 2 == 0 else b"}" for level in reversed(range(levels)))
    return opening + leaf + closing


@pytest.mark.parametrize(
    ("levels", "limit", "refused"),
    [
        (0, 1, False),  # a scalar has no depth
        (1, 1, False),
        (2, 1, True),
        (MAX_DEPTH - 2, MAX_DEPTH - 2, False),  # an item two levels down in a document
        (MAX_DEPTH - 1, MAX_DEPTH - 2, True),
        (MAX_DEPTH, MAX_DEPTH, False),
        (MAX_DEPTH + 1, MAX_DEPTH, True),
        (1024, MAX_DEPTH, True),  # orjson's own limit
        (5000, MAX_DEPTH, True),  # beyond it
    ],
)
def test_the_limit_is_exact(levels: int, limit: int, refused: bool) -> None:
    data = _nested(levels)
    if refused:
        with pytest.raises(orjson.JSONDecodeError):
            loads_within_depth(data, limit)
    else:
        assert loads_within_depth(data, limit) == orjson.loads(data)


@pytest.mark.parametrize("data", [b"", b"  ", b"[1,", b'{"a": 1} x', b"[1] [2]", b"1],[2", b"nul"])
def test_what_is_not_json_is_refused(data: bytes) -> None:
    with pytest.raises(orjson.JSONDecodeError):
        loads_within_depth(data, MAX_DEPTH)


@settings(max_examples=300, deadline=None)
@given(_values, st.integers(1, 6))
def test_refuses_exactly_what_walking_the_value_finds_too_deep(value: Any, limit: int) -> None:
    data = orjson.dumps(value)
    if nests_deeper(value, limit):
        with pytest.raises(orjson.JSONDecodeError):
            loads_within_depth(data, limit)
    else:
        assert loads_within_depth(data, limit) == value
