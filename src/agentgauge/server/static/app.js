// agentgauge web UI: plain JavaScript over the server's /api and ADK routes (no framework, no build step).
"use strict";

const DEFAULT_METRICS = { tool_trajectory_avg_score: 1.0, response_match_score: 0.8 };
const USER_ID = "user";
const ui = { app: null, set: null, caseIds: [], metrics: [], session: null, editing: null, results: [], apps: {},
  run: null };
const $ = (id) => document.getElementById(id);

function el(tag, props = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(props)) {
    if (key === "class") node.className = value;
    else if (key === "dataset") Object.assign(node.dataset, value);
    else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else node[key] = value;
  }
  for (const child of children) node.append(child);
  return node;
}

const enc = encodeURIComponent;

async function api(method, path, body) {
  const init = { method, headers: {} };
  if (body !== undefined) {
    init.headers["Content-Type"] = "application/json";
    init.body = typeof body === "string" ? body : JSON.stringify(body);
  }
  const response = await fetch(path, init);
  const text = await response.text();
  let data = null;
  try { data = text ? JSON.parse(text) : null; } catch (_) { data = text; }
  if (!response.ok) {
    const message = (data && (data.error || data.detail)) || `${response.status} ${response.statusText}`;
    throw new Error(typeof message === "string" ? message : JSON.stringify(message));
  }
  return data;
}

function status(value) {
  const name = value || "";
  return el("span", { class: `status ${name}` }, name.replace("_", " "));
}

function showError(target, error) {
  const node = $(target);
  node.textContent = error ? String(error.message || error) : "";
  node.hidden = !error;
}

function when(ts) {
  return ts ? new Date(ts * 1000).toLocaleString() : "";
}

// ---- apps and eval sets ----

async function loadApps() {
  const apps = await api("GET", "/api/apps");
  const list = $("apps");
  list.replaceChildren();
  ui.apps = Object.fromEntries(apps.map((app) => [app.name, app]));
  for (const app of apps) {
    const item = el("li", { class: "app-item", dataset: { app: app.name }, onclick: () => selectApp(app.name) },
      app.name, el("span", { class: "count" }, app.hasAgent ? "agent" : "data"));
    list.append(item);
  }
  if (!ui.app && apps.length) await selectApp(apps[0].name);
}

async function selectApp(name) {
  ui.app = name;
  ui.set = null;
  for (const item of document.querySelectorAll(".app-item")) item.classList.toggle("active", item.dataset.app === name);
  $("where").textContent = name;
  showChatState();
  closeResult();
  await loadSets();
  await Promise.all([showSet(), loadResults()]);  // the Results tab shows this app's runs, never the previous app's
}

async function loadSets() {
  const sets = await api("GET", `/api/apps/${enc(ui.app)}/eval-sets`);
  const list = $("sets");
  list.replaceChildren();
  for (const set of sets) {
    const item = el("li", { class: "set-item", dataset: { set: set.evalSetId }, onclick: () => selectSet(set.evalSetId) },
      set.evalSetId, el("span", { class: "count" }, set.error ? "invalid" : String(set.caseIds.length)));
    item.classList.toggle("active", set.evalSetId === ui.set);
    list.append(item);
  }
}

async function selectSet(id) {
  ui.set = id;
  for (const item of document.querySelectorAll(".set-item")) item.classList.toggle("active", item.dataset.set === id);
  $("where").textContent = `${ui.app} / ${id}`;
  closeEditor();
  await showSet();
}

async function createSet(event) {
  event.preventDefault();
  const id = $("new-set-id").value.trim();
  showError("sidebar-error", null);
  try {
    await api("POST", `/api/apps/${enc(ui.app)}/eval-sets`, { evalSetId: id });
    $("new-set-id").value = "";
    await loadSets();
    await selectSet(id);
  } catch (error) {
    showError("sidebar-error", error);
  }
}

// ---- cases ----

