"""Metrics files: native ``.metrics.json`` arrays and ADK ``test_config.json`` criteria."""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from typing import Any

from pydantic import ValidationError

from ..errors import InputError
from ..model import Criterion, EvalMetric, redact_secrets
from ._jsonio import type_name, validation_error
from ._metric_keys import test_config_key_problems
from ._problems import InputReport
from ._scoring_dialect import check_dialect_name, common_dialect, with_scoring_dialect

__all__ = [
    "ADK_DEFAULT_CRITERIA",
    "ADK_EFFICIENCY_METRICS",
    "default_adk_metrics",
    "expand_env",
    "metrics_from_document",
    "metrics_from_test_config",
    "to_test_config",
]

ADK_DEFAULT_CRITERIA: dict[str, float] = {"tool_trajectory_avg_score": 1.0, "response_match_score": 0.8}
"""ADK's criteria when no ``test_config.json`` is found."""

ADK_EFFICIENCY_METRICS = ("tool_call_count_v1", "inference_call_count_v1", "token_usage_v1", "invocation_duration_v1")
"""The informational metrics ADK 2.x appends to every ``test_config.json`` (``get_eval_metrics_from_config``)."""

# judgeModel keys whose values get ``${VAR}`` / ``$VAR`` expansion (trpc-agent-go: only these, only from JSON).
_EXPANDED = frozenset(
    {
        "providerName",
        "provider_name",
        "modelName",
        "model_name",
        "variant",
        "baseURL",
        "baseUrl",
        "base_url",
        "apiKey",
        "api_key",
    }
)
_VAR = re.compile(r"\$\{([^}]*)\}|\$([A-Za-z0-9_]+)")


def expand_env(text: str, env: Mapping[str, str] | None = None) -> str:
    """Go ``os.ExpandEnv``: ``${VAR}`` and ``$VAR`` are replaced, an undefined variable becomes ``""``."""
    values = os.environ if env is None else env
    return _VAR.sub(lambda m: values.get(m.group(1) if m.group(1) is not None else m.group(2), ""), text)


def _expand_judge_model(metric: dict[str, Any], env: Mapping[str, str] | None) -> dict[str, Any]:
    criterion = metric.get("criterion")
    if not isinstance(criterion, dict):
        return metric
    for llm_key in ("llmJudge", "llm_judge"):
        llm = criterion.get(llm_key)
        if not isinstance(llm, dict):
            continue
        for judge_key in ("judgeModel", "judge_model"):
            judge = llm.get(judge_key)
            if isinstance(judge, dict):
                llm[judge_key] = {
                    k: expand_env(v, env) if k in _EXPANDED and isinstance(v, str) else v for k, v in judge.items()
                }
    return metric


def metrics_from_document(
    doc: Any,
    source: str,
    *,
    expand: bool = True,
    env: Mapping[str, str] | None = None,
    report: InputReport | None = None,
) -> list[EvalMetric]:
    """A parsed metrics document: a native array, or an ADK ``test_config.json`` object with ``criteria``.

    ``report`` receives the unknown keys of a ``test_config.json`` outside its criteria (those of the metrics
    themselves are checked with them: ``Registry.validate_metrics``)."""
    if isinstance(doc, dict):
        if report is not None:
            report.extend(test_config_key_problems(doc, source))
        if "criteria" not in doc:
            keys = ", ".join(sorted(doc)[:6]) or "no keys"
            raise InputError(
                f"not a metrics file: found an object with keys {keys}; expected a JSON array of metrics "
                "({metricName, threshold, criterion}) or an ADK test_config.json object with 'criteria'",
                file=source,
            )
        return metrics_from_test_config(doc, source)
    if not isinstance(doc, list):
        raise InputError(
            f"not a metrics file: found a JSON {type_name(doc)}; expected an array of metrics or an ADK "
            "test_config.json object with 'criteria'",
            file=source,
        )
    metrics: list[EvalMetric] = []
    names: set[str] = set()
    for i, item in enumerate(doc):
        if not isinstance(item, dict):
            raise InputError(f"expected a metric object (got {type_name(item)})", file=source, location=f"[{i}]")
        if expand:
            item = _expand_judge_model(item, env)
        try:
            metric = EvalMetric.model_validate(item)
        except ValidationError as exc:
            raise validation_error(exc, source, f"[{i}]") from None
        if metric.metric_name in names:
            raise InputError(f"duplicate metric {metric.metric_name!r}", file=source, location=f"[{i}].metricName")
        names.add(metric.metric_name)
        metrics.append(metric)
    return metrics


