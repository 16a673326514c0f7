// agentgauge web UI: people's labels on the judge verdicts of an opened result (what `agentgauge calibrate` reads).
// Self-contained: app.js announces the opened result with the "agentgauge:result-opened" / "-closed" events.
"use strict";

(() => {
  const enc = encodeURIComponent;
  const byId = (id) => document.getElementById(id);
  const state = { app: null, resultId: null, judgeMetrics: null, labels: new Map() };

  function node(tag, props = {}, ...children) {
    const made = document.createElement(tag);
    for (const [key, value] of Object.entries(props)) {
      if (key === "class") made.className = value;
      else if (key === "dataset") Object.assign(made.dataset, value);
      else if (key.startsWith("on")) made.addEventListener(key.slice(2), value);
      else made[key] = value;
    }
    for (const child of children) made.append(child);
    return made;
  }

  async function call(method, path, body) {
    const init = { method, headers: {} };
    if (body !== undefined) {
      init.headers["Content-Type"] = "application/json";
      init.body = JSON.stringify(body);
    }
    const response = await fetch(path, init);
    const text = await response.text();
    let data = null;
    try { data = text ? JSON.parse(text) : null; } catch (_) { data = text; }
    if (!response.ok) throw new Error((data && (data.error || data.detail)) || `${response.status} ${response.statusText}`);
    return data;
  }

  function showError(error) {
    const box = byId("labels-error");
    box.textContent = error ? String(error.message || error) : "";
    box.hidden = !error;
  }

  // A metric is a judge metric when the server says so, or when its criterion configures a judge model.
  function isJudgeMetric(metric) {
    const criterion = metric.criterion || {};
    const adk = criterion.adk || {};
    return state.judgeMetrics.has(metric.metricName) || Boolean(criterion.llmJudge || adk.judge_model_options);
  }

  function judgeModel(metric) {
    const criterion = metric.criterion || {};
    const native = criterion.llmJudge || (criterion.adk || {}).llmJudge || {};
    const options = (criterion.adk || {}).judge_model_options || {};
    return (native.judgeModel || {}).modelName || options.judge_model || "";
  }

  const labelKey = (caseId, runId, metricName) => `${caseId}\u0000${runId}\u0000${metricName}`;

  function describe(label) {
    if (!label) return "not labelled";
    const who = label.author ? ` by ${label.author}` : "";
    const when = label.labelledAt ? ` ${new Date(label.labelledAt * 1000).toLocaleString()}` : "";
    return `${label.verdict}${who}${when}`;
  }

  async function save(row, verdict) {
    const { caseId, runId, metricName, judgeVerdict } = row.dataset;
    const note = row.querySelector(".label-note").value;
    const author = byId("label-author").value.trim();
    localStorage.setItem("agentgauge.labelAuthor", author);
    const body = { metricName, verdict, note, author, runId: Number(runId), judgeVerdict };
    const path = `/api/apps/${enc(state.app)}/results/${enc(state.resultId)}/cases/${enc(caseId)}/labels`;
    showError(null);
    try {
      const labels = await call("PUT", path, body);
      const stored = labels.find((l) => l.metricName === metricName && l.runId === Number(runId) && !l.invocation);
      state.labels.set(labelKey(caseId, runId, metricName), stored);
      paint(row, stored);
    } catch (error) { showError(error); }
  }

  async function clear(row) {
    const { caseId, runId, metricName } = row.dataset;
    const query = `?metricName=${enc(metricName)}&runId=${enc(runId)}`;
    const path = `/api/apps/${enc(state.app)}/results/${enc(state.resultId)}/cases/${enc(caseId)}/labels${query}`;
    showError(null);
    try {
      await call("DELETE", path);
      state.labels.delete(labelKey(caseId, runId, metricName));
      row.querySelector(".label-note").value = "";
      paint(row, undefined);
    } catch (error) { showError(error); }
  }

  function paint(row, label) {
    row.dataset.label = label ? label.verdict : "";
    row.querySelector(".label-state").textContent = describe(label);
    for (const button of row.querySelectorAll("button[data-verdict]")) {
      button.classList.toggle("chosen", Boolean(label) && button.dataset.verdict === label.verdict);
    }
  }

  function verdictRow(caseResult, metric) {
    const judgeVerdict = metric.evalStatus === "passed" ? "pass" : "fail";
    const key = labelKey(caseResult.evalId, caseResult.runId, metric.metricName);
    const label = state.labels.get(key);
    const score = metric.score === null || metric.score === undefined ? "" : ` (${Number(metric.score).toFixed(2)})`;
    const row = node("tr", {
      class: "label-row", tabIndex: 0,
      dataset: { caseId: caseResult.evalId, runId: String(caseResult.runId), metricName: metric.metricName, judgeVerdict },
    },
    node("td", { class: "label-actions" },
      node("button", { type: "button", class: "label-agree", dataset: { verdict: "agree" }, title: "agree (key a)", onclick: (e) => save(e.target.closest("tr"), "agree") }, "Agree"),
      node("button", { type: "button", class: "label-disagree", dataset: { verdict: "disagree" }, title: "disagree (key d)", onclick: (e) => save(e.target.closest("tr"), "disagree") }, "Disagree"),
      node("button", { type: "button", class: "label-clear", onclick: (e) => clear(e.target.closest("tr")) }, "Clear"),
      node("div", { class: "label-state muted" }),
      node("input", { class: "label-note", placeholder: "note", value: label ? label.note || "" : "" })),
    node("td", { class: "label-case" }, node("b", {}, caseResult.evalId),
      node("div", { class: "muted" }, `run ${caseResult.runId} · ${metric.metricName}${judgeModel(metric) ? ` · ${judgeModel(metric)}` : ""}`),
      node("div", { class: `status ${metric.evalStatus}` }, `${judgeVerdict}${score}`)),
    node("td", { class: "label-said" }, ...said(caseResult)),
    node("td", { class: "label-reason" }, (metric.details || {}).reason || ""));
    paint(row, label);
    return row;
  }

  const text = (message) => (message && typeof message.content === "string" ? message.content : "");

  // What the judge read: each turn's user message, the agent's answer and the expected one.
  function said(caseResult) {
    const out = [];
    for (const turn of caseResult.evalMetricResultPerInvocation || []) {
      const actual = turn.actualInvocation || {};
      const expected = turn.expectedInvocation || null;
      out.push(node("div", { class: "said user" }, node("span", { class: "who" }, "User"), text(actual.userContent)),
        node("div", { class: "said answer" }, node("span", { class: "who" }, "Answer"), text(actual.finalResponse) || "(none)"));
      if (expected) out.push(node("div", { class: "said expected" }, node("span", { class: "who" }, "Expected"), text(expected.finalResponse) || "(none)"));
    }
    return out;
  }

  // Keys while the labels are in view and no field has the focus: j / k move between verdicts, a agrees, d disagrees.
  function onKey(event) {
    const box = byId("labels-box");
    if (box.hidden || byId("panel-runs").hidden || event.ctrlKey || event.metaKey || event.altKey) return;
    if (/^(INPUT|TEXTAREA|SELECT)$/.test(event.target.tagName)) return;
    const rows = [...document.querySelectorAll("#labels-list .label-row")];
    if (!rows.length) return;
    const at = rows.indexOf(document.activeElement && document.activeElement.closest(".label-row"));
    const action = { j: "next", k: "previous", a: "agree", d: "disagree" }[event.key];
    if (!action) return;
    event.preventDefault();
    if (action === "next" || action === "previous") {
      const step = action === "next" ? 1 : -1;
      const next = rows[at < 0 ? 0 : (at + step + rows.length) % rows.length];
      next.focus();
      next.scrollIntoView({ block: "nearest" });
    } else if (at >= 0) {
      save(rows[at], action);
    }
  }

  async function open(app, resultId) {
    state.app = app;
    state.resultId = resultId;
    const box = byId("labels-box");
    showError(null);
    if (state.judgeMetrics === null) {
      const metrics = await call("GET", "/api/metrics");
      state.judgeMetrics = new Set(metrics.filter((m) => m.needsJudge).map((m) => m.name));
    }
    const base = `/api/apps/${enc(app)}/results/${enc(resultId)}`;
    const [result, labels] = await Promise.all([call("GET", base), call("GET", `${base}/labels`)]);
    if (state.resultId !== resultId) return;  // another result was opened meanwhile
    state.labels = new Map(labels.filter((l) => !l.invocation).map((l) => [labelKey(l.evalId, l.runId, l.metricName), l]));
    const rows = [];
    for (const caseResult of result.evalCaseResults || []) {
      for (const metric of caseResult.overallEvalMetricResults || []) {
        if (isJudgeMetric(metric) && (metric.evalStatus === "passed" || metric.evalStatus === "failed")) {
          rows.push(verdictRow(caseResult, metric));
        }
      }
    }
    byId("labels-list").replaceChildren(...rows);
    byId("labels-count").textContent = `${rows.length} judge verdict${rows.length === 1 ? "" : "s"}`;
    box.hidden = rows.length === 0;
  }

  function close() {
    state.resultId = null;
    byId("labels-box").hidden = true;
    byId("labels-list").replaceChildren();
  }

  document.addEventListener("agentgauge:result-opened", (event) => {
    open(event.detail.app, event.detail.resultId).catch(showError);
  });
  document.addEventListener("agentgauge:result-closed", close);
  document.addEventListener("keydown", onKey);
  byId("label-author").value = localStorage.getItem("agentgauge.labelAuthor") || "";
})();
