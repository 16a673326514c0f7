"""``agentgauge generate``: new ``conversationScenario`` cases, written as a normal eval set."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from ._app import app
from ._common import fail_input, input_errors_exit_2

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


async def _generated(
    description: str,
    *,
    count: int,
    instruction: str,
    environment: str,
    dialect: str,
    max_turns: int,
    model: str,
    base_url: str | None,
    cache_dir: Path | None,
) -> list[EvalCase]:
    from ..model import EvalCase
    from ..simulation import generate_scenarios, scenario_eval_id
    from ._simulation_opts import simulator_client

    client = simulator_client(model, base_url, cache_dir=cache_dir, budget=None)
    try:
        scenarios = await generate_scenarios(
            client,
            description,
            count=count,
            instruction=instruction,
            environment_context=environment,
            dialect="adk" if dialect == "adk" else "trpc",
            max_turns=max_turns,
        )
    finally:
        model_client = client.model
        close = getattr(model_client, "aclose", None)
        if close is not None:
            await close()
    return [EvalCase(eval_id=scenario_eval_id(s), conversation_scenario=s) for s in scenarios]


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
    judge_model: Annotated[
        str | None, typer.Option("--judge-model", help="Model that writes the scenarios (OpenAI-compatible).")
    ] = None,
    judge_base_url: Annotated[
        str | None, typer.Option("--judge-base-url", help="OpenAI-compatible base URL of --judge-model.")
    ] = None,
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
    no_cache: Annotated[bool, typer.Option("--no-cache", help="Do not use the model answer cache.")] = False,
) -> None:
    """Create conversationScenario eval cases from an agent description with a model, or from an ADK
    ConversationScenarios file, and add them to an eval set (cases whose id already exists are skipped).

    Examples:

      agentgauge generate evals/trip.evalset.json --description-file agent.md --count 5 --judge-model gpt-4o-mini

      agentgauge generate evals/dice.evalset.json --scenarios conversation_scenarios.json --session-input session.json
    """
    import asyncio

    from .._util.redact import mask_standard_streams

    mask_standard_streams()
    if dialect not in ("trpc", "adk"):
        fail_input(f"--dialect must be trpc or adk, got {dialect!r}")
    if fmt not in ("native", "adk"):
        fail_input(f"--format must be native or adk, got {fmt!r}")
    if not 1 <= count <= 100:
        fail_input(f"--count must be between 1 and 100, got {count}")
    if max_turns < 0:
        fail_input(f"--max-turns must not be negative, got {max_turns}")
    if scenarios is None and description is None and description_file is None:
        fail_input("give --description, --description-file or --scenarios")
    if scenarios is None and not judge_model:
        fail_input("--judge-model is required to generate scenarios (any OpenAI-compatible model)")
    with input_errors_exit_2():
        from ..formats import save_eval_set
        from ..formats._jsonio import parse_json, read_bytes
        from ..judges import JudgeConfigError, JudgeError
        from ..simulation import scenarios_eval_set

        eval_set = _existing(output, eval_set_id)
        session = _session_input(session_input, app_name, user_id)
        known = {case.eval_id for case in eval_set.eval_cases}
        if scenarios is not None:
            doc = parse_json(read_bytes(str(scenarios)), str(scenarios))
            new = scenarios_eval_set(
                doc, str(scenarios), eval_set_id=eval_set.eval_set_id, session_input=session, existing=known
            ).eval_cases
        else:
            text = description or ""
            if description_file is not None:
                text = read_bytes(str(description_file)).decode("utf-8", "replace")
            if not text.strip():
                fail_input("the agent description is empty")
            cache = None if no_cache else Path(".agentgauge/results/.judge_cache")
            try:
                generated = asyncio.run(
                    _generated(
                        text,
                        count=count,
                        instruction=instruction,
                        environment=environment_context,
                        dialect=dialect,
                        max_turns=max_turns,
                        model=judge_model or "",
                        base_url=judge_base_url,
                        cache_dir=cache,
                    )
                )
            except (JudgeConfigError, JudgeError) as exc:
                fail_input(f"scenario generation failed: {exc}")
            new = []
            for case in generated:
                if case.eval_id in known:
                    continue
                known.add(case.eval_id)
                case.session_input = session
                new.append(case)
        skipped = len(doc.get("scenarios", [])) - len(new) if scenarios is not None else len(generated) - len(new)
        eval_set.eval_cases.extend(new)
        save_eval_set(eval_set, output, fmt="adk" if fmt == "adk" else "native")
    note = f", {skipped} already present" if skipped else ""
    typer.echo(f"wrote {output} ({len(new)} new conversationScenario case(s){note}; {len(eval_set.eval_cases)} in all)")
