"""pytest integration: eval set files become test items, one per eval case (``file.evalset.json::case_id``).

Collection is opt-in so that JSON fixtures in a test tree are never run by accident. An eval file
(``*.evalset.json`` or ``*.test.json``) is collected when

- it is named on the command line (``pytest evals/weather.evalset.json``), or
- it lies under a directory named on the command line and an agent is configured (``--agentgauge-agent``,
  the ``agentgauge_agent`` ini key or an ``agentgauge_agent`` fixture visible from that directory), or
- the ini key ``agentgauge_collect = true`` is set (then every eval file under ``testpaths`` is collected).

The agent comes from ``--agentgauge-agent SPEC``, else the ``agentgauge_agent`` ini key, else a fixture named
``agentgauge_agent``. Metrics are found beside the file as ``agentgauge eval`` finds them: ``<evalSetId>.metrics.json``,
else ``test_config.json``, else agentevals' ``eval_config.yaml``, else ADK's default criteria. Disable the plugin
with ``-p no:agentgauge``.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from .model import EvalSet

__all__ = ["EvalCaseFailure", "EvalCaseItem", "EvalSetFile", "pytest_addoption", "pytest_collect_file"]

_SUFFIXES = (".evalset.json", ".test.json")
_FIXTURE = "agentgauge_agent"


def pytest_addoption(parser: pytest.Parser) -> None:
    """Register ``--agentgauge-agent`` / ``--agentgauge-num-runs`` / ``--agentgauge-case-status`` and the
    ``agentgauge_*`` ini keys."""
    group = parser.getgroup("agentgauge", "agent evaluations (agentgauge)")
    group.addoption(
        "--agentgauge-agent",
        dest="agentgauge_agent",
        default=None,
        metavar="SPEC",
        help="agent for collected eval sets: path/to/agent.py, an ADK agent directory, package.module:attr or a "
        "remote agent URL (a2a+http://, adk+http://HOST/apps/APP, agui+http://, trpcagent+http://HOST/APP, "
        "http:// with a config)",
    )
    group.addoption(
        "--agentgauge-agent-header",
        dest="agentgauge_agent_headers",
        action="append",
        default=[],
        metavar="'NAME: VALUE'",
        help="header sent to a remote agent (repeatable; ${ENV} expanded, the value masked)",
    )
    group.addoption(
        "--agentgauge-agent-config",
        dest="agentgauge_agent_config",
        default=None,
        metavar="FILE",
        help="remote agent config file: headers, timeouts, retries, TLS; a plain http:// service's request and "
        "answer paths",
    )
    group.addoption(
        "--agentgauge-agent-timeout",
        dest="agentgauge_agent_timeout",
        type=float,
        default=None,
        metavar="SECONDS",
        help="seconds one turn of a remote agent may take in all (default 300)",
    )
    group.addoption(
        "--agentgauge-agent-max-response-mb",
        dest="agentgauge_agent_max_response_mb",
        type=float,
        default=None,
        metavar="MB",
        help="largest answer read from a remote agent (default 32)",
    )
    group.addoption(
        "--agentgauge-agent-follow-redirects",
        dest="agentgauge_agent_follow_redirects",
        action="store_true",
        default=False,
        help="follow a remote agent's redirects to another origin, without the configured headers",
    )
    group.addoption(
        "--agentgauge-num-runs",
        dest="agentgauge_num_runs",
        type=int,
        default=None,
        metavar="N",
        help="run each eval case N times (default: ini agentgauge_num_runs or 1)",
    )
    group.addoption(
        "--agentgauge-case-status",
        dest="agentgauge_case_status",
        default=None,
        metavar="mean|all|majority|any",
        help="how a case's status follows from its runs (default: ini agentgauge_case_status or mean: each "
        "metric's scores over the runs against its threshold)",
    )
    parser.addini("agentgauge_agent", "agent spec for collected eval sets", default="")
    parser.addini("agentgauge_case_status", "how a case's status follows from its runs", default="mean")
    parser.addini("agentgauge_num_runs", "how many times each eval case runs", default="1")
    parser.addini(
        "agentgauge_collect",
        "collect *.evalset.json / *.test.json files found under testpaths",
        type="bool",
        default=False,
    )


class EvalCaseFailure(Exception):
    """An eval case did not pass; the message is the Expected / Actual report shown as the failure."""


def _configured_agent(config: pytest.Config) -> str | None:
    """The agent spec from the command line (relative to the invocation directory) or the ini file (relative to
    the ini file's directory)."""
    option = config.getoption("agentgauge_agent")
    if option:
        base, spec = config.invocation_params.dir, str(option)
    else:
        spec = str(config.getini("agentgauge_agent") or "")
        base = config.inipath.parent if config.inipath else config.rootpath
    if not spec:
        return None
    candidate = base / spec
    return str(candidate) if not Path(spec).is_absolute() and (candidate.exists() or spec.endswith(".py")) else spec


def _remote_settings(config: pytest.Config) -> Any:
    """The remote-agent settings of the ``--agentgauge-agent-*`` options (``None`` without them), read as ``eval``
    reads its ``--agent-*`` options."""
    from .agents.remote import RemoteAgentSettings

    file = config.getoption("agentgauge_agent_config")
    return RemoteAgentSettings.from_options(
        headers=config.getoption("agentgauge_agent_headers") or (),
        config=None if not file else config.invocation_params.dir / str(file),
        turn_timeout=config.getoption("agentgauge_agent_timeout"),
        max_response_mb=config.getoption("agentgauge_agent_max_response_mb"),
        follow_redirects=bool(config.getoption("agentgauge_agent_follow_redirects")),
        prefix="--agentgauge-agent-",
    )


def _has_agent_fixture(file_path: Path, parent: pytest.Collector) -> bool:
    if parent.session._fixturemanager.getfixturedefs(_FIXTURE, parent):
        return True
    # Conftest fixtures only become visible once their directory is collected, so look at the modules instead.
    for plugin in parent.config.pluginmanager.get_plugins():
        origin = getattr(plugin, "__file__", None)
        if not origin or Path(origin).name != "conftest.py" or not hasattr(plugin, _FIXTURE):
            continue
        if file_path.is_relative_to(Path(origin).resolve().parent):
            return True
    return False


def _explicit_paths(config: pytest.Config) -> list[Path]:
    if config.args_source is not pytest.Config.ArgsSource.ARGS:
        return []
    base = config.invocation_params.dir
    return [(base / arg.split("::", 1)[0]).resolve() for arg in config.args]


def _wanted(file_path: Path, parent: pytest.Collector) -> bool:
    config = parent.config
    if config.getini("agentgauge_collect"):
        return True
    resolved = file_path.resolve()
    explicit = _explicit_paths(config)
    if resolved in explicit:
        return True
    under_arg_dir = any(p.is_dir() and resolved.is_relative_to(p) for p in explicit)
    return under_arg_dir and (_configured_agent(config) is not None or _has_agent_fixture(resolved, parent))


def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> EvalSetFile | None:
    """Collect ``*.evalset.json`` / ``*.test.json`` files when asked to (see the module docstring)."""
    if not file_path.name.endswith(_SUFFIXES) or not _wanted(file_path, parent):
        return None
    node: EvalSetFile = EvalSetFile.from_parent(parent, path=file_path)
    return node


class EvalSetFile(pytest.File):
    """An eval set file; yields one :class:`EvalCaseItem` per eval case."""

    def collect(self) -> Iterator[pytest.Item]:
        """Load the eval set (any supported format) and yield its cases in file order."""
        from .errors import InputError, NotFoundError

        try:
            eval_set = _load(self.path)
        except (InputError, NotFoundError, OSError) as exc:
            raise self.CollectError(str(exc)) from None
        for case in eval_set.eval_cases:
            yield EvalCaseItem.from_parent(self, name=case.eval_id, callobj=_run_case, eval_set=eval_set)


def _load(path: Path) -> EvalSet:
    from .formats import load_eval_set

    return load_eval_set(path)


def _run_case(request: pytest.FixtureRequest) -> None:
    item = request.node
    assert isinstance(item, EvalCaseItem)
    item.run_eval(request)


class EvalCaseItem(pytest.Function):
    """One eval case of an eval set file, run through agentgauge's evaluator with a case filter."""

    def __init__(self, *, eval_set: EvalSet, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.eval_set = eval_set

    def _resolve_agent(self, request: pytest.FixtureRequest) -> object:
        spec = _configured_agent(self.config)
        if spec is not None:
            from .agents import load_agent

            return load_agent(spec, remote=_remote_settings(self.config))
        try:
            return request.getfixturevalue(_FIXTURE)
        except pytest.FixtureLookupError:
            raise EvalCaseFailure(
                "no agent configured: pass --agentgauge-agent SPEC, set the ini key agentgauge_agent, "
                f"or define a fixture named {_FIXTURE!r} in a conftest.py"
            ) from None

    def _num_runs(self) -> int:
        value = self.config.getoption("agentgauge_num_runs") or self.config.getini("agentgauge_num_runs")
        try:
            runs = int(value)
        except ValueError:
            raise pytest.UsageError(f"agentgauge_num_runs must be an integer, got {value!r}") from None
        if runs < 1:
            raise pytest.UsageError(f"agentgauge_num_runs must be at least 1, got {runs}")
        return runs

    def _case_status(self) -> str:
        from .model import parse_case_status_rule

        value = self.config.getoption("agentgauge_case_status") or self.config.getini("agentgauge_case_status")
        try:
            return parse_case_status_rule(str(value)).value
        except ValueError as exc:
            raise pytest.UsageError(f"agentgauge_case_status: {exc}") from None

    def run_eval(self, request: pytest.FixtureRequest) -> None:
        """Run this case and raise :class:`EvalCaseFailure` with the Expected / Actual report of each run that did
        not pass unless the case passed (its status over its runs, by the case status rule)."""
        import asyncio

        from .launch import evaluate_set
        from .model import EvalStatus
        from .reporting import case_failure_text
        from .summary import result_summary

        # Trace-mode cases replay recorded conversations: like `agentgauge eval`, they need no agent.
        selected = next(c for c in self.eval_set.eval_cases if c.eval_id == self.name)
        agent = None if selected.is_trace else self._resolve_agent(request)
        run = evaluate_set(
            self.eval_set,
            None,
            agent,
            app_name="pytest",
            num_runs=self._num_runs(),
            case_ids=[self.name],
            case_status=self._case_status(),
            path=self.path,
        )
        result = asyncio.run(run)
        runs = result.eval_case_results
        summary = next((c for c in result_summary(result).cases if c.eval_id == self.name), None)
        failures = []
        for case in runs:
            if case.final_eval_status is EvalStatus.PASSED and not case.error_message:
                continue
            text = case_failure_text(case)
            if case.final_eval_status is EvalStatus.NOT_EVALUATED and not text:
                text = "not evaluated: no metric produced a score"
            status = case.final_eval_status.value.replace("_", " ")
            failures.append(f"run {case.run_id}: {status}\n{text}".rstrip() if len(runs) > 1 else text)
        if summary is None or not summary.passed:
            where = f"eval case {self.name!r} of {self.eval_set.eval_set_id!r}"
            status = summary.status_text if summary is not None else "not run"
            raise EvalCaseFailure(
                "\n\n".join([f"{where}: {status.replace('not_evaluated', 'not evaluated')}", *failures])
            )

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException]) -> Any:  # type: ignore[override]
        """Show the Expected / Actual report instead of a traceback into agentgauge."""
        if isinstance(excinfo.value, EvalCaseFailure):
            return str(excinfo.value)
        from .errors import InputError, NotFoundError

        if isinstance(excinfo.value, InputError | NotFoundError):
            return f"agentgauge: {excinfo.value}"
        return super().repr_failure(excinfo)

    def reportinfo(self) -> tuple[Path, int | None, str]:
        """Location shown in reports: the eval file and the case id.

        The domain is the case id alone: pytest's verbose line replaces dots in a domain that ends the node id with
        ``::``, which would turn ``calculator.evalset.json`` into ``calculator::evalset::json``.
        """
        return self.path, None, self.name
