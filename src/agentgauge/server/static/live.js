// agentgauge web UI, Live tab: sessions received by the OTLP receiver (serve --otlp) as they arrive (server-sent
// events from /api/live/events), one session's turns, scoring it and saving it as a golden case.
// Loaded after app.js, whose helpers ($, el, api, enc, ui, status, showError, showSet) it uses.
"use strict";

const live = { rows: new Map(), selected: null, source: null };

function liveNumber(value, digits = 0) {
  return value === null || value === undefined ? "–" : Number(value).toFixed(digits);
}

function liveTokens(row) {
  if (row.inputTokens === null && row.outputTokens === null) return "no token usage recorded";
  return `${liveNumber(row.inputTokens)} in / ${liveNumber(row.outputTokens)} out`;
}

function liveDuration(ms) {
  if (ms === null || ms === undefined) return "–";
  return ms >= 1000 ? `${(ms / 1000).toFixed(2)} s` : `${ms.toFixed(0)} ms`;
}

function liveRow(row) {
  const label = row.sessionId || row.key;
  const tr = el("tr", { dataset: { key: row.key }, class: row.key === live.selected ? "selected" : "" },
    el("td", {}, el("a", { class: "open-live", onclick: () => openLiveSession(row.key) }, label)),
    el("td", {}, row.appName || ""),
    el("td", {}, row.firstUserText || ""),
    el("td", { class: "live-turns" }, String(row.turnCount)),
    el("td", { class: "live-tools" }, String(row.toolCallCount)),
    el("td", {}, row.inputTokens === null && row.outputTokens === null ? "–" : liveTokens(row)),
    el("td", {}, liveDuration(row.durationMs)),
    el("td", {}, status(row.ended ? "ended" : "running")));
  return tr;
}

function renderLiveList() {
  const body = $("live-list");
  const rows = [...live.rows.values()].sort((a, b) => b.received - a.received);
  body.replaceChildren(...rows.map(liveRow));
  $("live-empty").hidden = rows.length > 0;
}

function liveUpdate(row) {
  live.rows.set(row.key, row);
  renderLiveList();
  if (row.key === live.selected) openLiveSession(row.key);
}

function liveTurn(turn, number) {
  const tokens = turn.inputTokens === null && turn.outputTokens === null ? "no token usage recorded" : liveTokens(turn);
  const facts = `turn ${number} · ${liveDuration(turn.durationMs)} · ${tokens}`;
  const box = el("div", { class: "live-turn" }, el("div", { class: "muted" }, facts),
    el("div", { class: "msg user" }, turn.user));
  for (const tool of turn.tools) {
    box.append(el("div", { class: "msg tool" },
      `${tool.name}(${JSON.stringify(tool.arguments)}) → ${JSON.stringify(tool.result)}`));
  }
  if (turn.response !== null) box.append(el("div", { class: "msg agent" }, turn.response));
  return box;
}

async function openLiveSession(key) {
  live.selected = key;
  for (const tr of document.querySelectorAll("#live-list tr")) tr.classList.toggle("selected", tr.dataset.key === key);
  try {
    const data = await api("GET", `/api/live/sessions/${enc(key)}`);
    $("live-detail").hidden = false;
    $("live-title").textContent = data.sessionId || data.key;
    $("live-facts").textContent = `${data.turnCount} turn(s), ${data.toolCallCount} tool call(s), ` +
      `${liveTokens(data)}, ${liveDuration(data.durationMs)}, ${data.traceIds.length} trace(s)` +
      (data.ended ? "" : " — still receiving");
    $("live-turns").replaceChildren(...data.turns.map((t, i) => liveTurn(t, i + 1)));
    $("live-warnings").textContent = data.warnings.join("\n");
    $("live-warnings").hidden = data.warnings.length === 0;
    // The case it was matched to exists by construction: the id field is left for a new id, the default said.
    $("live-case-id").placeholder = `new case id (default: ${data.evalId ? `${data.evalId}, if free` : "trace_<id>"})`;
    showError("live-error", null);
  } catch (error) {
    showError("live-error", error);
  }
}

function liveTarget() {
  const app = $("live-app").value.trim() || ui.app;
  const set = $("live-set").value.trim() || ui.set;
  return { app, set };
}

async function scoreLiveSession() {
  const { app, set } = liveTarget();
  const body = set ? { appName: app, evalSetId: set } : { appName: app, metrics: JSON.parse($("live-metrics").value || "null") };
  $("live-score").disabled = true;
  try {
    const data = await api("POST", `/api/live/sessions/${enc(live.selected)}/score`, body);
    const rows = [];
    for (const c of data.cases) {
      for (const m of c.metrics) {
        rows.push(el("tr", {}, el("td", {}, c.evalId), el("td", {}, m.name), el("td", {}, liveNumber(m.score, 3)),
          el("td", {}, String(m.threshold)), el("td", {}, status(m.status)), el("td", {}, m.reason || "")));
      }
    }
    $("live-score-list").replaceChildren(...rows);
    $("live-score-table").hidden = false;
    const how = data.matches.map((m) => `${m.caseId} (by ${m.by})`).join(", ");
    $("live-score-note").textContent = `${data.evalSetId}: ${data.status}` + (how ? ` — case ${how}` : "") +
      (data.resultId ? ` — result ${data.resultId}` : "");
    showError("live-error", null);
  } catch (error) {
    showError("live-error", error);
  } finally {
    $("live-score").disabled = false;
  }
}

async function saveLiveSession(event) {
  event.preventDefault();
  const { app, set } = liveTarget();
  try {
    if (!app || !set) throw new Error("choose an app and an eval set (sidebar) or type them above");
    const body = { appName: app, evalSetId: set, evalId: $("live-case-id").value.trim() || undefined };
    const data = await api("POST", `/api/live/sessions/${enc(live.selected)}/save`, body);
    $("live-saved").textContent = `Saved as case ${data.evalId} of ${data.evalSetId} (${data.turns} turn(s)).`;
    showError("live-error", null);
    if (ui.app === data.appName && ui.set === data.evalSetId && typeof showSet === "function") await showSet();
  } catch (error) {
    $("live-saved").replaceChildren(el("span", { class: "error", id: "live-save-error" }, String(error.message || error)));
  }
}

// One event stream for the page (/api/live/events): whether sessions are received at all (`hello`), the sessions as
// they change, and `results` when a result of an app is saved anywhere the server reads (app.js refreshes its views).
function startLive() {
  $("live-score").addEventListener("click", scoreLiveSession);
  $("live-save-form").addEventListener("submit", saveLiveSession);
  live.source = new EventSource("/api/live/events");
  live.source.addEventListener("hello", (e) => {
    const { otlp } = JSON.parse(e.data);
    $("live-off").hidden = otlp;
    $("live-off").textContent = otlp ? "" : "This server does not receive traces: start it with agentgauge serve --otlp " +
      "to see the sessions of running agents here.";
    $("live-table").hidden = !otlp;
    if (otlp) renderLiveList();
    else $("live-empty").hidden = true;
    document.body.dataset.live = String(otlp);
  });
  live.source.addEventListener("session", (e) => liveUpdate(JSON.parse(e.data)));
  live.source.addEventListener("removed", (e) => {
    live.rows.delete(JSON.parse(e.data).key);
    renderLiveList();
  });
  live.source.addEventListener("results", (e) => {
    document.dispatchEvent(new CustomEvent("agentgauge:results-changed", { detail: JSON.parse(e.data) }));
  });
}

startLive();
