// agentgauge web UI: plain JavaScript over the server's /api and ADK routes (no framework, no build step). This file
// holds the shared helpers, the apps, eval sets, cases and results lists and the wiring; the views are in their own
// files (runs.js, compare.js, chat.js, casetable.js, replay.js, history.js, ...), loaded by index.html.
"use strict";

const ui = { app: null, set: null, cases: null, metrics: [], session: null, editing: null, results: [], apps: {},
  run: null, metricsRead: null, opened: null };  // cases: the Cases tab's table (casetable.js); metricsRead: ui.metrics read
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
  return apps;
}

async function selectApp(name) {
  window.AgentgaugeNav.set({ app: name, ...window.AgentgaugeNav.DROP_FOR_APP });
  ui.app = name;
  ui.set = null;
  for (const item of document.querySelectorAll(".app-item")) item.classList.toggle("active", item.dataset.app === name);
  $("where").textContent = name;
  window.AgentgaugeChat.showChatState();
  closeResult();
  // The Results tab shows this app's runs, never the previous app's; listed while the sets are read.
  await Promise.all([loadSets().then(showSet), loadResults()]);
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
  window.AgentgaugeNav.set({ set: id, ...window.AgentgaugeNav.DROP_FOR_SET });
  ui.set = id;
  for (const item of document.querySelectorAll(".set-item")) item.classList.toggle("active", item.dataset.set === id);
  $("where").textContent = id ? `${ui.app} / ${id}` : ui.app;
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
  const started = performance.now();  // the browser tests print the timings (docs/web.md quotes them)
  const [app, set] = [ui.app, ui.set];
  // The set's case list (ids, turns and the newest result's status per case, from the server's digest of it), not
  // the set and its latest result whole, which for thousands of cases are megabytes to send and parse.
  const [list, fileMetrics] = await Promise.all([
    api("GET", `/api/apps/${enc(app)}/eval-sets/${enc(set)}/case-list`),
    api("GET", `/api/apps/${enc(app)}/eval-sets/${enc(set)}/metrics`),
    ui.metricsRead,  // the registry's metrics, for the Run box's picker
  ]);
  if (app !== ui.app || set !== ui.set) return;  // another set was chosen meanwhile
  const fetched = performance.now();
  $("set-title").textContent = `Eval set ${list.evalSetId}`;
  ui.cases.setCases(`${app}/${set}`, list.cases.map((c) => ({ evalId: c.evalId, turns: c.turns })), lastStatuses(list));
  $("file-metrics-label").hidden = fileMetrics.length === 0;
  $("use-file-metrics").checked = fileMetrics.length > 0;
  window.AgentgaugeRuns.renderMetricPicker(fileMetrics);
  const rendered = performance.now();
  Object.assign(document.body.dataset, { casesShown: String(list.cases.length),
    casesFetchMs: String(Math.round(fetched - started)), casesRenderMs: String(Math.round(rendered - fetched)) });
  await loadResults();
}

function lastStatuses(list) {
  return new Map(list.cases.filter((c) => c.status).map((c) => [c.evalId, c.status]));
}


async function refreshLastStatuses() {
  const [app, set] = [ui.app, ui.set];
  const list = await api("GET", `/api/apps/${enc(app)}/eval-sets/${enc(set)}/case-list`);
  if (app === ui.app && set === ui.set) ui.cases.setStatuses(lastStatuses(list));
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
  return report.unknownKeys.map((k) => `${k.path}: ${k.message}`).join("\n");
}

