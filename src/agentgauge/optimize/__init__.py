"""Improve an agent's texts, then prove it: ``agentgauge optimize`` (a drop-in for ``adk optimize``).

An optimisation evaluates the baseline on a train and a validation split, lets an optimiser search for better texts
(GEPA through the ``gepa`` package, a simple few-candidate optimiser, or a plug-in: :class:`Optimizer`), evaluates
the proposed candidate on fresh runs of both splits, and judges it by a gate of statistical rules
(:class:`~agentgauge.compare.GateRules`): accepted only when its gain on validation is beyond chance. Everything
goes through the run engine; the outcome is an :class:`AuditReport` and, in ``--out``, the candidate as a patch
(:class:`Patch`) with the patched agent beside it.

What can change (the *surfaces*, :func:`surfaces_of`): an ADK agent's instructions (root, sub-agents) and its
skills' instructions, an :class:`~agentgauge.agents.OpenAIAgent`'s system prompt and tool descriptions, and any
Python agent's texts named through :class:`~agentgauge.agents.TextFields`.

    from agentgauge.optimize import OptimizeRequest, optimize, parse_split

    report = await optimize(OptimizeRequest(agent="agent.py", train=parse_split("train.evalset.json"),
                                            validation=parse_split("validation.evalset.json")))
"""

from typing import TYPE_CHECKING

from .._util.lazy import lazy_exports

if TYPE_CHECKING:
    from ._adk_config import (
        OptimizerConfig,
        SamplerConfig,
        generation_settings,
        load_optimizer_config,
        load_sampler_config,
    )
    from ._audit import (
        AUDIT_FORMAT,
        AuditReport,
        CandidateRecord,
        Spent,
        SplitEvidence,
        SplitRef,
        SplitScore,
        SurfaceRecord,
    )
    from ._budget import Budget, Spending
    from ._engine import CandidateRunner, EngineSettings, RunOutcome
    from ._entry import optimize
    from ._flow import run_optimization
    from ._inputs import Split, SplitSpec, load_split, parse_split
    from ._output import load_patched_agent
    from ._patch import Patch, apply_patch, load_patch, make_patch, patch_diff, patch_id
    from ._plugins import BUILT_IN, load_optimizer
    from ._prepare import Prepared, prepare
    from ._reflect import ReflectionSettings, Reflector
    from ._report import render_audit_html, render_audit_markdown, summary_lines
    from ._request import DEFAULT_OUT_ROOT, OptimizeRequest
    from ._search import (
        EvaluationTiming,
        Optimizer,
        ScoredBatch,
        ScoredCase,
        SearchCandidate,
        SearchOutcome,
        SearchSession,
        SearchSettings,
    )
    from ._surfaces import AgentSurfaces, Surface, surfaces_of, text_hash

__all__ = [
    "AUDIT_FORMAT",
    "BUILT_IN",
    "DEFAULT_OUT_ROOT",
    "AgentSurfaces",
    "AuditReport",
    "Budget",
    "CandidateRecord",
    "CandidateRunner",
    "EngineSettings",
    "EvaluationTiming",
    "OptimizeRequest",
    "Optimizer",
    "OptimizerConfig",
    "Patch",
    "Prepared",
    "ReflectionSettings",
    "Reflector",
    "RunOutcome",
    "SamplerConfig",
    "ScoredBatch",
    "ScoredCase",
    "SearchCandidate",
    "SearchOutcome",
    "SearchSession",
    "SearchSettings",
    "Spending",
    "Spent",
    "Split",
    "SplitEvidence",
    "SplitRef",
    "SplitScore",
    "SplitSpec",
    "Surface",
    "SurfaceRecord",
    "apply_patch",
    "generation_settings",
    "load_optimizer",
    "load_optimizer_config",
    "load_patch",
    "load_patched_agent",
    "load_sampler_config",
    "load_split",
    "make_patch",
    "optimize",
    "parse_split",
    "patch_diff",
    "patch_id",
    "prepare",
    "render_audit_html",
    "render_audit_markdown",
    "run_optimization",
    "summary_lines",
    "surfaces_of",
    "text_hash",
]

# Nothing is imported until used: ``agentgauge --help`` and the patched agent files stay fast.
__getattr__, __dir__ = lazy_exports(
    __name__,
    {
        **dict.fromkeys(
            ("OptimizerConfig", "SamplerConfig", "generation_settings", "load_optimizer_config", "load_sampler_config"),
            "._adk_config",
        ),
        **dict.fromkeys(
            (
                "AUDIT_FORMAT",
                "AuditReport",
                "CandidateRecord",
                "SplitEvidence",
                "SplitRef",
                "SplitScore",
                "Spent",
                "SurfaceRecord",
            ),
            "._audit",
        ),
        **dict.fromkeys(("Budget", "Spending"), "._budget"),
        **dict.fromkeys(("CandidateRunner", "EngineSettings", "RunOutcome"), "._engine"),
        "optimize": "._entry",
        "run_optimization": "._flow",
        **dict.fromkeys(("Split", "SplitSpec", "load_split", "parse_split"), "._inputs"),
        "load_patched_agent": "._output",
        **dict.fromkeys(("Patch", "apply_patch", "load_patch", "make_patch", "patch_diff", "patch_id"), "._patch"),
        **dict.fromkeys(("BUILT_IN", "load_optimizer"), "._plugins"),
        **dict.fromkeys(("Prepared", "prepare"), "._prepare"),
        **dict.fromkeys(("ReflectionSettings", "Reflector"), "._reflect"),
        **dict.fromkeys(("render_audit_html", "render_audit_markdown", "summary_lines"), "._report"),
        **dict.fromkeys(("DEFAULT_OUT_ROOT", "OptimizeRequest"), "._request"),
        **dict.fromkeys(
            (
                "EvaluationTiming",
                "Optimizer",
                "ScoredBatch",
                "ScoredCase",
                "SearchCandidate",
                "SearchOutcome",
                "SearchSession",
                "SearchSettings",
            ),
            "._search",
        ),
        **dict.fromkeys(("AgentSurfaces", "Surface", "surfaces_of", "text_hash"), "._surfaces"),
    },
    __all__,
)
