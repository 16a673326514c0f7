// Scores invocation pairs with ADK-TS's own evaluation code, for agentgauge's differential tests.
//
// Reads one JSON document from stdin: {"metrics": [{"metricName", "threshold"}], "pairs": [{"actual", "expected"}]}
// where each invocation is in ADK-TS's camelCase form (finalResponse.parts, intermediateData.toolUses). Every pair
// goes through LocalEvalService.evaluate, the path ADK-TS's AgentEvaluator takes, so each metric is scored by the
// evaluator ADK-TS registers under its name (DEFAULT_METRIC_EVALUATOR_REGISTRY). Writes one JSON document to stdout:
// {"version", "results": [{metricName: {"score", "status"}}]}, a score of null meaning ADK-TS gave none.
//
// With "cases": [{"actual": [invocations], "expected": [invocations]}] instead of "pairs", each case (several
// invocations) is judged as ADK-TS's AgentEvaluator judges an eval case: LocalEvalService.evaluate, then its own
// _getEvalMetricResultsWithInvocation and _processMetricsAndGetFailures (a metric fails unless the mean of its
// scored invocations reaches the threshold; a metric with none scored fails too). The answer's "cases" lists per
// case the metrics that failed it: {"failed": [metricName], "passed": bool}.
"use strict";

const fs = require("node:fs");

async function main() {
  // ADK-TS logs through console.*: keep stdout for the answer alone.
  const write = process.stdout.write.bind(process.stdout);
  console.log = console.info = console.warn = console.debug = (...args) => process.stderr.write(`${args.join(" ")}\n`);
  const adk = require("@iqai/adk");
  // Read stdin as a stream: readFileSync(0) fails with EAGAIN on a large non-blocking pipe.
  const chunks = [];
  for await (const chunk of process.stdin) chunks.push(chunk);
  const request = JSON.parse(Buffer.concat(chunks).toString("utf8"));
  const service = new adk.LocalEvalService({ name: "differential", ask: async () => "" });
  if (request.cases) {
    write(JSON.stringify({ version: version(), cases: await judgeCases(adk, service, request) }));
    return;
  }
  const inferenceResults = request.pairs.map((pair, i) => [
    { ...pair.expected, invocationId: `p${i}-expected-0` },
    { ...pair.actual, invocationId: `p${i}-0` },
  ]);
  const results = request.pairs.map(() => ({}));
  const config = { evalMetrics: request.metrics };
  for await (const evalResult of service.evaluate({ inferenceResults, evaluateConfig: config })) {
    const index = Number(evalResult.evalSetId.slice(1).split("-")[0]);
    for (const caseResult of evalResult.evalCaseResults) {
      const per = caseResult.evalMetricResultPerInvocation[0].evalMetricResults[0];
      results[index][per.metricName] = { score: per.score === undefined ? null : per.score, status: per.evalStatus };
    }
  }
  write(JSON.stringify({ version: version(), results }));
}

// adk.VERSION is a stale constant in the 0.5.x builds: the installed package's own manifest says which one ran.
function version() {
  const manifest = require("node:path").join(require.resolve("@iqai/adk"), "..", "..", "package.json");
  return JSON.parse(fs.readFileSync(manifest, "utf8")).version;
}

async function judgeCases(adk, service, request) {
  const inferenceResults = request.cases.map((c, i) => [
    ...c.expected.map((inv, k) => ({ ...inv, invocationId: `c${i}-expected-${k}` })),
    ...c.actual.map((inv, k) => ({ ...inv, invocationId: `c${i}-${k}` })),
  ]);
  const verdicts = request.cases.map(() => null);
  const config = { evalMetrics: request.metrics };
  for await (const evalResult of service.evaluate({ inferenceResults, evaluateConfig: config })) {
    const index = Number(evalResult.evalSetId.slice(1).split("-")[0]);
    const perMetric = adk.AgentEvaluator._getEvalMetricResultsWithInvocation(evalResult.evalCaseResults);
    const failures = adk.AgentEvaluator._processMetricsAndGetFailures(perMetric, false, "agent");
    const failed = failures.map((line) => line.split(" for agent Failed.")[0]);
    verdicts[index] = { failed, passed: failures.length === 0 };
  }
  return verdicts;
}

main().catch((error) => {
  process.stderr.write(`${error && error.stack ? error.stack : error}\n`);
  process.exit(1);
});
