"""Unknown keys of metrics files, and where a metric's parts sit in the file it came from.

Three layouts, each with its own JSON paths (:class:`MetricPaths`): a native / trpc-agent-go array (``[1].metricName``),
an ADK ``test_config.json`` (``criteria.response_match_score``) and an agentevals ``eval_config.yaml``
(``evaluators[1].name``). How much an unknown key matters follows the file's own tool: trpc-agent-go ignores unknown
keys (Go's ``encoding/json``), so does agentevals (pydantic's default) and ADK's ``EvalConfig``; ADK's criteria keep
them (``extra="allow"``); ADK's ``JudgeModelOptions``, ``Rubric`` and a custom metric's ``code_config`` /
``metric_info`` refuse them (``extra="forbid"``).
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from pydantic.alias_generators import to_camel

from ..model import Criterion, EvalMetric
from ._problems import InputProblem
from ._unknown import unknown_key_problem

__all__ = [
    "MetricPaths",
    "MetricsLayout",
    "agentevals_key_problems",
    "metric_key_problems",
    "test_config_key_problems",
]

MetricsLayout = Literal["array", "test_config", "agentevals"]


@dataclass(frozen=True, slots=True)
class MetricPaths:
    """The JSON paths of a metric's parts in a file of ``layout`` (``prefix``: the array's own path, e.g. the
    ``metrics`` field of a request body)."""

    layout: MetricsLayout = "array"
    prefix: str = ""

    @classmethod
    def of_file(cls, file: str | os.PathLike[str] | None) -> MetricPaths:
        """The layout of the metrics file ``file``: an agentevals YAML file by its name, else a ``test_config.json``
        when the file holds a JSON object; a native array otherwise (and for a name that is not a file: a request's
        ``metrics`` field)."""
        if file is None:
            return cls(prefix="metrics")
        name = os.fspath(file)
        if name.lower().endswith((".yaml", ".yml")):
            return cls("agentevals")
        try:
            with open(name, "rb") as handle:
                head = handle.read(4096)
        except OSError:
            return cls(prefix="metrics")
        head = head.removeprefix(b"\xef\xbb\xbf").lstrip()
        return cls("test_config") if head.startswith(b"{") else cls()

    def metric(self, index: int, metric: EvalMetric) -> str:
        """The metric's own entry."""
        if self.layout == "test_config":
            return f"criteria.{metric.metric_name}"
        if self.layout == "agentevals":
            return f"evaluators[{index}]"
        return f"{self.prefix}[{index}]"

    def name(self, index: int, metric: EvalMetric) -> str:
        """Where the metric's name (or evaluator name) is written."""
        if self.layout == "test_config":
            return self.metric(index, metric)  # the name is the key
        if self.layout == "agentevals":
            return f"evaluators[{index}].name"
        return f"{self.metric(index, metric)}.{'evaluatorName' if metric.evaluator_name else 'metricName'}"

    def threshold(self, index: int, metric: EvalMetric) -> str:
        """Where the metric's threshold is written."""
        if self.layout == "test_config":
            adk = metric.criterion.adk if metric.criterion is not None else None
            # "response_match_score": 0.8, or an object with "threshold" among other keys
            return self.metric(index, metric) + (".threshold" if adk and set(adk) - {"threshold"} else "")
        return f"{self.metric(index, metric)}.threshold"

    def criterion(self, index: int, metric: EvalMetric) -> str:
        """Where the metric's criterion is written (in a ``test_config.json`` and an ``eval_config.yaml``: the
        metric's entry itself)."""
        if self.layout == "array":
            return f"{self.metric(index, metric)}.criterion"
        return self.metric(index, metric)


def _names(*fields: str) -> tuple[str, ...]:
    """Known keys in both spellings."""
    return tuple(sorted({n for f in fields for n in (f, to_camel(f))}))


def _check(
    value: Any,
    path: str,
    known: tuple[str, ...],
    refused_by: str | None,
    who: str,
    file: str | None,
    out: list[InputProblem],
) -> None:
    if isinstance(value, Mapping):
        for key in value:
            if key not in known:
                out.append(
                    unknown_key_problem(file, f"{path}.{key}" if path else str(key), str(key), known, refused_by, who)
                )


