"""agentgauge: evaluate LLM agents against eval sets with deterministic matchers and LLM judges.

The public names below are imported lazily so that ``import agentgauge`` stays fast.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

_EXPORTS: dict[str, str] = {
    "EvalSet": "agentgauge.model",
    "EvalCase": "agentgauge.model",
    "Invocation": "agentgauge.model",
    "Message": "agentgauge.model",
    "Tool": "agentgauge.model",
    "SessionInput": "agentgauge.model",
    "EvalMetric": "agentgauge.model",
    "EvalStatus": "agentgauge.model",
    "EvalSetResult": "agentgauge.model",
    "EvalCaseResult": "agentgauge.model",
    "EvalMetricResult": "agentgauge.model",
    "load_eval_set": "agentgauge.formats",
    "save_eval_set": "agentgauge.formats",
    "load_metrics": "agentgauge.formats",
    "load_result": "agentgauge.formats",
    "AgentEvaluator": "agentgauge.evaluator",
    "AgentRequest": "agentgauge.agents",
    "AgentOutput": "agentgauge.agents",
    "InputError": "agentgauge.errors",
    "NotFoundError": "agentgauge.errors",
}

__all__ = sorted(_EXPORTS)

if TYPE_CHECKING:  # pragma: no cover - for type checkers and IDEs only
    from .agents import AgentOutput, AgentRequest
    from .errors import InputError, NotFoundError
    from .evaluator import AgentEvaluator
    from .formats import load_eval_set, load_metrics, load_result, save_eval_set
    from .model import (
        EvalCase,
        EvalCaseResult,
        EvalMetric,
        EvalMetricResult,
        EvalSet,
        EvalSetResult,
        EvalStatus,
        Invocation,
        Message,
        SessionInput,
        Tool,
    )


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'agentgauge' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_EXPORTS))
