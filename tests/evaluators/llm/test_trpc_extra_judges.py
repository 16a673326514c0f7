"""trpc judge metrics: llm_rubric_critic, llm_rubric_reference_critic, llm_hallucinations, llm_verifier_pairwise,
llm_judge_template — against the scripted chat-completions server."""

from __future__ import annotations

import json
import math
from typing import Any

import pytest
from chat_server import ChatServer, Reply, completion, ok
from llm_helpers import inv, registry, trpc_metric

from agentgauge.errors import InputError
from agentgauge.evaluators import EvaluatorError
from agentgauge.evaluators.llm._pairwise import letter_grade, pairwise_score
from agentgauge.evaluators.llm._template import json_path, render_template
from agentgauge.model import Criterion, EvalMetric, EvalStatus, Tool

RUBRICS = [
    {"id": "r1", "content": {"text": "Gives the capital."}},
    {"id": "r2", "content": {"text": "Names the country."}},
]


def rubric_answer(*scores: int) -> str:
    items = [{"id": f"r{i + 1}", "score": s, "reason": f"reason {i + 1}"} for i, s in enumerate(scores)]
    return json.dumps({"rubricScores": items})


async def run(metric: EvalMetric, actuals: list, expecteds: list | None = None, **settings: Any):  # type: ignore[no-untyped-def]
    evaluator = registry(**settings).resolve(metric)
    return await evaluator.evaluate(actuals, expecteds if expecteds is not None else actuals, metric)


# --- critics ------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "schema", "phrase"),
    [
        ("llm_rubric_critic", "rubric_critic_scores", "the reference is right"),
        ("llm_rubric_reference_critic", "rubric_reference_critic_scores", "anchor for quality"),
    ],
)
async def test_rubric_critics_score_against_the_reference(
    chat_server: ChatServer, name: str, schema: str, phrase: str
) -> None:
    chat_server.queue(ok(rubric_answer(1, 0)), ok(rubric_answer(1, 0)), ok(rubric_answer(1, 1)))
    metric = trpc_metric(name, chat_server.base_url, samples=3, rubrics=RUBRICS)
    result = await run(metric, [inv("Capital of France?", "Paris")], [inv("Capital of France?", "Paris, France")])
    # Two of three samples fail r2 → the majority is the failing side, its first sample unchanged.
    assert result.overall_score == 0.5 and result.overall_status is EvalStatus.PASSED
    [only] = result.per_invocation_results
    assert [(r.id, r.score) for r in only.rubric_scores] == [("r1", 1.0), ("r2", 0.0)]
    request = chat_server.requests[0]
    assert request.body["response_format"]["json_schema"]["name"] == schema
    assert "<reference_answer>\nParis, France\n</reference_answer>" in request.prompt
    assert "<candidate_answer>\nParis\n</candidate_answer>" in request.prompt
    assert "r2: Names the country." in request.prompt and phrase in request.prompt


async def test_critic_needs_expected_answer_and_rubrics(chat_server: ChatServer) -> None:
    metric = trpc_metric("llm_rubric_critic", chat_server.base_url, rubrics=RUBRICS)
    with pytest.raises(EvaluatorError, match=r"llm_rubric_critic: expected invocation 1 has no finalResponse"):
        await run(metric, [inv()], [inv(answer=None)])
    no_rubrics = trpc_metric("llm_rubric_reference_critic", chat_server.base_url)
    with pytest.raises(EvaluatorError, match=r"llmJudge\.rubrics is required"):
        await run(no_rubrics, [inv()], [inv()])
    assert chat_server.requests == []


# --- llm_hallucinations -------------------------------------------------------------------------------------------

SEGMENTS = "<sentence>Paris is the capital.</sentence>\n<sentence>It has 90 million people.</sentence>"
LABELS = (
    "sentence: Paris is the capital.\nlabel: supported\nrationale: tool said so\n\n"
    "sentence: It has 90 million people.\nlabel: unsupported\nrationale: not in context\n"
)