// Unknown keys are shown under the editor: warnings where the case's own tool accepts them (the case is saved),
// errors where it refuses them (a key ADK's Invocation refuses in an ADK-shaped case; any with serve --strict).
async function checkKeys(caseJson) {
  const report = await api("POST",
    `/api/apps/${enc(ui.app)}/eval-sets/${enc(ui.set)}/cases/${enc(ui.editing)}/check`, caseJson);
  const listed = describeKeys(report);
  const node = $("case-keys");
  node.textContent = !listed ? "" : report.blocking
    ? `Unknown keys that are refused; fix them to save:\n${listed}`
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
      showError("case-error", "Not saved: refused unknown keys (listed above).");
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


// ---- results (the comparison: compare.js) ----

async function loadResults() {
  const [app, set] = [ui.app, ui.set];
  if (!app) return;
  const query = set ? `?evalSetId=${enc(set)}` : "";
  const rows = await api("GET", `/api/apps/${enc(app)}/results${query}`);
  if (app !== ui.app || set !== ui.set) return;  // another app or set was chosen meanwhile
  ui.results = rows;
  const checked = new Set([...document.querySelectorAll(".compare-check:checked")].map((b) => b.value));
  const picked = [$("compare-base").value, $("compare-head").value];
  $("results-scope").textContent = set ? `Runs of ${app} / ${set}` : `Runs of every eval set of ${app}`;
  const body = $("result-list");
  body.replaceChildren();
  const base = $("compare-base");
  const head = $("compare-head");
  base.replaceChildren();
  head.replaceChildren();
  ui.results.forEach((r, index) => {
    const label = `#${ui.results.length - index} ${when(r.creationTimestamp)} (${r.overallStatus})`;
    body.append(el("tr", { class: `result-row${r.evalSetResultId === ui.opened ? " selected" : ""}`, dataset: { result: r.evalSetResultId } },
      el("td", {}, el("input", { type: "checkbox", class: "compare-check", value: r.evalSetResultId, checked: checked.has(r.evalSetResultId) })),
      el("td", {}, when(r.creationTimestamp)),
      el("td", {}, r.evalSetId),
      el("td", {}, status(r.cancelled ? "cancelled" : r.overallStatus)),
      el("td", { class: "cases-passed" }, String(r.counts.passed)),
      el("td", { class: "cases-failed" }, String(r.counts.failed + r.counts.error)),
      el("td", { class: "cases-not-evaluated", title: r.notRun ? `${r.notRun} case(s) of the set not run (no trace)` : "" },
        String(r.counts.not_evaluated) + (r.notRun ? ` (+${r.notRun} not run)` : "")),
      el("td", { class: "case-runs", title: r.numRuns > 1 ? `case status: ${r.caseStatusRule}` : "" }, caseRuns(r)),
      el("td", { class: "result-source" }, r.source || ""),
      el("td", { class: "result-labels" }, ...Object.entries(r.labels || {}).map(([k, v]) => el("span", { class: "run-label" }, `${k}=${v}`))),  // runmeta.js filters by them
      el("td", {}, el("a", { class: "open-result", onclick: () => openResult(r.evalSetResultId) }, "open"))));
    base.append(el("option", { value: r.evalSetResultId, selected: index === 1 }, label));
    head.append(el("option", { value: r.evalSetResultId, selected: index === 0 }, label));
  });
  // A list read again (a new result) keeps the pair picked for comparing.
  if (picked[0] && picked[1] && rows.some((r) => r.evalSetResultId === picked[0])) [base.value, head.value] = picked;
  document.dispatchEvent(new CustomEvent("agentgauge:results-listed"));  // runmeta.js
}

// A result saved while the page is open (the server's event stream, live.js): the lists, the last statuses and the
// open Replay and History views are read again, once for a burst of results.
let resultsChanged = null;
document.addEventListener("agentgauge:results-changed", (event) => {
  if (event.detail.appName !== ui.app) return;
  clearTimeout(resultsChanged);
  resultsChanged = setTimeout(async () => {
    try {
      await loadResults();
      if (ui.set) await refreshLastStatuses();
      document.dispatchEvent(new CustomEvent("agentgauge:results-refreshed"));  // replay.js, history.js
      document.body.dataset.resultsRefreshed = String(Number(document.body.dataset.resultsRefreshed || 0) + 1);
    } catch (error) {
      showError("sidebar-error", error);
    }
  }, 250);
});

// "17/30 passed": the case runs (each case once per run), apart from the cases counted once each.
function caseRuns(r) {
  const runs = r.caseRuns || {};
  const total = ["passed", "failed", "error", "not_evaluated"].reduce((sum, key) => sum + (runs[key] || 0), 0);
  return `${runs.passed || 0}/${total} passed`;
}

function closeResult() {
  ui.opened = null;
  const frame = $("result-frame");
  frame.hidden = true;
  frame.removeAttribute("src");
  document.dispatchEvent(new CustomEvent("agentgauge:result-closed"));  // labels.js
}

function openResult(id) {
  window.AgentgaugeNav.set({ tab: "results", result: id });
  for (const row of document.querySelectorAll(".result-row")) row.classList.toggle("selected", row.dataset.result === id);
  const frame = $("result-frame");
  if (ui.opened === id && !frame.hidden) { showTab("panel-runs"); return; }  // already open (Back, a tab click)
  ui.opened = id;
  frame.src = `/api/apps/${enc(ui.app)}/results/${enc(id)}/report.html`;
  frame.hidden = false;
  document.dispatchEvent(new CustomEvent("agentgauge:result-opened", { detail: { app: ui.app, resultId: id } }));  // labels.js
  showTab("panel-runs");
}



// ---- wiring ----

function showTab(panel) {
  for (const tab of document.querySelectorAll(".tab")) tab.classList.toggle("active", tab.dataset.panel === panel);
  for (const section of document.querySelectorAll(".panel")) section.hidden = section.id !== panel;
}

// Eval sets in a git checkout (the repository's examples/, say) are the user's tracked files: say so before an edit.
async function noticeTracked() {
  const folder = await api("GET", "/api/evals-folder");
  const note = $("tracked-note");
  note.hidden = !folder.tracked;
  note.textContent = folder.tracked ? `The eval sets here are files tracked by git (${folder.path}): creating, ` +
    "saving or deleting a case or an eval set and saving metrics change your checkout. To try things without that, " +
    "serve a copy: agentgauge serve AGENT --evals-dir COPY_OF_THE_FOLDER." : "";
}

async function start() {
  for (const tab of document.querySelectorAll(".tab")) {
    tab.addEventListener("click", () => {
      const nav = window.AgentgaugeNav;
      const panel = tab.dataset.panel;
      // The address keeps what the tab shows now: the result opened in Results, the result Replay lists.
      const review = window.AgentgaugeReview.view;
      const shown = { "panel-runs": ui.opened, "panel-review": review.fromResult ? review.resultId : null };
      nav.set({ tab: nav.PANELS[panel], ...(panel in shown ? { result: shown[panel] } : {}) });
      nav.apply().catch((error) => showError("sidebar-error", error));
    });
  }
  $("new-set-form").addEventListener("submit", createSet);
  // A narrow window folds the sidebar away (views.css); its toggle opens it, and choosing a set closes it.
  const toggle = $("sidebar-toggle");
  const fold = (open) => { document.body.classList.toggle("sidebar-open", open); toggle.setAttribute("aria-expanded", String(open)); };
  toggle.addEventListener("click", () => fold(!document.body.classList.contains("sidebar-open")));
  $("sidebar").addEventListener("click", (e) => { if (e.target.closest(".set-item")) fold(false); });
  $("case-save").addEventListener("click", saveCase);
  $("case-close").addEventListener("click", closeEditor);
  $("case-delete").addEventListener("click", deleteCase);
  $("delete-set").addEventListener("click", deleteSet);
  const { runSelected, cancelRun, summarizeMetrics } = window.AgentgaugeRuns;
  const { newSession, sendMessage, saveSession } = window.AgentgaugeChat;
  const { compare } = window.AgentgaugeCompare;
  $("run-selected").addEventListener("click", runSelected);
  $("run-cancel").addEventListener("click", cancelRun);
  ui.cases = new window.AgentgaugeCaseTable.CaseTable({ viewport: $("case-scroll"), body: $("case-list"),
    head: $("case-table").tHead, checkAll: $("check-all"), onEdit: openEditor });
  $("use-file-metrics").addEventListener("change", (e) => { $("metric-details").hidden = e.target.checked; });
  $("run-metrics").addEventListener("change", summarizeMetrics);
  $("chat-new").addEventListener("click", newSession);
  $("chat-form").addEventListener("submit", sendMessage);
  $("save-form").addEventListener("submit", saveSession);
  $("compare-btn").addEventListener("click", compare);
  $("compare-selected").addEventListener("click", compare);
  // The registry's metrics are read while the apps are listed (the first reading loads the evaluators).
  ui.metricsRead = api("GET", "/api/metrics").then((metrics) => { ui.metrics = metrics; });
  const [, apps] = await Promise.all([ui.metricsRead, loadApps(), noticeTracked()]);
  const nav = window.AgentgaugeNav;
  if (!nav.read().app && apps.length) nav.set({ app: apps[0].name }, { replace: true });  // the first app by default
  await nav.apply();  // the view the address names (a reload, a pasted link)
  document.body.dataset.ready = "true";
}

start().catch((error) => showError("sidebar-error", error));