_TRPC = "trpc-agent-go ignores it"
_METRIC_KEYS = tuple(sorted({s for n, f in EvalMetric.model_fields.items() for s in (n, f.alias or n)}))
# "assertion": the settings of agentgauge's trajectory assertions (see docs/metrics.md)
_CRITERION_KEYS = tuple(
    sorted({s for n, f in Criterion.model_fields.items() for s in (n, f.alias or n)} | {"assertion"})
)

# ADK 2.13: the criterion class of each metric (``criterion_type`` of its evaluator) and the fields it adds to
# BaseCriterion's; agentgauge reads "dialect" (ADK-TS's rules) in every block
_ADK_BASE = ("threshold", "include_intermediate_responses_in_final", "dialect")
_ADK_JUDGED = ("judge_model_options",)
_ADK_CRITERIA: dict[str, tuple[str, tuple[str, ...]]] = {
    "tool_trajectory_avg_score": ("ToolTrajectoryCriterion", ("match_type", "ignore_args")),
    "response_match_score": ("BaseCriterion", ()),
    "response_evaluation_score": ("BaseCriterion", ()),
    "safety_v1": ("BaseCriterion", ()),
    "final_response_match_v2": ("LlmAsAJudgeCriterion", _ADK_JUDGED),
    "hallucinations_v1": ("HallucinationsCriterion", (*_ADK_JUDGED, "evaluate_intermediate_nl_responses")),
    "per_turn_user_simulator_quality_v1": ("LlmBackedUserSimulatorCriterion", (*_ADK_JUDGED, "stop_signal")),
    "rubric_based_final_response_quality_v1": ("RubricsBasedCriterion", (*_ADK_JUDGED, "rubrics")),
    "rubric_based_tool_use_quality_v1": ("RubricsBasedCriterion", (*_ADK_JUDGED, "rubrics")),
    "rubric_based_multi_turn_trajectory_quality_v1": ("RubricsBasedCriterion", (*_ADK_JUDGED, "rubrics")),
}
# ADK's JudgeModelOptions; agentgauge also reads an OpenAI-compatible endpoint and a time budget there
_JUDGE_OPTIONS = _names(
    *("judge_model", "judge_model_config", "num_samples", "parallelism_limit"),
    *("provider_name", "model_name", "base_url", "api_key", "extra_fields", "timeout"),
)
_RUBRIC = _names("rubric_id", "rubric_content", "description", "type", "id", "content", "metric_name", "source")
_RUBRIC_CONTENT = _names("text_property", "text")


def adk_criterion_fields() -> dict[str, tuple[str, tuple[str, ...]]]:
    """Each ADK metric's criterion class and the fields it adds to ``BaseCriterion`` (for tests against ADK)."""
    return dict(_ADK_CRITERIA)


def _adk_block(name: str, block: Mapping[str, Any], path: str, file: str | None, out: list[InputProblem]) -> None:
    cls, extra = _ADK_CRITERIA[name]
    fields = set(extra)
    _check(block, path, _names(*_ADK_BASE, *extra), None, f"ADK's {cls} keeps it", file, out)
    if "judge_model_options" in fields:
        options = block.get("judge_model_options", block.get("judgeModelOptions"))
        spelled = "judgeModelOptions" if "judgeModelOptions" in block else "judge_model_options"
        _check(options, f"{path}.{spelled}", _JUDGE_OPTIONS, "ADK's JudgeModelOptions", "", file, out)
    if "rubrics" in fields:
        rubrics = block.get("rubrics")
        for index, rubric in enumerate(rubrics if isinstance(rubrics, list) else ()):
            where = f"{path}.rubrics[{index}]"
            _check(rubric, where, _RUBRIC, "ADK's Rubric", "", file, out)
            if isinstance(rubric, Mapping):
                for key in ("rubric_content", "rubricContent"):
                    _check(rubric.get(key), f"{where}.{key}", _RUBRIC_CONTENT, "ADK's RubricContent", "", file, out)