async def test_llm_hallucinations_two_calls_per_sample(chat_server: ChatServer) -> None:
    chat_server.queue(ok(SEGMENTS), ok(LABELS))
    metric = trpc_metric("llm_hallucinations", chat_server.base_url)
    tool = Tool(name="lookup", arguments={"city": "Paris"}, result={"capital_of": "France"})
    answer = "Paris is the capital. It has 90 million people."
    result = await run(metric, [inv("Tell me about Paris", answer, tools=[tool])])
    assert result.overall_score == 0.5
    [only] = result.per_invocation_results
    assert only.reason == "[supported] Paris is the capital.\n[unsupported] It has 90 million people."
    assert len(chat_server.requests) == 2
    assert answer in chat_server.requests[0].prompt
    validator = chat_server.requests[1].prompt
    assert '<sentence id="2">It has 90 million people.</sentence>' in validator
    assert '"capital_of": "France"' in validator and "Tell me about Paris" in validator


async def test_llm_hallucinations_votes_over_samples(chat_server: ChatServer) -> None:
    all_good = LABELS.replace("unsupported", "supported")
    verdicts = [all_good, all_good, LABELS]  # samples run concurrently: hand out verdicts in arrival order

    def respond(body: dict[str, Any]) -> Reply:
        if body["messages"][0]["content"].startswith("Split the text"):
            return ok(SEGMENTS)
        return ok(verdicts.pop())

    chat_server.responder = respond
    metric = trpc_metric("llm_hallucinations", chat_server.base_url, samples=3, threshold=0.9)
    result = await run(metric, [inv("q", "Paris is the capital. It has 90 million people.")])
    assert result.overall_score == 1.0 and result.overall_status is EvalStatus.PASSED
    assert len(chat_server.requests) == 6


async def test_llm_hallucinations_bad_answers_fail_the_metric(chat_server: ChatServer) -> None:
    metric = trpc_metric("llm_hallucinations", chat_server.base_url)
    chat_server.queue(ok("no tags here"))
    with pytest.raises(EvaluatorError, match=r"llm_hallucinations: invocation 1: segmenter answer has no <sentence>"):
        await run(metric, [inv("q", "Some answer.")])
    chat_server.queue(ok(SEGMENTS), ok(LABELS.replace("unsupported", "made_up")))
    with pytest.raises(EvaluatorError, match=r"unknown label\(s\): made_up"):
        await run(metric, [inv("q", "Some answer.")])
    result = await run(metric, [inv("q", "")])
    assert result.overall_status is EvalStatus.NOT_EVALUATED
    assert result.per_invocation_results[0].reason == "no final answer to check"


# --- llm_verifier_pairwise ----------------------------------------------------------------------------------------


def token(text: str, top: list[tuple[str, float]] | None = None) -> dict[str, Any]:
    alternatives = [{"token": t, "logprob": lp, "bytes": None} for t, lp in (top or [(text, 0.0)])]
    return {"token": text, "logprob": alternatives[0]["logprob"], "bytes": None, "top_logprobs": alternatives}


def with_logprobs(tokens: list[dict[str, Any]]) -> Reply:
    body = completion("".join(t["token"] for t in tokens))
    body["choices"][0]["logprobs"] = {"content": tokens}
    return Reply(200, body)


def grade(index: int) -> float:
    return 1 - index / 19


def test_letter_grade_and_preference() -> None:
    tokens = [
        token("Both fine. "),
        token("<score_A>"),
        token("A", [("A", math.log(0.75)), ("B", math.log(0.25)), ("yes", 0.0)]),
        token("</score_A><score_B>C"),  # the letter shares a token with the tag
        token("</score_B>"),
    ]
    a = letter_grade(tokens, "<score_A>")
    assert a == pytest.approx(0.75 * 1 + 0.25 * grade(1))
    assert letter_grade(tokens, "<score_B>") == pytest.approx(grade(2))
    assert pairwise_score(a, grade(2)) == pytest.approx(0.5 + (a - grade(2)) / 2)
    assert pairwise_score(1.0, 0.0) == 1.0 and pairwise_score(0.0, 1.0) == 0.0
    with pytest.raises(ValueError, match="score tag is missing"):
        letter_grade(tokens[:1], "<score_A>")
    with pytest.raises(ValueError, match="score token is missing after tag"):
        letter_grade(tokens[:2], "<score_A>")


