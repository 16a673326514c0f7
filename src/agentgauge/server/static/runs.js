// agentgauge web UI, the Run box of the Cases tab: the metrics to score with (the set's metrics file, or a choice from
// the registry with thresholds), starting a run of the checked cases and following its progress (server-sent
// events) into the case table. Loaded before app.js; its functions use app.js's helpers ($, el, api, enc, ui,
// loadResults, refreshLastStatuses) when called.
"use strict";

window.AgentgaugeRuns = (() => {
  const DEFAULT_METRICS = { tool_trajectory_avg_score: 1.0, response_match_score: 0.8 };

  function renderMetricPicker(fileMetrics) {
    const chosen = {};
    for (const m of fileMetrics) chosen[m.metricName] = m.threshold;
    if (!fileMetrics.length) Object.assign(chosen, DEFAULT_METRICS);
    const box = $("run-metrics");
    box.replaceChildren();
    for (const m of ui.metrics) {
      const on = m.name in chosen;
      const threshold = on ? chosen[m.name] : m.maxValue;
      box.append(el("label", { title: m.description },
        el("input", { type: "checkbox", class: "metric-check", value: m.name, checked: on }),
        el("span", {}, m.name + (m.needsJudge ? " (judge)" : "")),
        el("input", { type: "number", class: "metric-threshold", step: "0.05", min: m.minValue, max: m.maxValue,
          value: threshold, dataset: { metric: m.name } })));
    }
    $("metric-details").hidden = $("use-file-metrics").checked;
    summarizeMetrics();
  }

  function summarizeMetrics() {
    const chosen = [...document.querySelectorAll(".metric-check:checked")].map((box) => {
      const input = document.querySelector(`.metric-threshold[data-metric="${CSS.escape(box.value)}"]`);
      return `${box.value} ≥ ${input.value}`;
    });
    $("metric-summary").textContent = chosen.join(", ") || "none chosen";
  }

  function selectedMetrics() {
    if ($("use-file-metrics").checked) return undefined;
    const metrics = [];
    for (const box of document.querySelectorAll(".metric-check")) {
      if (!box.checked) continue;
      const input = document.querySelector(`.metric-threshold[data-metric="${CSS.escape(box.value)}"]`);
      metrics.push({ metricName: box.value, threshold: Number(input.value) });
    }
    return metrics;
  }

  async function runSelected() {
    const caseIds = ui.cases.checkedIds();
    const ids = caseIds.length ? caseIds : ui.cases.ids();
    const body = { caseIds: ids, numRuns: Number($("num-runs").value), parallelism: Number($("parallelism").value) };
    const metrics = selectedMetrics();
    if (metrics !== undefined) body.metrics = metrics;
    $("run-status").replaceChildren();
    $("run-cases").replaceChildren();
    let run;
    try {
      run = await api("POST", `/api/apps/${enc(ui.app)}/eval-sets/${enc(ui.set)}/runs`, body);
    } catch (error) {
      $("run-status").replaceChildren(el("div", { class: "error", id: "run-error" }, error.message));
      return;
    }
    for (const id of ids) ui.cases.setStatus(id, "pending");
    ui.run = run.runId;
    $("run-selected").disabled = true;
    $("run-cancel").disabled = false;
    $("run-cancel").hidden = false;
    $("progress-box").hidden = false;
    $("progress").max = run.total || 1;
    $("progress").value = 0;
    $("progress-text").textContent = `0 / ${run.total}`;
    followRun(run.runId);
  }

  function followRun(runId) {
    const source = new EventSource(`/api/runs/${enc(runId)}/events`);
    const [app, set] = [ui.app, ui.set];
    // A case's status goes to the table only while it shows the run's set (another set may have a case of that id).
    const show = (id, value) => { if (ui.app === app && ui.set === set) ui.cases.setStatus(id, value); };
    source.addEventListener("case_started", (e) => show(JSON.parse(e.data).evalId, "running"));
    source.addEventListener("case_finished", (e) => {
      const data = JSON.parse(e.data);
      show(data.evalId, data.status);
      caseFinished(data);
      $("progress").value = data.done;
      $("progress-text").textContent = `${data.done} / ${data.total}`;
    });
    const finish = async (message, css, resultId) => {
      source.close();
      if (ui.run === runId) ui.run = null;
      $("run-cancel").hidden = true;
      $("run-selected").disabled = false;
      $("run-status").replaceChildren(el("div", { class: css, id: "run-done" }, message));
      if (resultId && app === ui.app) {
        await Promise.all([loadResults(), refreshLastStatuses(), showOutcome(app, set, resultId)]);
      }
    };
    source.addEventListener("run_finished", (e) => {
      const data = JSON.parse(e.data);
      finish(`Run finished: ${data.status}.`, data.status === "passed" ? "ok" : "error", data.resultId);
    });
    source.addEventListener("run_failed", (e) => finish(`Run failed: ${JSON.parse(e.data).error}`, "error", null));
    source.addEventListener("run_cancelled", (e) => {
      const data = JSON.parse(e.data);
      finish(`Run cancelled: ${data.done} of ${data.total} finished and kept.`, "error", data.resultId);
    });
  }

  // Each case as it finishes, with the agent's error when it raised one (a missing key, an unreachable agent).
  function caseFinished(data) {
    const list = $("run-cases");
    const id = `run-case-${data.evalId}-${data.runId}`;
    const item = el("li", { class: `run-case ${data.status}`, id, dataset: { case: data.evalId } },
      status(data.status), " ", el("b", {}, data.evalId), data.runId > 1 ? ` run ${data.runId}` : "",
      data.errorMessage ? el("span", { class: "run-case-error" }, `: ${data.errorMessage}`) : "");
    const old = document.getElementById(id);
    if (old) old.replaceWith(item);
    else list.append(item);
    list.hidden = false;
  }

  // The finished run: the result opened for reading, each case that did not pass with its first reason and a link
  // to its replay (the server's case list of the result: the statuses and reasons every view shows).
  async function showOutcome(app, set, resultId) {
    const data = await api("GET", `/api/apps/${enc(app)}/results/${enc(resultId)}/cases`);
    const failing = data.cases.filter((c) => c.status && c.status !== "passed");
    const nav = window.AgentgaugeNav;
    const links = el("div", { class: "row", id: "run-links" },
      el("a", { href: nav.format({ app, set, tab: "results", result: resultId }), id: "run-open-result" }, "Open the result"),
      el("a", { href: nav.format({ app, set, tab: "replay", result: resultId }) }, "Replay its cases"));
    const rows = failing.map((c) => el("li", { class: "run-failure", dataset: { case: c.evalId } },
      status(c.status), " ", el("b", {}, c.evalId), c.reason ? `: ${c.reason}` : "", " ",
      el("a", { class: "run-replay", href: nav.replayLink(app, set, resultId, c.evalId) }, "replay")));
    const summary = failing.length ? `${failing.length} of ${data.cases.length} cases did not pass:`
      : `All ${data.cases.length} cases passed.`;
    $("run-status").append(links, el("div", { class: failing.length ? "error" : "ok", id: "run-summary" }, summary),
      el("ul", { id: "run-failures" }, ...rows));
    $("run-cases").hidden = true;  // the outcome says it all; the progress list was for while it ran
  }

  async function cancelRun() {
    if (!ui.run) return;
    $("run-cancel").disabled = true;  // the run's events say when it has stopped
    try {
      await api("DELETE", `/api/runs/${enc(ui.run)}`);
    } catch (error) {
      $("run-status").replaceChildren(el("div", { class: "error", id: "run-error" }, error.message));
    }
  }

  return { renderMetricPicker, summarizeMetrics, runSelected, cancelRun };
})();