def metric_key_problems(metric: EvalMetric, index: int, paths: MetricPaths, file: str | None) -> list[InputProblem]:
    """The unknown keys of one loaded metric: of the metric object and its criterion (native files) and of its ADK
    criterion block (``test_config.json``: judged by the metric's ADK criterion class). The keys inside native
    criterion blocks (``toolTrajectory``, ...) are the evaluators' to check."""
    out: list[InputProblem] = []
    where = paths.metric(index, metric)
    _check(metric.model_extra, where, _METRIC_KEYS, None, _TRPC, file, out)
    criterion = metric.criterion
    if criterion is not None:
        _check(criterion.model_extra, f"{where}.criterion", _CRITERION_KEYS, None, _TRPC, file, out)
        is_custom = isinstance(metric.extension, dict) and "custom_metric" in metric.extension
        if criterion.adk is not None and metric.metric_name in _ADK_CRITERIA and not is_custom:
            block_path = paths.criterion(index, metric) if paths.layout != "array" else f"{where}.criterion.adk"
            _adk_block(metric.metric_name, criterion.adk, block_path, file, out)
    return out


# ADK's EvalConfig (unknown keys ignored) and CustomMetricConfig (ignored); code_config, metric_info and what is
# inside it refuse unknown keys
_TEST_CONFIG = _names("criteria", "custom_metrics", "user_simulator_config", "live_model_config", "dialect")
_CUSTOM_METRIC = _names("code_config", "metric_info", "description")
_METRIC_INFO = _names("metric_name", "description", "metric_value_info", "requires_threshold")
_INTERVAL = _names("min_value", "open_at_min", "max_value", "open_at_max")


def _spelled(value: Mapping[str, Any], snake: str) -> tuple[str, Any]:
    camel = to_camel(snake)
    return (camel, value[camel]) if camel in value and snake not in value else (snake, value.get(snake))


def test_config_key_problems(doc: Mapping[str, Any], file: str | None) -> list[InputProblem]:
    """The unknown keys of an ADK ``test_config.json`` outside its criteria: top-level keys and custom metrics."""
    out: list[InputProblem] = []
    _check(doc, "", _TEST_CONFIG, None, "ADK's EvalConfig ignores it", file, out)
    key, custom = _spelled(doc, "custom_metrics")
    for name, entry in custom.items() if isinstance(custom, Mapping) else ():
        where = f"{key}.{name}"
        _check(entry, where, _CUSTOM_METRIC, None, "ADK's CustomMetricConfig ignores it", file, out)
        if not isinstance(entry, Mapping):
            continue
        code_key, code = _spelled(entry, "code_config")
        _check(code, f"{where}.{code_key}", ("name",), "ADK's CodeConfig", "", file, out)
        info_key, info = _spelled(entry, "metric_info")
        _check(info, f"{where}.{info_key}", _METRIC_INFO, "ADK's MetricInfo", "", file, out)
        if isinstance(info, Mapping):
            value_key, value = _spelled(info, "metric_value_info")
            value_path = f"{where}.{info_key}.{value_key}"
            _check(value, value_path, _names("interval"), "ADK's MetricValueInfo", "", file, out)
            if isinstance(value, Mapping):
                _check(value.get("interval"), f"{value_path}.interval", _INTERVAL, "ADK's Interval", "", file, out)
    return out


# agentevals-cli 0.11 (pydantic's default: unknown keys ignored): the top-level keys it reads and each evaluator
# type's fields; agentgauge also reads trajectory_match_type and rubrics on a builtin entry
_AGENTEVALS_TOP = ("evaluators", "eval_set", "judge_model", "threshold", "trajectory_match_type", "trace_format")
_AGENTEVALS_ENTRY: dict[str, tuple[str, ...]] = {
    "builtin": _names("name", "type", "threshold", "judge_model", "trajectory_match_type", "rubrics"),
    "code": ("name", "type", "path", "threshold", "timeout", "config", "executor"),
}


def agentevals_key_problems(data: Mapping[str, Any], entries: Iterable[Any], file: str | None) -> list[InputProblem]:
    """The unknown keys of an agentevals ``eval_config.yaml``: at the top and in each ``builtin`` / ``code``
    evaluator entry."""
    out: list[InputProblem] = []
    who = "agentevals ignores it"
    _check(data, "", _AGENTEVALS_TOP, None, who, file, out)
    for index, entry in enumerate(entries):
        if isinstance(entry, Mapping) and entry.get("type") in _AGENTEVALS_ENTRY:
            _check(entry, f"evaluators[{index}]", _AGENTEVALS_ENTRY[entry["type"]], None, who, file, out)
    return out
