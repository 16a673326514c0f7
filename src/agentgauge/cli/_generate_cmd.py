"""``agentgauge generate``: new ``conversationScenario`` cases, written as a normal eval set."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from ._app import app
from ._common import fail_input, input_errors_exit_2
from ._options import JudgeBaseUrlOption, JudgeModelOption, NoCacheOption

if TYPE_CHECKING:  # pragma: no cover
    from ..model import EvalCase, EvalSet, SessionInput

__all__ = ["generate"]


def _session_input(path: Path | None, app_name: str | None, user_id: str | None) -> SessionInput | None:
    from ..formats._jsonio import parse_json, read_bytes
    from ..model import SessionInput

    base = SessionInput()
    if path is not None:
        from ..formats import session_input_from_initial

        base = session_input_from_initial(parse_json(read_bytes(str(path)), str(path)), str(path))
    if app_name:
        base.app_name = app_name
    if user_id:
        base.user_id = user_id
    return base if (base.app_name or base.user_id or base.state) else None


def _existing(output: Path, eval_set_id: str | None) -> EvalSet:
    from ..formats import default_id_for, load_eval_set
    from ..model import EvalSet

    if output.exists():
        return load_eval_set(output)
    set_id = eval_set_id or default_id_for(str(output))
    return EvalSet(eval_set_id=set_id, name=set_id)


@dataclass(frozen=True)
class _Generation:
    """How a model writes the scenarios (``--count``, ``--instruction``, ``--judge-model``, ...)."""

    count: int
    instruction: str
    environment: str
    dialect: str
    max_turns: int
    model: str
    base_url: str | None
    cache_dir: Path | None


async def _generated(description: str, how: _Generation) -> list[EvalCase]:
    from ..launch import simulator_client
    from ..model import EvalCase
    from ..simulation import generate_scenarios, scenario_eval_id

    client = simulator_client(how.model, how.base_url, cache_dir=how.cache_dir, budget=None)
    try:
        scenarios = await generate_scenarios(
            client,
            description,
            count=how.count,
            instruction=how.instruction,
            environment_context=how.environment,
            dialect="adk" if how.dialect == "adk" else "trpc",
            max_turns=how.max_turns,
        )
    finally:
        model_client = client.model
        close = getattr(model_client, "aclose", None)
        if close is not None:
            await close()
    return [EvalCase(eval_id=scenario_eval_id(s), conversation_scenario=s) for s in scenarios]


def _from_scenarios_file(
    scenarios: Path, eval_set: EvalSet, session: SessionInput | None, known: set[str]
) -> tuple[list[EvalCase], int]:
    """The new cases of an ADK ConversationScenarios file, and how many scenarios it holds."""
    from ..formats._jsonio import parse_json, read_bytes
    from ..simulation import scenarios_eval_set

    doc = parse_json(read_bytes(str(scenarios)), str(scenarios))
    new = scenarios_eval_set(
        doc, str(scenarios), eval_set_id=eval_set.eval_set_id, session_input=session, existing=known
    ).eval_cases
    return new, len(doc.get("scenarios", []))


def _from_description(
    description: str | None,
    description_file: Path | None,
    how: _Generation,
    session: SessionInput | None,
    known: set[str],
) -> tuple[list[EvalCase], int]:
    """The new cases a model writes from the agent's description, and how many it wrote."""
    import asyncio

    from ..formats._jsonio import read_bytes
    from ..judges import JudgeConfigError, JudgeError

    text = description or ""
    if description_file is not None:
        text = read_bytes(str(description_file)).decode("utf-8", "replace")
    if not text.strip():
        fail_input("the agent description is empty")
    try:
        generated = asyncio.run(_generated(text, how))
    except (JudgeConfigError, JudgeError) as exc:
        fail_input(f"scenario generation failed: {exc}")
    new = []
    for case in generated:
        if case.eval_id in known:
            continue
        known.add(case.eval_id)
        case.session_input = session
        new.append(case)
    return new, len(generated)