async def test_pairwise_scores_from_logprobs(chat_server: ChatServer) -> None:
    tokens = [
        token("A is better.\n"),
        token("<score_A>"),
        token("B", [("B", math.log(0.5)), ("A", math.log(0.5))]),
        token("</score_A>"),
        token("<score_B>"),
        token("F"),
        token("</score_B>"),
    ]
    chat_server.queue(with_logprobs(tokens))
    metric = trpc_metric("llm_verifier_pairwise", chat_server.base_url, rubrics=RUBRICS)
    result = await run(metric, [inv("Capital?", "Paris")], [inv("Capital?", "Lyon")])
    a, b = (grade(0) + grade(1)) / 2, grade(5)
    assert result.overall_score == pytest.approx(0.5 + (a - b) / 2)
    assert result.per_invocation_results[0].reason == f"grade A (actual) {a:.4f}, grade B (expected) {b:.4f}"
    body = chat_server.requests[0].body
    assert body["logprobs"] is True and body["top_logprobs"] == 20
    assert "agentgauge_logprobs_envelope" not in json.dumps(body)
    prompt = chat_server.requests[0].prompt
    assert "## Candidate A\nParis" in prompt and "## Candidate B\nLyon" in prompt and "- Gives the capital." in prompt


async def test_pairwise_without_logprobs_is_a_clear_error(chat_server: ChatServer) -> None:
    chat_server.queue(ok("<score_A>A</score_A><score_B>B</score_B>"))
    metric = trpc_metric("llm_verifier_pairwise", chat_server.base_url)
    with pytest.raises(EvaluatorError) as info:
        await run(metric, [inv()], [inv()])
    assert str(info.value) == (
        "llm_verifier_pairwise: invocation 1: the judge endpoint returned no token logprobs; "
        "llm_verifier_pairwise needs an endpoint that supports logprobs/top_logprobs"
    )
    injected = EvalMetric(metric_name="llm_verifier_pairwise", criterion=Criterion(llm_judge={}))
    with pytest.raises(EvaluatorError, match="the judge answered without token logprobs"):
        await run(injected, [inv()], [inv()], judge=lambda messages: "<score_A>A</score_A>")


async def test_pairwise_missing_letter_is_a_parse_error(chat_server: ChatServer) -> None:
    chat_server.queue(with_logprobs([token("<score_A>"), token("x"), token("<score_B>"), token("B")]))
    metric = trpc_metric("llm_verifier_pairwise", chat_server.base_url)
    with pytest.raises(EvaluatorError, match="score_A: no letter A-T among the logprobs after the tag"):
        await run(metric, [inv()], [inv()])


# --- llm_judge_template -------------------------------------------------------------------------------------------


def template_metric(base_url: str, *, samples: int = 1, threshold: float = 0.5, **template: Any) -> EvalMetric:
    template.setdefault("prompt", "Q: {{question}}\nA: {{answer}}")
    template.setdefault(
        "variableBindings",
        [
            {"templateVariable": "question", "source": {"scope": "actual", "field": "userContent"}},
            {"templateVariable": "answer", "source": {"scope": "actual", "field": "finalResponse"}},
        ],
    )
    return trpc_metric("llm_judge_template", base_url, samples=samples, threshold=threshold, template=template)


def test_json_path_and_render() -> None:
    doc = '{"a": {"b": [{"c": 1}, "two"]}, "x y": true}'
    assert json_path(doc, "$.a.b[0].c") == 1
    assert json_path(doc, "$.a.b[1]") == "two"
    assert json_path(doc, "$['x y']") is True
    assert json_path("plain", "$") == "plain"
    with pytest.raises(ValueError, match=r"no element \[5\] at \$.a.b"):
        json_path(doc, "$.a.b[5]")
    with pytest.raises(ValueError, match="needs a JSON value"):
        json_path("plain text", "$.a")
    assert render_template("{{ a }}+{{b}}", {"a": "1", "b": "2"}) == "1+2"
    with pytest.raises(ValueError, match="unbound variable"):
        render_template("{{a}} {{c}}", {"a": "1"})


