"""The use cases of agentgauge, between the deliveries (the command line, the web server, the ADK drop-in, the pytest
plugin) and the run engine (:mod:`agentgauge.run`): what to run, said once in an :class:`EvalRequest`, checked once,
then run.

    from agentgauge.launch import EvalRequest, evaluate

    [outcome] = await evaluate(EvalRequest(agent="examples/calculator/agent.py",
                                           sets=("examples/calculator/calculator.evalset.json",)))

:func:`prepare` checks a request and loads its inputs (bad input raises before anything runs); its
:class:`PreparedRun` runs the eval sets in turn and can be interrupted. Notes for the person running it come back
through ``on_note`` and progress through a :class:`RunProgress`: nothing here prints.
"""

from typing import TYPE_CHECKING

from .._util.lazy import lazy_exports
from ._options import EngineOptions, GateOptions, JudgeOptions, MetricOptions, RemoteOptions, SimulationOptions
from ._request import DEFAULT_OUTPUT_DIR, EvalRequest, EvalSetSpec, RecordedTraces
from ._surface import COMMAND_LINE, HTTP_API, MAX_NUM_RUNS, PYTHON, Surface

if TYPE_CHECKING:
    from ._baseline import Baseline, Compared
    from ._checks import CheckedRequest, make_registry
    from ._evaluate import evaluate, evaluate_set, prepare
    from ._remote import remote_settings
    from ._run import Note, PreparedRun, RunProgress, SetHeading, SetRun, Warn
    from ._sets import METRICS_FILES, find_metrics, metrics_file
    from ._simulation import simulator_client
    from ._trace_run import segment

__all__ = [
    "COMMAND_LINE",
    "DEFAULT_OUTPUT_DIR",
    "HTTP_API",
    "MAX_NUM_RUNS",
    "METRICS_FILES",
    "PYTHON",
    "Baseline",
    "CheckedRequest",
    "Compared",
    "EngineOptions",
    "EvalRequest",
    "EvalSetSpec",
    "GateOptions",
    "JudgeOptions",
    "MetricOptions",
    "Note",
    "PreparedRun",
    "RecordedTraces",
    "RemoteOptions",
    "RunProgress",
    "SetHeading",
    "SetRun",
    "SimulationOptions",
    "Surface",
    "Warn",
    "evaluate",
    "evaluate_set",
    "find_metrics",
    "make_registry",
    "metrics_file",
    "prepare",
    "remote_settings",
    "segment",
    "simulator_client",
]

# The request and its options are plain data (the web server's settings hold them); running one loads the engine.
__getattr__, __dir__ = lazy_exports(
    __name__,
    {
        "Baseline": "._baseline",
        "Compared": "._baseline",
        "CheckedRequest": "._checks",
        "make_registry": "._checks",
        "evaluate": "._evaluate",
        "evaluate_set": "._evaluate",
        "prepare": "._evaluate",
        "remote_settings": "._remote",
        **dict.fromkeys(("Note", "PreparedRun", "RunProgress", "SetHeading", "SetRun", "Warn"), "._run"),
        "METRICS_FILES": "._sets",
        "find_metrics": "._sets",
        "metrics_file": "._sets",
        "simulator_client": "._simulation",
        "segment": "._trace_run",
    },
    __all__,
)
