"""The online rules file: every mistake is one line naming the file and the path; hostile files are refused before
anything is built; the seeded sampler is deterministic and fair; the hourly counters roll over."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agentgauge.errors import InputError
from agentgauge.online import load_rules, parse_rules, sampled
from agentgauge.online._limits import PeriodCounter

GOOD = b"rules:\n  - name: r\n    metrics: [{metricName: tool_call_count_v1}]\n"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (b"rules:\n  - name: r\n    sample_rate: 1.5\n    metrics: []\n", "rules[0].sample_rate: Input should be less"),
        (
            b"rules:\n  - name: r\n    metrics: [{metricName: a}]\n    smaple_rate: 1\n",
            "rules[0].smaple_rate: unknown key",
        ),
        (b"rules:\n  - name: 'a b'\n    metrics: [x]\n", "rules[0].name: String should match pattern"),
        (b"rules:\n  - name: r\n", "rules[0]: give reference-free metrics, or an app and eval_set"),
        (b"rules:\n  - name: r\n    eval_set: s\n", "rules[0]: eval_set needs app"),
        (GOOD + b"  - name: r\n    metrics: [{metricName: a}]\n", "rules: rule names must be unique: r used"),
        (b"rules: []\n", "rules: List should have at least 1 item"),
        (b"- just a list\n", "expected a YAML mapping with 'rules'"),
        (b"rules: [\n", "invalid YAML"),
        (
            b"rules:\n  - name: r\n    sinks: {webhook: {url: 'ftp://x'}}\n    metrics: [a]\n",
            "rules[0].sinks.webhook.url",
        ),
        (b"\xff\xfe r", "UTF-16"),
        (b"rules: \xc3\x28", "not UTF-8 text"),
    ],
)
def test_a_mistake_names_the_file_and_the_path(text: bytes, message: str) -> None:
    with pytest.raises(InputError) as info:
        parse_rules(text, "rules.yaml")
    assert str(info.value).startswith("rules.yaml"), str(info.value)
    assert message in str(info.value), str(info.value)


def test_hostile_files_are_refused_before_anything_is_built(tmp_path: Path) -> None:
    deep = b"rules: " + b"[" * 5000 + b"]" * 5000
    with pytest.raises(InputError, match="nested deeper than"):
        parse_rules(deep, "deep.yaml")
    with pytest.raises(InputError, match="at most 1048576 bytes"):
        parse_rules(b"#" * (2 << 20), "huge.yaml")
    with pytest.raises(InputError, match="cannot read the rules file"):
        load_rules(tmp_path / "missing.yaml")
    path = tmp_path / "rules.yaml"
    path.write_bytes(GOOD)
    assert [rule.name for rule in load_rules(path).rules] == ["r"]


def test_the_sampler_is_deterministic_and_fair() -> None:
    keys = [f"session-{n}" for n in range(20_000)]
    first = [sampled(11, "rule", key, 0.1) for key in keys]
    assert first == [sampled(11, "rule", key, 0.1) for key in keys]  # the same sessions on every run
    assert abs(sum(first) - 2000) <= 3 * (20_000 * 0.1 * 0.9) ** 0.5
    other = [sampled(12, "rule", key, 0.1) for key in keys]
    assert first != other  # another seed, other sessions
    assert all(sampled(0, "r", k, 1.0) for k in keys[:100]) and not any(sampled(0, "r", k, 0.0) for k in keys[:100])


@settings(deadline=None, max_examples=50)
@given(st.text(max_size=40), st.floats(min_value=0, max_value=1))
def test_a_lower_rate_samples_a_subset(key: str, rate: float) -> None:
    # the hash is compared with the rate: whatever a rate samples, every higher rate samples too
    if sampled(5, "r", key, rate):
        assert sampled(5, "r", key, min(1.0, rate + 0.1))


def test_hourly_counters_start_again_every_hour() -> None:
    now = [3600.0 * 10]
    counter = PeriodCounter(2, "hour", clock=lambda: now[0])
    assert [counter.take(), counter.take(), counter.take()] == [True, True, False]
    assert counter.spent
    now[0] += 3600
    assert counter.take() and counter.current() == 1
    assert counter.reserve() == 1 and counter.spent
    counter.give_back(1)
    assert counter.current() == 1