async def test_template_single_score_with_all_scopes(chat_server: ChatServer) -> None:
    chat_server.queue(ok('{"score": 0.8, "reason": "close"}'))
    bindings = [
        {"templateVariable": "q", "source": {"scope": "actual", "field": "userContent"}},
        {"templateVariable": "city", "source": {"scope": "actual", "field": "finalResponse", "path": "$.city[0]"}},
        {"templateVariable": "ref", "source": {"scope": "expected", "field": "finalResponse"}},
        {"templateVariable": "rules", "source": {"scope": "metric", "field": "rubrics"}},
    ]
    metric = template_metric(
        chat_server.base_url,
        prompt="Question {{q}} / city {{city}} / reference {{ref}} / rules:\n{{rules}}",
        responseScorerName="single_score",
        variableBindings=bindings,
    )
    metric.criterion.llm_judge["rubrics"] = RUBRICS  # type: ignore[union-attr,index]
    result = await run(metric, [inv("Where?", '{"city": ["Paris", "Lyon"]}')], [inv("Where?", "Paris")])
    assert result.overall_score == 0.8 and result.per_invocation_results[0].reason == "close"
    request = chat_server.requests[0]
    assert request.prompt == (
        "Question Where? / city Paris / reference Paris / rules:\nr1: Gives the capital.\nr2: Names the country."
    )
    assert request.body["response_format"]["json_schema"]["name"] == "single_score_answer"


@pytest.mark.parametrize(
    ("scorer", "answers", "aggregator", "score", "value"),
    [
        ("boolean", ['{"passed": true, "reason": "ok"}'], None, 1.0, {"kind": "boolean", "boolean": True}),
        ("boolean", ['{"passed": false, "reason": "no"}'], None, 0.0, {"kind": "boolean", "boolean": False}),
        (
            "single_score",
            ['{"score": 0.2, "reason": "a"}', '{"score": 0.9, "reason": "b"}'],
            "average",
            0.55,
            {"kind": "numeric", "numeric": 0.55},
        ),
        (
            "single_score",
            ['{"score": 0.2, "reason": "a"}', '{"score": 0.9, "reason": "b"}'],
            "majority_vote",
            0.2,
            {"kind": "numeric", "numeric": 0.2},
        ),
        (
            "single_score",
            ['{"score": 0.6, "reason": "a"}', '{"score": 0.1, "reason": "b"}', '{"score": 0.9, "reason": "c"}'],
            None,
            0.6,
            {"kind": "numeric", "numeric": 0.6},
        ),
        (
            "categorical",
            ['{"category": "partial", "reason": "half"}'],
            None,
            0.5,
            {"kind": "categorical", "categorical": "partial"},
        ),
        (
            "categorical",
            ['{"category": "weird", "reason": "?"}'],
            None,
            0.0,
            {"kind": "categorical", "categorical": "weird"},
        ),
        ("rubric_scores", [rubric_answer(1, 0)], None, 0.5, {"kind": "numeric", "numeric": 0.5}),
    ],
)
async def test_template_scorers_and_aggregators(
    chat_server: ChatServer,
    scorer: str,
    answers: list[str],
    aggregator: str | None,
    score: float,
    value: dict[str, Any],
) -> None:
    chat_server.queue(*(ok(a) for a in answers))
    extra: dict[str, Any] = {"responseScorerName": scorer}
    if aggregator:
        extra["sampleAggregatorName"] = aggregator
    if scorer == "categorical":
        extra["responseScorerOptions"] = {
            "categories": [{"label": "full", "score": 1}, {"label": "partial", "score": 0.5}]
        }
    metric = template_metric(chat_server.base_url, samples=len(answers), **extra)
    result = await run(metric, [inv()])
    assert result.overall_score == pytest.approx(score)
    if scorer == "categorical" and score == 0.0:
        assert result.per_invocation_results[0].reason == "unknown categorical label 'weird': ?"
    # The typed value of trpc's details.value: what the judge answered, beside the score thresholds read.
    typed = result.per_invocation_results[0].value
    assert typed is not None and typed.model_dump(mode="json") == pytest.approx(value)