def _check(
    dialect: str, fmt: str, count: int, max_turns: int, given: bool, scenarios: Path | None, model: str | None
) -> None:
    """Refuse options that cannot work together (exit 2 with one ``error:`` line)."""
    if dialect not in ("trpc", "adk"):
        fail_input(f"--dialect must be trpc or adk, got {dialect!r}")
    if fmt not in ("native", "adk"):
        fail_input(f"--format must be native or adk, got {fmt!r}")
    if not 1 <= count <= 100:
        fail_input(f"--count must be between 1 and 100, got {count}")
    if max_turns < 0:
        fail_input(f"--max-turns must not be negative, got {max_turns}")
    if scenarios is None and not given:
        fail_input("give --description, --description-file or --scenarios")
    if scenarios is None and not model:
        fail_input("--judge-model is required to generate scenarios (any OpenAI-compatible model)")


@app.command("generate")
def generate(
    output: Annotated[Path, typer.Argument(help="Eval set file to create or add the new cases to.")],
    description: Annotated[
        str | None, typer.Option("--description", help="What the agent does (its instruction, tools, data).")
    ] = None,
    description_file: Annotated[
        Path | None, typer.Option("--description-file", help="Read the agent description from this file.")
    ] = None,
    count: Annotated[int, typer.Option("--count", help="How many scenarios to generate (1 to 100).")] = 5,
    instruction: Annotated[str, typer.Option("--instruction", help="What kinds of scenarios to write.")] = "",
    environment_context: Annotated[
        str, typer.Option("--environment-context", help="Data the agent's tools can see (ids, names, ...).")
    ] = "",
    judge_model: JudgeModelOption = None,
    judge_base_url: JudgeBaseUrlOption = None,
    dialect: Annotated[
        str, typer.Option("--dialect", help="trpc (stopSignal + maxAllowedInvocations) or adk scenarios.")
    ] = "trpc",
    max_turns: Annotated[int, typer.Option("--max-turns", help="maxAllowedInvocations of trpc scenarios.")] = 10,
    scenarios: Annotated[
        Path | None,
        typer.Option("--scenarios", help="Add the scenarios of an ADK ConversationScenarios file (no model call)."),
    ] = None,
    session_input: Annotated[
        Path | None, typer.Option("--session-input", help="ADK session input JSON ({app_name, user_id, state}).")
    ] = None,
    app_name: Annotated[str | None, typer.Option("--app-name", help="sessionInput.appName of the new cases.")] = None,
    user_id: Annotated[str | None, typer.Option("--user-id", help="sessionInput.userId of the new cases.")] = None,
    eval_set_id: Annotated[str | None, typer.Option("--eval-set-id", help="Id of a new eval set.")] = None,
    fmt: Annotated[str, typer.Option("--format", help="native (default) or adk.")] = "native",
    no_cache: NoCacheOption = False,
) -> None:
    """Create conversationScenario eval cases from an agent description with a model, or from an ADK
    ConversationScenarios file, and add them to an eval set (cases whose id already exists are skipped).

    Examples:

      agentgauge generate evals/trip.evalset.json --description-file agent.md --count 5 --judge-model gpt-4o-mini

      agentgauge generate evals/dice.evalset.json --scenarios conversation_scenarios.json --session-input session.json
    """
    from .._util.redact import mask_standard_streams

    mask_standard_streams()
    given = description is not None or description_file is not None
    _check(dialect, fmt, count, max_turns, given, scenarios, judge_model)
    with input_errors_exit_2():
        from ..formats import save_eval_set

        eval_set = _existing(output, eval_set_id)
        session = _session_input(session_input, app_name, user_id)
        known = {case.eval_id for case in eval_set.eval_cases}
        if scenarios is not None:
            new, offered = _from_scenarios_file(scenarios, eval_set, session, known)
        else:
            cache = None if no_cache else Path(".agentgauge/results/.judge_cache")
            how = _Generation(
                count, instruction, environment_context, dialect, max_turns, judge_model or "", judge_base_url, cache
            )
            new, offered = _from_description(description, description_file, how, session, known)
        skipped = offered - len(new)
        eval_set.eval_cases.extend(new)
        save_eval_set(eval_set, output, fmt="adk" if fmt == "adk" else "native")
    note = f", {skipped} already present" if skipped else ""
    typer.echo(f"wrote {output} ({len(new)} new conversationScenario case(s){note}; {len(eval_set.eval_cases)} in all)")
