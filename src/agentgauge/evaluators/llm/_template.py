"""trpc's ``llm_judge_template``: a user-written judge prompt with ``{{var}}`` placeholders bound to fields of the
actual or expected invocation or of the metric, a named response scorer and named aggregators."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from ...judges import JudgeParseError, JudgePool, ResponseSchema, extract_json_object
from ...model import EvalMetric, Invocation, ScoreValue
from .._base import EvaluatorError
from ._aggregate import average_invocations, mean_samples
from ._engine import JudgeMetric, LLMJudgeEvaluator
from ._parsers import parse_rubric_json
from ._prompts import rubric_lines
from ._sample import JudgeConfig, Prompt, Sample
from ._text import final_text, user_text
from ._trpc import trpc_majority_vote

__all__ = ["SCORERS", "TEMPLATE", "TemplateEvaluator", "json_path", "render_template"]

_VAR = re.compile(r"\{\{\s*([A-Za-z_][\w.-]*)\s*\}\}")
_PATH_STEP = re.compile(r"\.([A-Za-z_][\w-]*)|\[(\d+)\]|\[['\"]([^'\"]*)['\"]\]")

_FIELDS: dict[str, tuple[str, ...]] = {
    "actual": (
        "userContent",
        "finalResponse",
        "traceStepInput",
        "traceStepOutput",
        "traceStepTools",
        "traceStepSkills",
    ),
    "expected": ("userContent", "finalResponse"),
    "metric": ("rubrics",),
}


# --- paths and rendering ----------------------------------------------------------------------------------------


def _parse_path(path: str) -> list[str | int]:
    if not path.startswith("$"):
        raise ValueError(f"path {path!r} must start with '$'")
    steps: list[str | int] = []
    pos = 1
    while pos < len(path):
        match = _PATH_STEP.match(path, pos)
        if match is None:
            raise ValueError(f"path {path!r}: cannot read {path[pos:]!r} (use .key, [0] or ['key'])")
        key, index, quoted = match.groups()
        steps.append(int(index) if index is not None else (key if key is not None else quoted))
        pos = match.end()
    return steps


def json_path(value: Any, path: str) -> Any:
    """``value`` at ``path`` (``$``, ``$.a.b[0]``, ``$['a b']``); a string value is parsed as JSON first.
    ValueError names the step that does not exist."""
    steps = _parse_path(path)
    if not steps:
        return value
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except ValueError:
            raise ValueError(f"path {path!r} needs a JSON value, got text {value[:60]!r}") from None
    where = "$"
    for step in steps:
        if isinstance(step, int):
            if not isinstance(value, list) or step >= len(value):
                raise ValueError(f"path {path!r}: no element [{step}] at {where}")
            value, where = value[step], f"{where}[{step}]"
        else:
            if not isinstance(value, dict) or step not in value:
                raise ValueError(f"path {path!r}: no key {step!r} at {where}")
            value, where = value[step], f"{where}.{step}"
    return value


def render_template(prompt: str, values: Mapping[str, str]) -> str:
    """``prompt`` with every ``{{name}}`` replaced; an unbound name raises ValueError."""
    unknown = sorted({m.group(1) for m in _VAR.finditer(prompt)} - set(values))
    if unknown:
        raise ValueError(f"template prompt uses unbound variable(s): {', '.join(unknown)}")
    return _VAR.sub(lambda m: values[m.group(1)], prompt)


def _as_text(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)


# --- configuration ----------------------------------------------------------------------------------------------


def _template_block(config_flags: Mapping[str, Any], name: str) -> dict[str, Any]:
    raw = config_flags.get("template")
    if not isinstance(raw, dict):
        raise EvaluatorError(f"{name}: llmJudge.template is required (an object with prompt and responseScorerName)")
    return raw


def _check_template(raw: dict[str, Any], name: str) -> None:
    def fail(message: str) -> EvaluatorError:
        return EvaluatorError(f"{name}: llmJudge.template.{message}")

    prompt = raw.get("prompt")
    if not isinstance(prompt, str) or not prompt.strip():
        raise fail("prompt is empty")
    scorer = raw.get("responseScorerName")
    if not isinstance(scorer, str) or not scorer.strip():
        raise fail("responseScorerName is empty")
    if scorer not in SCORERS:
        raise fail(f"responseScorerName: unknown scorer {scorer!r}; known: {', '.join(sorted(SCORERS))}")
    if scorer == "categorical":
        _categories(raw, name)
    samples = raw.get("sampleAggregatorName") or "majority_vote"
    if samples not in _SAMPLE_AGGREGATORS:
        raise fail(f"sampleAggregatorName: unknown aggregator {samples!r}; known: majority_vote, average")
    invocations = raw.get("invocationAggregatorName") or "average"
    if invocations != "average":
        raise fail(f"invocationAggregatorName: unknown aggregator {invocations!r}; known: average")
    bindings = raw.get("variableBindings") or []
    if not isinstance(bindings, list):
        raise fail("variableBindings must be a list")
    seen: set[str] = set()
    for i, binding in enumerate(bindings):
        where = f"variableBindings[{i}]"
        if not isinstance(binding, dict):
            raise fail(f"{where} must be an object")
        var = str(binding.get("templateVariable") or "").strip()
        if not var:
            raise fail(f"{where}.templateVariable is empty")
        if var in seen:
            raise fail(f"{where}.templateVariable {var!r} is duplicated")
        seen.add(var)
        source = binding.get("source")
        if not isinstance(source, dict):
            raise fail(f"{where}.source must be an object with scope and field")
        scope, field = source.get("scope"), source.get("field")
        if scope not in _FIELDS:
            raise fail(f"{where}.source.scope: {scope!r} is not one of actual, expected, metric")
        if field not in _FIELDS[scope]:
            raise fail(f"{where}.source.field: {scope}.{field} is not supported; known: {', '.join(_FIELDS[scope])}")
        if field.startswith("traceStep") and not str((source.get("selector") or {}).get("nodeID") or "").strip():
            raise fail(f"{where}.source.selector.nodeID is required for {field}")
        if source.get("path") is not None:
            try:
                _parse_path(str(source["path"]))
            except ValueError as exc:
                raise fail(f"{where}.source.{exc}") from None
    try:
        render_template(prompt, dict.fromkeys(seen, ""))
    except ValueError as exc:
        raise fail(str(exc)) from None


def _categories(raw: Mapping[str, Any], name: str) -> dict[str, float]:
    options = raw.get("responseScorerOptions") or {}
    items = options.get("categories") if isinstance(options, dict) else None
    if not isinstance(items, list) or not items:
        raise EvaluatorError(f"{name}: llmJudge.template.responseScorerOptions.categories is required for categorical")
    out: dict[str, float] = {}
    for i, item in enumerate(items):
        label = item.get("label") if isinstance(item, dict) else None
        score = item.get("score") if isinstance(item, dict) else None
        if not isinstance(label, str) or not label or not isinstance(score, int | float) or isinstance(score, bool):
            raise EvaluatorError(
                f"{name}: llmJudge.template.responseScorerOptions.categories[{i}] needs a label and a numeric score"
            )
        if label in out:
            raise EvaluatorError(f"{name}: llmJudge.template.responseScorerOptions: duplicate category {label!r}")
        out[label] = float(score)
    return out


# --- binding values ---------------------------------------------------------------------------------------------


def _key(mapping: Any, name: str) -> Any:
    """``mapping[name]`` matched case-insensitively: trpc writes traces with Go's field names (``Steps``,
    ``NodeID``, ``Input.Text``), hand-written files often use camelCase."""
    if not isinstance(mapping, dict):
        return None
    if name in mapping:
        return mapping[name]
    lowered = name.lower()
    return next((v for k, v in mapping.items() if isinstance(k, str) and k.lower() == lowered), None)


def _trace_step(invocation: Invocation, node_id: str, field: str, index: int) -> Any:
    trace = invocation.execution_trace
    steps = _key(trace, "steps")
    if not isinstance(steps, list) or not steps:
        raise ValueError(f"executionTrace is empty for actual.{field} at invocation index {index}")
    matches = [s for s in steps if _key(s, "nodeID") == node_id]
    if not matches:
        raise ValueError(f"trace step not found for actual.{field} nodeID {node_id!r} at invocation index {index}")
    step = matches[-1]  # the last run of a node, as a loop leaves it
    key = {"traceStepInput": "input", "traceStepOutput": "output", "traceStepTools": "tools"}.get(field, "skills")
    value = _key(step, key)
    if key in ("input", "output"):
        text = _key(value, "text") if isinstance(value, dict) else value
        if not isinstance(text, str) or not text.strip():
            raise ValueError(
                f"trace snapshot is empty for actual.{field} nodeID {node_id!r} at invocation index {index}"
            )
        return text
    return value if value is not None else []


def _binding_value(
    source: Mapping[str, Any], actuals: Sequence[Invocation], expecteds: Sequence[Invocation], config: JudgeConfig
) -> str:
    scope, field = source["scope"], source["field"]
    value: Any
    if scope == "metric":
        value = (
            rubric_lines(config.rubrics)
            if source.get("path") is None
            else [{"id": r.id, "content": {"text": r.text}} for r in config.rubrics]
        )
    else:
        inv = (actuals if scope == "actual" else expecteds)[-1]
        if field == "userContent":
            value = user_text(inv)
        elif field == "finalResponse":
            if scope == "expected" and inv.final_response is None:
                raise ValueError("expected finalResponse is empty")
            value = final_text(inv)
        else:
            node = str((source.get("selector") or {}).get("nodeID", "")).strip()
            value = _trace_step(inv, node, field, len(actuals) - 1)
    if source.get("path") is not None:
        value = json_path(value, str(source["path"]))
    return _as_text(value)


# --- scorers ----------------------------------------------------------------------------------------------------


def _reason(data: Mapping[str, Any], raw: str) -> str:
    reason = data.get("reason")
    if not isinstance(reason, str):
        raise JudgeParseError("reason is required", raw=raw)
    return reason


def _single_score(answer: str, config: JudgeConfig) -> Sample:
    data = extract_json_object(answer)
    score = data.get("score")
    if not isinstance(score, int | float) or isinstance(score, bool) or not 0 <= score <= 1:
        raise JudgeParseError(f"score {score!r} is not a number in [0, 1]", raw=answer)
    return Sample(float(score), _reason(data, answer))


def _boolean(answer: str, config: JudgeConfig) -> Sample:
    data = extract_json_object(answer)
    passed = data.get("passed")
    if not isinstance(passed, bool):
        raise JudgeParseError(f"passed {passed!r} is not true or false", raw=answer)
    return Sample(1.0 if passed else 0.0, _reason(data, answer), value=ScoreValue.of(passed))


def _categorical(answer: str, config: JudgeConfig) -> Sample:
    categories = _categories(config.flags.get("template") or {}, config.metric_name)
    data = extract_json_object(answer)
    label = data.get("category")
    if not isinstance(label, str):
        raise JudgeParseError("category is required", raw=answer)
    reason = _reason(data, answer)
    value = ScoreValue.of(label)
    if label not in categories:
        return Sample(0.0, f"unknown categorical label {label!r}: {reason}", value=value)
    return Sample(categories[label], reason, value=value)


def _rubric_scores(answer: str, config: JudgeConfig) -> Sample:
    return parse_rubric_json(answer, config.rubrics)


def _schema(name: str, properties: dict[str, Any]) -> ResponseSchema:
    body = {"type": "object", "properties": properties, "required": list(properties), "additionalProperties": False}
    return ResponseSchema(name, body)


_REASON = {"type": "string"}
_RUBRIC_ITEM = _schema(
    "", {"id": {"type": "string"}, "score": {"type": "number", "minimum": 0, "maximum": 1}, "reason": _REASON}
).schema
SCORERS: dict[str, tuple[Callable[[str, JudgeConfig], Sample], ResponseSchema]] = {
    "single_score": (
        _single_score,
        _schema("single_score_answer", {"score": {"type": "number", "minimum": 0, "maximum": 1}, "reason": _REASON}),
    ),
    "boolean": (_boolean, _schema("boolean_answer", {"passed": {"type": "boolean"}, "reason": _REASON})),
    "categorical": (_categorical, _schema("categorical_answer", {"category": {"type": "string"}, "reason": _REASON})),
    "rubric_scores": (
        _rubric_scores,
        _schema("rubric_scores_answer", {"rubricScores": {"type": "array", "items": dict(_RUBRIC_ITEM)}}),
    ),
}
"""Response scorers by name: the parser of a judge answer and the JSON schema the judge is asked to follow."""

_SAMPLE_AGGREGATORS: dict[str, Callable[[Sequence[Sample], JudgeConfig], Sample]] = {
    "majority_vote": trpc_majority_vote,
    "average": lambda samples, config: mean_samples(samples),
}


# --- the evaluator ----------------------------------------------------------------------------------------------

TEMPLATE = JudgeMetric(
    name="llm_judge_template",
    description="LLM judge with your own prompt: {{var}} bindings from actual/expected/metric fields; scorers "
    "single_score, rubric_scores, boolean, categorical; majority_vote or average over samples",
    dialect="trpc",
    needs_expected=False,
    aggregate_samples=trpc_majority_vote,
    aggregate_invocations=average_invocations,
)


class TemplateEvaluator(LLMJudgeEvaluator):
    """Renders ``llmJudge.template.prompt`` per invocation (history prefix, last invocation's fields), asks the
    judge ``num_samples`` times, scores each answer with the named scorer and aggregates by name."""

    def __init__(self, pool: JudgePool) -> None:
        super().__init__(TEMPLATE, pool)

    def read_config(self, metric: EvalMetric) -> JudgeConfig:
        """The trpc judge configuration, with the template block checked."""
        config = super().read_config(metric)
        _check_template(_template_block(config.flags, self.name), self.name)
        return config

    def build_prompt(
        self, actuals: Sequence[Invocation], expecteds: Sequence[Invocation], config: JudgeConfig
    ) -> Prompt:
        """The template rendered with its variable bindings; the schema of the named scorer."""
        raw = _template_block(config.flags, self.name)
        values: dict[str, str] = {}
        for binding in raw.get("variableBindings") or []:
            var = str(binding["templateVariable"]).strip()
            try:
                values[var] = _binding_value(binding["source"], actuals, expecteds, config)
            except ValueError as exc:
                raise EvaluatorError(f"{self.name}: resolve template variable {var!r}: {exc}") from None
        text = render_template(raw["prompt"], values)
        return Prompt([{"role": "user", "content": text}], SCORERS[raw["responseScorerName"]][1], config.rubrics)

    def score_answer(self, answer: str, prompt: Prompt, config: JudgeConfig) -> Sample:
        """One judge answer scored by the template's ``responseScorerName``; a wrong format raises."""
        return SCORERS[_template_block(config.flags, self.name)["responseScorerName"]][0](answer, config)

    def aggregate_samples(self, samples: Sequence[Sample], config: JudgeConfig) -> Sample:
        """The samples combined by the template's ``sampleAggregatorName`` (majority_vote by default)."""
        raw = _template_block(config.flags, self.name)
        return _SAMPLE_AGGREGATORS[raw.get("sampleAggregatorName") or "majority_vote"](samples, config)
