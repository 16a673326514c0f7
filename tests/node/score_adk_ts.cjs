// Scores invocation pairs with ADK-TS's own evaluation code, for agentgauge's differential tests.
//
// Reads one JSON document from stdin: {"metrics": [{"metricName", "threshold"}], "pairs": [{"actual", "expected"}]}
// where each invocation is in ADK-TS's camelCase form (finalResponse.parts, intermediateData.toolUses). Every pair
// goes through LocalEvalService.evaluate, the path ADK-TS's AgentEvaluator takes, so each metric is scored by the
// evaluator ADK-TS registers under its name (DEFAULT_METRIC_EVALUATOR_REGISTRY). Writes one JSON document to stdout:
// {"version", "results": [{metricName: {"score", "status"}}]}, a score of null meaning ADK-TS gave none.
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
  // adk.VERSION is a stale constant in the 0.5.x builds: the installed package's own manifest says which one ran.
  const manifest = require("node:path").join(require.resolve("@iqai/adk"), "..", "..", "package.json");
  write(JSON.stringify({ version: JSON.parse(fs.readFileSync(manifest, "utf8")).version, results }));
}

main().catch((error) => {
  process.stderr.write(`${error && error.stack ? error.stack : error}\n`);
  process.exit(1);
});
