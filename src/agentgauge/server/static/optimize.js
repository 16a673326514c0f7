// agentgauge web UI, Optimize tab: the audit reports of `agentgauge optimize`, read only. The list (newest first:
// verdict, validation pass rate of the baseline and of the candidate, the gain's 95% interval) and, for the report
// picked, its facts, scores, the gate's verdicts and the proposed patch. Loaded after app.js (helpers $, el, api,
// enc, when); needs nothing else.
"use strict";

window.AgentgaugeOptimize = (() => {
  const fmt = (v) => (v === null || v === undefined ? "–" : Number(v).toFixed(3));
  const signed = (v) => (v === null || v === undefined ? "–" : (v >= 0 ? "+" : "") + Number(v).toFixed(3));

  function gainText(gain, low, high) {
    if (gain === null || gain === undefined) return "–";
    return low === null || low === undefined ? signed(gain) : `${signed(gain)} [${signed(low)}, ${signed(high)}]`;
  }

  function scoreText(score) {
    if (!score || score.passRate === null || score.passRate === undefined) return "–";
    const interval = score.low === undefined ? "" : ` [${fmt(score.low)}, ${fmt(score.high)}]`;
    return `${fmt(score.passRate)}${interval} (${score.passedCases}/${score.cases} cases)`;
  }

  function row(item) {
    const verdict = item.error ? "unreadable" : item.verdict;
    const tr = el("tr", { className: "clickable", title: item.error || item.folder },
      el("td", {}, item.created ? when(item.created) : "–"),
      el("td", {}, item.optimizationId),
      el("td", {}, item.agent || "–"),
      el("td", {}, item.optimizer || "–"),
      el("td", { className: `verdict ${verdict.replace(" ", "-")}` }, verdict),
      el("td", {}, item.error ? item.error : `${fmt(item.baseline)} → ${fmt(item.candidate)}`),
      el("td", {}, gainText(item.gain, item.low, item.high)));
    if (!item.error) tr.addEventListener("click", () => open(item.optimizationId));
    return tr;
  }

  async function load() {
    showError("optimize-error", null);
    try {
      const data = await api("GET", "/api/optimizations");
      $("optimize-list").replaceChildren(...data.optimizations.map(row));
      $("optimize-empty").hidden = data.optimizations.length > 0;
      const more = data.truncated ? ` (${data.truncated} older not shown)` : "";
      $("optimize-roots").textContent = data.roots.length ? `Reports under ${data.roots.join(", ")}${more}` : "";
    } catch (e) {
      showError("optimize-error", e);
    }
  }

  function facts(report) {
    const spent = report.spent || {};
    return [
      `agent ${report.agent} (app ${report.appName}), optimizer ${report.optimizer}, reflection model ${report.reflectionModel || "–"}`,
      `train ${report.train.evalSetId} (${report.train.caseIds.length} cases), validation ${report.validation.evalSetId} (${report.validation.caseIds.length} cases)`,
      `budget ${report.budget}; spent ${spent.metricCalls} metric calls, ${spent.gateCaseRuns} gate case runs, cost ${fmt(spent.totalCost)} ${spent.currency || ""}, ${fmt(spent.seconds)} s`,
      `agentgauge ${report.agentgaugeVersion}, ${when(report.created)}`,
    ];
  }

  function gateLines(gate) {
    if (!gate) return "Gate: not run (no candidate better than the baseline)";
    const lines = [`Gate: ${gate.accepted ? "ACCEPTED" : "REJECTED"} (alpha ${gate.alpha})`];
    for (const v of gate.verdicts) {
      lines.push(`  ${v.status.toUpperCase().padEnd(4)}  ${v.name}: ${v.rule}`);
      for (const f of v.findings || []) lines.push(`        ${f}`);
    }
    return lines.join("\n");
  }

  function diffNodes(diff) {
    return (diff || "").split("\n").map((line) => {
      const kind = line.startsWith("+") && !line.startsWith("+++") ? "add" : line.startsWith("-") && !line.startsWith("---") ? "del" : "";
      return el("span", { className: kind }, line + "\n");
    });
  }

  async function open(id) {
    showError("optimize-error", null);
    try {
      const report = await api("GET", `/api/optimizations/${enc(id)}`);
      $("optimize-title").textContent = `Optimisation ${report.optimizationId}: ${report.accepted ? "accepted" : report.proposed === null ? "no candidate" : "rejected"}`;
      $("optimize-facts").replaceChildren(...facts(report).map((f) => el("li", {}, f)));
      const rows = ["train", "validation"].map((split) => {
        const evidence = (report.evidence || {})[split];
        const gain = evidence && evidence.estimates.length ? evidence.estimates[0] : null;
        return el("tr", {}, el("td", {}, split), el("td", {}, scoreText((report.baseline || {})[split])),
          el("td", {}, scoreText(evidence && evidence.candidate)),
          el("td", {}, gain ? gainText(gain.delta, gain.low, gain.high) : "–"));
      });
      $("optimize-scores").tBodies[0].replaceChildren(...rows);
      $("optimize-gate").textContent = gateLines(report.gate);
      $("optimize-diff").replaceChildren(...diffNodes(report.diff || "(no patch)"));
      $("optimize-detail").hidden = false;
    } catch (e) {
      showError("optimize-error", e);
    }
  }

  $("optimize-refresh").addEventListener("click", load);

  return { load, open };
})();
