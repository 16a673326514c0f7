"""Google ADK drop-in: ``from agentgauge.adk import AgentEvaluator`` instead of
``from google.adk.evaluation import AgentEvaluator`` runs the same tests on agentgauge.

Nothing here imports ``google.adk`` unless an ADK agent or an ADK results manager is actually used.
"""

from ._config import DEFAULT_CRITERIA, EvalConfig
from ._evaluator import AgentEvaluator

__all__ = ["DEFAULT_CRITERIA", "AgentEvaluator", "EvalConfig"]