async function showSet() {
  document.dispatchEvent(new CustomEvent("agentgauge:set-shown", { detail: { app: ui.app, set: ui.set } }));  // replay.js, history.js, picker.js
  $("no-set").hidden = !!ui.set;
  $("cases-view").hidden = !ui.set;
  if (!ui.set) return;
  const [evalSet, fileMetrics] = await Promise.all([
    api("GET", `/api/apps/${enc(ui.app)}/eval-sets/${enc(ui.set)}`),
    api("GET", `/api/apps/${enc(ui.app)}/eval-sets/${enc(ui.set)}/metrics`),
  ]);
  $("set-title").textContent = `Eval set ${evalSet.evalSetId}`;
  ui.caseIds = (evalSet.evalCases || []).map((c) => c.evalId);
  const body = $("case-list");
  body.replaceChildren();
  for (const c of evalSet.evalCases || []) {
    const turns = (c.conversation || []).length;
    body.append(el("tr", { class: "case-row", dataset: { case: c.evalId } },
      el("td", {}, el("input", { type: "checkbox", class: "case-check", value: c.evalId })),
      el("td", {}, c.evalId),
      el("td", {}, String(turns)),
      el("td", { class: "case-status" }, ""),
      el("td", {}, el("button", { type: "button", class: "case-edit", onclick: () => openEditor(c.evalId) }, "View / edit"))));
  }
  $("file-metrics-label").hidden = fileMetrics.length === 0;
  $("use-file-metrics").checked = fileMetrics.length > 0;
  renderMetricPicker(fileMetrics);
  await refreshLastStatuses();
  await loadResults();
}

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

async function refreshLastStatuses() {
  const rows = await api("GET", `/api/apps/${enc(ui.app)}/results?evalSetId=${enc(ui.set)}`);
  if (!rows.length) return;
  const latest = await api("GET", `/api/apps/${enc(ui.app)}/results/${enc(rows[0].evalSetResultId)}`);
  const statuses = {};
  for (const r of latest.evalCaseResults || []) {
    const prev = statuses[r.evalId];
    statuses[r.evalId] = prev === "failed" ? prev : r.finalEvalStatus;
  }
  for (const [id, value] of Object.entries(statuses)) setCaseStatus(id, value);
}

function setCaseStatus(id, value) {
  const row = document.querySelector(`.case-row[data-case="${CSS.escape(id)}"] .case-status`);
  if (row) row.replaceChildren(status(value));
}

async function openEditor(id) {
  const data = await api("GET", `/api/apps/${enc(ui.app)}/eval-sets/${enc(ui.set)}/cases/${enc(id)}`);
  ui.editing = id;
  $("case-editor").value = JSON.stringify(data, null, 2);
  $("editor-case").textContent = id;
  showError("case-error", null);
  $("case-keys").hidden = true;
  $("editor-box").hidden = false;
  $("case-editor").focus();
  try { await checkKeys(data); } catch (_) { /* the check is advice only; saving checks again */ }
}

function describeKeys(report) {
  return report.unknownKeys.map((k) =>
    `${k.path}: unknown key '${k.key}'` + (k.didYouMean ? ` (did you mean '${k.didYouMean}'?)` : "")).join("\n");
}

// Unknown keys are shown under the editor: a warning in a native eval set, an error in an ADK file (not saved).
async function checkKeys(caseJson) {
  const report = await api("POST",
    `/api/apps/${enc(ui.app)}/eval-sets/${enc(ui.set)}/cases/${enc(ui.editing)}/check`, caseJson);
  const listed = describeKeys(report);
  const node = $("case-keys");
  node.textContent = !listed ? "" : report.blocking
    ? `This eval set is an ADK file and ADK allows no unknown keys; fix them to save:\n${listed}`
    : `Unknown keys (kept, but nothing reads them):\n${listed}`;
  node.className = report.blocking ? "error" : "warning";
  node.hidden = !listed;
  return report;
}

function closeEditor() {
  ui.editing = null;
  $("editor-box").hidden = true;
}

async function saveCase() {
  let parsed;
  try {
    parsed = JSON.parse($("case-editor").value);
  } catch (error) {
    showError("case-error", `invalid JSON: ${error.message}`);
    return;
  }
  try {
    if (parsed && typeof parsed === "object" && !Array.isArray(parsed) && (await checkKeys(parsed)).blocking) {
      showError("case-error", "Not saved: unknown keys in an ADK eval set (listed above).");
      return;
    }
    const saved = await api("PUT", `/api/apps/${enc(ui.app)}/eval-sets/${enc(ui.set)}/cases/${enc(ui.editing)}`, parsed);
    $("case-editor").value = JSON.stringify(saved, null, 2);
    showError("case-error", null);
    $("run-status").replaceChildren(el("span", { class: "ok", id: "save-ok" }, `Saved case ${ui.editing}.`));
  } catch (error) {
    showError("case-error", error);
  }
}