@pytest.mark.parametrize(
    ("template", "message"),
    [
        ({"responseScorerName": "single_score", "prompt": " "}, "llmJudge.template.prompt is empty"),
        ({"responseScorerName": "stars"}, "unknown scorer 'stars'; known: boolean, categorical, rubric_scores"),
        ({"responseScorerName": "categorical"}, "responseScorerOptions.categories is required for categorical"),
        ({"responseScorerName": "boolean", "prompt": "{{missing}}"}, "unbound variable"),
        ({"responseScorerName": "boolean", "sampleAggregatorName": "median"}, "unknown aggregator 'median'"),
        (
            {
                "responseScorerName": "boolean",
                "prompt": "{{x}}",
                "variableBindings": [{"templateVariable": "x", "source": {"scope": "expected", "field": "tools"}}],
            },
            r"variableBindings\[0\].source.field: expected.tools is not supported",
        ),
        (
            {
                "responseScorerName": "boolean",
                "prompt": "{{x}}",
                "variableBindings": [
                    {"templateVariable": "x", "source": {"scope": "actual", "field": "finalResponse", "path": "a.b"}}
                ],
            },
            "path 'a.b' must start with",
        ),
    ],
)
def test_template_configuration_errors_at_validation(template: dict[str, Any], message: str) -> None:
    metric = template_metric("http://127.0.0.1:9/v1", **template)
    with pytest.raises(InputError, match=message) as info:
        registry().validate_metrics([metric], file="m.json")
    assert "metrics[0].criterion" in str(info.value)


async def test_template_binding_failures_and_bad_answers(chat_server: ChatServer) -> None:
    bindings = [{"templateVariable": "x", "source": {"scope": "actual", "field": "finalResponse", "path": "$.k"}}]
    metric = template_metric(
        chat_server.base_url, prompt="{{x}}", responseScorerName="boolean", variableBindings=bindings
    )
    with pytest.raises(EvaluatorError, match=r"resolve template variable 'x': path '\$.k' needs a JSON value"):
        await run(metric, [inv("q", "not json")])
    chat_server.queue(ok('{"passed": "yes", "reason": "r"}'))
    with pytest.raises(EvaluatorError, match="passed 'yes' is not true or false"):
        await run(metric, [inv("q", '{"k": 1}')])


async def test_template_trace_step_binding(chat_server: ChatServer) -> None:
    chat_server.queue(ok('{"passed": true, "reason": "ok"}'))
    trace = {"steps": [{"nodeID": "plan", "input": {"text": "in-1"}, "output": {"text": "plan output"}}]}
    bindings = [
        {
            "templateVariable": "plan",
            "source": {"scope": "actual", "field": "traceStepOutput", "selector": {"nodeID": "plan"}},
        }
    ]
    metric = template_metric(
        chat_server.base_url, prompt="P={{plan}}", responseScorerName="boolean", variableBindings=bindings
    )
    actual = inv("q", "a", executionTrace=trace)
    result = await run(metric, [actual])
    assert result.overall_score == 1.0 and chat_server.requests[0].prompt == "P=plan output"
    # trpc writes traces with Go's field names.
    chat_server.queue(ok('{"passed": false, "reason": "no"}'))
    go_trace = {
        "Steps": [{"NodeID": "plan", "Output": {"Text": "first"}}, {"NodeID": "plan", "Output": {"Text": "go"}}]
    }
    result = await run(metric, [inv("q", "a", executionTrace=go_trace)])
    assert result.overall_score == 0.0 and chat_server.requests[1].prompt == "P=go"
    with pytest.raises(EvaluatorError, match=r"executionTrace is empty for actual\.traceStepOutput"):
        await run(metric, [inv("q", "a")])