def _threshold(value: Any, source: str, path: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
        raise InputError(f"expected a number (got {type_name(value)})", file=source, location=path)
    try:
        return float(value)
    except ValueError:
        raise InputError(f"expected a number (got {value!r})", file=source, location=path) from None


def metrics_from_test_config(doc: dict[str, Any], source: str) -> list[EvalMetric]:
    """ADK ``test_config.json``: a number is a threshold; an object is an ADK criterion that needs ``threshold``.

    Each metric gets ``criterion.adk`` (ADK semantics). A ``custom_metrics`` entry of the same name is attached as
    ``extension["custom_metric"]`` for a custom evaluator. Other top-level keys are ignored, as in ADK.

    As ADK 2.x does, the informational efficiency metrics (:data:`ADK_EFFICIENCY_METRICS`) the criteria do not
    name are appended, without a criterion; they never pass or fail a case. (ADK refuses a threshold on them when
    they are named in ``criteria``; agentgauge accepts and ignores it.)

    ``"dialect": "adk-ts"`` (an agentgauge key, ignored by ADK) scores the criteria with ADK-TS's rules instead, and
    appends no efficiency metric (ADK-TS has none).
    """
    criteria = doc.get("criteria")
    if not isinstance(criteria, dict):
        raise InputError(
            f"expected an object of metric criteria (got {type_name(criteria)})", file=source, location="criteria"
        )
    custom = doc.get("custom_metrics") or doc.get("customMetrics") or {}
    if not isinstance(custom, dict):
        raise InputError(f"expected an object (got {type_name(custom)})", file=source, location="custom_metrics")
    metrics: list[EvalMetric] = []
    for name, value in criteria.items():
        path = f"criteria.{name}"
        if isinstance(value, dict):
            if "threshold" not in value:
                raise InputError("missing required field", file=source, location=f"{path}.threshold")
            threshold = _threshold(value["threshold"], source, f"{path}.threshold")
            adk = {**value, "threshold": threshold}
        else:
            threshold = _threshold(value, source, path)
            adk = {"threshold": threshold}
        metric = EvalMetric(metric_name=name, threshold=threshold, criterion=Criterion(adk=adk))
        if name in custom:
            metric.extension = {"custom_metric": custom[name]}
        metrics.append(metric)
    if "dialect" in doc:  # ADK-TS's rules (see _scoring_dialect); ADK-TS has no efficiency metrics to append
        dialect = check_dialect_name(doc["dialect"], source, "dialect")
        if dialect == "adk-ts":
            return with_scoring_dialect(metrics, dialect, source)
    named = set(criteria)
    metrics.extend(EvalMetric(metric_name=name) for name in ADK_EFFICIENCY_METRICS if name not in named)
    return metrics


def default_adk_metrics() -> list[EvalMetric]:
    """ADK's default criteria: ``tool_trajectory_avg_score`` 1.0 and ``response_match_score`` 0.8 (ADK dialect)."""
    return metrics_from_test_config({"criteria": dict(ADK_DEFAULT_CRITERIA)}, "<default>")


def to_test_config(metrics: list[EvalMetric], source: str = "<metrics>") -> dict[str, Any]:
    """ADK-dialect metrics back to a ``test_config.json`` object; native-dialect metrics have no ADK form.

    Every ``api_key`` / ``apiKey`` value is blanked, as in any other dump of a metric: the object is for files.
    """
    criteria: dict[str, Any] = {}
    custom: dict[str, Any] = {}
    dialect = common_dialect(metrics)
    for i, metric in enumerate(metrics):
        if metric.criterion is None and metric.metric_name in ADK_EFFICIENCY_METRICS:
            continue  # appended by the reader, as ADK appends them; not part of the file
        if metric.criterion is None or metric.criterion.adk is None:
            raise InputError(
                f"metric {metric.metric_name!r} uses a native criterion, which test_config.json cannot express",
                file=source,
                location=f"[{i}]",
            )
        adk = redact_secrets(dict(metric.criterion.adk))
        if dialect is not None:  # written once, at the top of the file
            adk.pop("dialect", None)
        criteria[metric.metric_name] = adk["threshold"] if list(adk) == ["threshold"] else adk
        if isinstance(metric.extension, dict) and "custom_metric" in metric.extension:
            custom[metric.metric_name] = redact_secrets(metric.extension["custom_metric"])
    out: dict[str, Any] = {"criteria": criteria}
    if dialect is not None:
        out["dialect"] = dialect
    if custom:
        out["custom_metrics"] = custom
    return out