async function deleteCase() {
  if (!ui.editing || !confirm(`Delete case ${ui.editing}?`)) return;
  await api("DELETE", `/api/apps/${enc(ui.app)}/eval-sets/${enc(ui.set)}/cases/${enc(ui.editing)}`);
  closeEditor();
  await loadSets();
  await showSet();
}

async function deleteSet() {
  if (!ui.set || !confirm(`Delete eval set ${ui.set} and all its cases?`)) return;
  await api("DELETE", `/api/apps/${enc(ui.app)}/eval-sets/${enc(ui.set)}`);
  ui.set = null;
  closeEditor();
  await loadSets();
  await showSet();
}

// ---- runs ----

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
  const caseIds = [...document.querySelectorAll(".case-check:checked")].map((b) => b.value);
  const ids = caseIds.length ? caseIds : ui.caseIds;
  const body = { caseIds: ids, numRuns: Number($("num-runs").value), parallelism: Number($("parallelism").value) };
  const metrics = selectedMetrics();
  if (metrics !== undefined) body.metrics = metrics;
  $("run-status").replaceChildren();
  let run;
  try {
    run = await api("POST", `/api/apps/${enc(ui.app)}/eval-sets/${enc(ui.set)}/runs`, body);
  } catch (error) {
    $("run-status").replaceChildren(el("div", { class: "error", id: "run-error" }, error.message));
    return;
  }
  for (const id of ids) setCaseStatus(id, "pending");
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
  const app = ui.app;
  source.addEventListener("case_started", (e) => setCaseStatus(JSON.parse(e.data).evalId, "running"));
  source.addEventListener("case_finished", (e) => {
    const data = JSON.parse(e.data);
    setCaseStatus(data.evalId, data.status);
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
      await loadResults();
      await refreshLastStatuses();
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

async function cancelRun() {
  if (!ui.run) return;
  $("run-cancel").disabled = true;  // the run's events say when it has stopped
  try {
    await api("DELETE", `/api/runs/${enc(ui.run)}`);
  } catch (error) {
    $("run-status").replaceChildren(el("div", { class: "error", id: "run-error" }, error.message));
  }
}

// ---- results and comparison ----

async function loadResults() {
  const [app, set] = [ui.app, ui.set];
  if (!app) return;
  const query = set ? `?evalSetId=${enc(set)}` : "";
  const rows = await api("GET", `/api/apps/${enc(app)}/results${query}`);
  if (app !== ui.app || set !== ui.set) return;  // another app or set was chosen meanwhile
  ui.results = rows;
  $("results-scope").textContent = set ? `Runs of ${app} / ${set}` : `Runs of every eval set of ${app}`;
  const body = $("result-list");
  body.replaceChildren();
  const base = $("compare-base");
  const head = $("compare-head");
  base.replaceChildren();
  head.replaceChildren();
  ui.results.forEach((r, index) => {
    const label = `#${ui.results.length - index} ${when(r.creationTimestamp)} (${r.overallStatus})`;
    body.append(el("tr", { class: "result-row", dataset: { result: r.evalSetResultId } },
      el("td", {}, el("input", { type: "checkbox", class: "compare-check", value: r.evalSetResultId })),
      el("td", {}, when(r.creationTimestamp)),
      el("td", {}, r.evalSetId),
      el("td", {}, status(r.cancelled ? "cancelled" : r.overallStatus)),
      el("td", {}, String(r.counts.passed)),
      el("td", {}, String(r.counts.failed)),
      el("td", {}, String(r.counts.not_evaluated)),
      el("td", { class: "result-source" }, r.source || ""),
      el("td", { class: "result-labels" }, ...Object.entries(r.labels || {}).map(([k, v]) => el("span", { class: "run-label" }, `${k}=${v}`))),  // runmeta.js filters by them
      el("td", {}, el("a", { class: "open-result", onclick: () => openResult(r.evalSetResultId) }, "open"))));
    base.append(el("option", { value: r.evalSetResultId, selected: index === 1 }, label));
    head.append(el("option", { value: r.evalSetResultId, selected: index === 0 }, label));
  });
  document.dispatchEvent(new CustomEvent("agentgauge:results-listed"));  // runmeta.js
}

function closeResult() {
  const frame = $("result-frame");
  frame.hidden = true;
  frame.removeAttribute("src");
  document.dispatchEvent(new CustomEvent("agentgauge:result-closed"));  // labels.js
}

function openResult(id) {
  for (const row of document.querySelectorAll(".result-row")) row.classList.toggle("selected", row.dataset.result === id);
  const frame = $("result-frame");
  frame.src = `/api/apps/${enc(ui.app)}/results/${enc(id)}/report.html`;
  frame.hidden = false;
  document.dispatchEvent(new CustomEvent("agentgauge:result-opened", { detail: { app: ui.app, resultId: id } }));  // labels.js
  showTab("panel-runs");
}

async function compare() {
  const checked = [...document.querySelectorAll(".compare-check:checked")].map((b) => b.value);
  if (checked.length === 2) {
    // The list is newest first: the older of the two is the base.
    $("compare-base").value = checked[1];
    $("compare-head").value = checked[0];
  }
  const base = $("compare-base").value;
  const head = $("compare-head").value;
  if (!base || !head) return;
  const data = await api("GET", `/api/apps/${enc(ui.app)}/compare?base=${enc(base)}&new=${enc(head)}`);
  renderComparison(data);
  showTab("panel-compare");
}

// The labels and order of `agentgauge compare`: what a reader must act on comes first. Cases one side did not
// run ("not_run": it ran a selection of cases) are listed apart, below the table, and never a regression.
const CHANGE_ORDER = ["broken", "fixed", "still_failing", "new", "removed", "still_passing"];
const CHANGE_LABEL = { broken: "broken", fixed: "fixed", still_failing: "still failing", new: "new",
  removed: "removed", still_passing: "still passing", not_run: "not run" };
const num = (v, sign) => (v === null || v === undefined ? "–" : (sign && v > 0 ? "+" : "") + Number(v).toFixed(3));
const runs = (passed, total, present) => (present ? `${passed}/${total}` : "–");

// -- bootstrap intervals, cases needed, flaky / broken runs (issue 28) --
const runsStates = (c) => {
  const states = [["base", c.baseRunsState], ["new", c.newRunsState]].filter(([, s]) => s)
    .map(([side, s]) => `${s.split(" ")[0]} in ${side}`);
  return states.length ? ` (${states.join(", ")})` : "";
};
function estimateText(e) {
  let text = `${e.name}: ${num(e.base)} → ${num(e.new)}, change ${num(e.delta, true)}`;
  if (e.low !== undefined && e.high !== undefined) {
    text += ` [${num(e.low, true)}, ${num(e.high, true)}] (95%, paired bootstrap over ${e.cases} cases), ` +
      (e.significant ? "significant" : "not significant");
  }
  if (e.casesNeeded) text += `; cases needed to detect a change of ${Math.abs(e.delta).toFixed(2)}: ${e.casesNeeded}`;
  return text;
}
// -- end of issue 28 helpers --

function renderComparison(data) {
  const count = (kind) => data.cases.filter((c) => c.change === kind).length;
  const parts = CHANGE_ORDER.filter((k) => count(k)).map((k) => `${count(k)} ${CHANGE_LABEL[k]}`);
  const notRun = data.cases.filter((c) => c.change === "not_run");
  const tail = notRun.length ? ` (${notRun.length} not run)` : "";
  const summary = $("compare-summary");
  summary.textContent = `${data.regressed ? "REGRESSED" : "no regression"}: ` +
    `${parts.join(", ") || (notRun.length ? "no cases compared" : "no cases")}${tail}`;
  summary.className = data.regressed ? "error" : "ok";
  const cases = data.cases.filter((c) => c.change !== "not_run")
    .sort((a, b) => CHANGE_ORDER.indexOf(a.change) - CHANGE_ORDER.indexOf(b.change));
  const body = $("compare-table").querySelector("tbody");
  body.replaceChildren();
  for (const c of cases) {
    const names = [...new Set([...Object.keys(c.baseMetrics), ...Object.keys(c.newMetrics)])];
    const scores = names.map((n) => `${n}: ${num(c.baseMetrics[n])} → ${num(c.newMetrics[n])}`).join("\n");
    body.append(el("tr", { class: "compare-row", dataset: { case: c.evalId, change: c.change } },
      el("td", {}, c.evalId),
      el("td", { class: `change ${c.change}` }, CHANGE_LABEL[c.change]),
      el("td", {}, status(c.baseStatus)), el("td", {}, status(c.newStatus)),
      el("td", { class: "runs" }, `${runs(c.basePassedRuns, c.baseRuns, c.baseStatus)} → ${runs(c.newPassedRuns, c.newRuns, c.newStatus)}${runsStates(c)}`),
      el("td", { class: "reason" }, c.reason || ""),
      el("td", { class: "scores" }, el("pre", {}, scores))));
  }
  $("compare-table").hidden = false;
  const metrics = $("compare-metrics").querySelector("tbody");
  metrics.replaceChildren();
  for (const m of data.metrics) {
    const sign = m.delta === null ? "" : m.delta < 0 ? "neg" : m.delta > 0 ? "pos" : "";
    metrics.append(el("tr", { class: "metric-delta", dataset: { metric: m.metricName } },
      el("td", {}, m.metricName), el("td", {}, num(m.baseMean)), el("td", {}, num(m.newMean)),
      el("td", { class: `delta ${sign}` }, num(m.delta, true))));
  }
  $("compare-metrics").hidden = data.metrics.length === 0;
  const passAtK = $("compare-pass-at-k").querySelector("tbody");
  passAtK.replaceChildren();
  for (const p of data.passAtK) {
    passAtK.append(el("tr", { class: "pass-at-k" }, el("td", {}, String(p.k)),
      el("td", {}, `${num(p.basePassAtK)} → ${num(p.newPassAtK)}`),
      el("td", {}, `${num(p.basePassHatK)} → ${num(p.newPassHatK)}`)));
  }
  $("compare-pass-at-k").hidden = data.passAtK.length === 0;
  const notes = $("compare-notes");
  notes.replaceChildren();
  for (const side of ["new", "base"]) {
    const ids = notRun.filter((c) => (side === "new" ? c.newStatus : c.baseStatus) == null).map((c) => c.evalId);
    if (ids.length) {
      notes.append(el("li", { class: "not-run", dataset: { side } },
        `Not run in ${side} (${ids.length}, not compared): ${ids.join(", ")}`));
    }
  }
  for (const e of (data.estimates || []).filter((x) => x.delta !== null && x.delta !== undefined)) {
    notes.append(el("li", { class: "estimate", dataset: { estimate: e.name } }, estimateText(e)));
  }
  if (data.significance) {
    const s = data.significance;
    notes.append(el("li", { class: "significance" }, `Significance (exact McNemar test, cases): p = ${Number(s.pValue).toPrecision(3)}, ${s.note}`));
  }
  for (const c of cases) {
    if (c.significance && c.basePassedRuns * c.newRuns !== c.newPassedRuns * c.baseRuns) {
      notes.append(el("li", { class: "significance" }, `${c.evalId} (Fisher exact test, runs): p = ${Number(c.significance.pValue).toPrecision(3)}, ${c.significance.note}`));
    }
  }
  for (const note of data.notes || []) notes.append(el("li", { class: "note" }, `Note: ${note}`));
}

// ---- chat ----

// Chat needs an agent: an app that only has eval sets (e.g. trace-mode sets) cannot be chatted with.
function showChatState() {
  const app = ui.apps[ui.app];
  const usable = !!(app && app.hasAgent);
  for (const id of ["chat-new", "chat-input", "chat-send", "save-case-id", "save-case"]) $(id).disabled = !usable;
  const reason = $("chat-disabled");
  reason.textContent = usable ? "" : `App ${ui.app} has no agent, so there is nothing to chat with: serve its agent ` +
    "(agentgauge serve path/to/agent) to chat. Its eval sets and results can still be viewed and run in trace mode.";
  reason.hidden = usable;
  $("tab-chat").title = usable ? "" : "no agent is served for this app";
  if (!usable) {
    ui.session = null;
    $("chat-session").textContent = "";
    $("chat-log").replaceChildren();
  }
}

function chatMessage(kind, text) {
  const log = $("chat-log");
  log.append(el("div", { class: `msg ${kind}` }, text));
  log.scrollTop = log.scrollHeight;
}

async function newSession() {
  const session = await api("POST", `/apps/${enc(ui.app)}/users/${USER_ID}/sessions`, {});
  ui.session = session.id;
  $("chat-session").textContent = `session ${session.id}`;
  $("chat-log").replaceChildren();
  $("chat-note").replaceChildren();
  return session.id;
}

async function sendMessage(event) {
  event.preventDefault();
  const text = $("chat-input").value.trim();
  if (!text) return;
  if (!ui.session) await newSession();
  $("chat-input").value = "";
  chatMessage("user", text);
  try {
    const events = await api("POST", "/run", {
      appName: ui.app, userId: USER_ID, sessionId: ui.session,
      newMessage: { role: "user", parts: [{ text }] },
    });
    for (const e of events) {
      for (const part of (e.content && e.content.parts) || []) {
        if (part.functionCall) chatMessage("tool", `→ ${part.functionCall.name}(${JSON.stringify(part.functionCall.args)})`);
        else if (part.functionResponse) chatMessage("tool", `← ${JSON.stringify(part.functionResponse.response)}`);
        else if (part.text) chatMessage("agent", part.text);
      }
    }
  } catch (error) {
    chatMessage("error", error.message);
  }
}

async function saveSession(event) {
  event.preventDefault();
  const note = $("chat-note");
  if (!ui.session || !ui.set) {
    note.replaceChildren(el("div", { class: "error" }, ui.set ? "Chat first." : "Choose an eval set first."));
    return;
  }
  const evalId = $("save-case-id").value.trim();
  try {
    await api("POST", `/dev/apps/${enc(ui.app)}/eval-sets/${enc(ui.set)}/add-session`,
      { evalId, sessionId: ui.session, userId: USER_ID });
    note.replaceChildren(el("div", { class: "ok", id: "saved-case" }, `Added case ${evalId} to ${ui.set}.`));
    $("save-case-id").value = "";
    await loadSets();
    await showSet();
  } catch (error) {
    note.replaceChildren(el("div", { class: "error" }, error.message));
  }
}

// ---- wiring ----

function showTab(panel) {
  for (const tab of document.querySelectorAll(".tab")) tab.classList.toggle("active", tab.dataset.panel === panel);
  for (const section of document.querySelectorAll(".panel")) section.hidden = section.id !== panel;
}

async function start() {
  for (const tab of document.querySelectorAll(".tab")) tab.addEventListener("click", () => showTab(tab.dataset.panel));
  $("new-set-form").addEventListener("submit", createSet);
  $("case-save").addEventListener("click", saveCase);
  $("case-close").addEventListener("click", closeEditor);
  $("case-delete").addEventListener("click", deleteCase);
  $("delete-set").addEventListener("click", deleteSet);
  $("run-selected").addEventListener("click", runSelected);
  $("run-cancel").addEventListener("click", cancelRun);
  $("check-all").addEventListener("change", (e) => {
    for (const box of document.querySelectorAll(".case-check")) box.checked = e.target.checked;
  });
  $("use-file-metrics").addEventListener("change", (e) => { $("metric-details").hidden = e.target.checked; });
  $("run-metrics").addEventListener("change", summarizeMetrics);
  $("chat-new").addEventListener("click", newSession);
  $("chat-form").addEventListener("submit", sendMessage);
  $("save-form").addEventListener("submit", saveSession);
  $("compare-btn").addEventListener("click", compare);
  $("compare-selected").addEventListener("click", compare);
  ui.metrics = await api("GET", "/api/metrics");
  await loadApps();
  document.body.dataset.ready = "true";
}

start().catch((error) => showError("sidebar-error", error));
