"""Tool mocks: the per-invocation ``toolMock`` rules of an eval set applied where agents execute their tools.

- :func:`mocks_for` builds the :class:`ActiveMocks` of one invocation (``actual`` or ``expected`` side, plus ADK's
  legacy ``mock_tool_output``); the run engine activates them with :func:`use_mocks` around the agent's turn.
- :func:`mocked_call` / :func:`mockable` apply the active rules to a Python tool call: a matching rule's result
  replaces the call, a mocked tool without a matching rule fails the turn (:class:`ToolMockError`), tools without
  rules run for real. :class:`~agentgauge.agents.FunctionTool` (and so :class:`~agentgauge.agents.OpenAIAgent`)
  and Google ADK agents apply them on their own.
- :class:`MockResultGenerator` produces ``llmGenerator`` results with any OpenAI-compatible model.
- Replay: :func:`replay_eval_set` / :func:`replay_case` / :func:`replay_invocations` turn recorded conversations
  (traces, saved results, cases with intermediate data) into replay cases whose ``toolMock`` is the recording
  (``fifo`` or ``strict``); while such a turn runs, a :class:`ReplayLedger` serves every tool call from it and
  records what was answered, what drifted, what was never recorded and what was never consumed.
"""

from ._recording import (
    ReplaySet,
    is_replay_case,
    recorded_tool_mock,
    replay_case,
    replay_eval_set,
    replay_invocations,
)
from ._replay import ReplayLedger
from ._runtime import (
    ActiveMocks,
    MockResultGenerator,
    ToolMockError,
    active_mocks,
    mockable,
    mocked_call,
    mocks_for,
    parse_generated,
    use_mocks,
)

__all__ = [
    "ActiveMocks",
    "MockResultGenerator",
    "ReplayLedger",
    "ReplaySet",
    "ToolMockError",
    "active_mocks",
    "is_replay_case",
    "mockable",
    "mocked_call",
    "mocks_for",
    "parse_generated",
    "recorded_tool_mock",
    "replay_case",
    "replay_eval_set",
    "replay_invocations",
    "use_mocks",
]
