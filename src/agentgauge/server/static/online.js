// agentgauge web UI, Live tab: online evaluation (serve --otlp --online rules.yaml) -- each rule's counts, its
// latest scores and a trend per period, refreshed every few seconds, and the rules file, editable in place.
// Loaded after app.js (el, api, status, showError) and svg.js.
"use strict";

const online = { timer: null, editing: false };

function onlineCounts(rule) {
  const c = rule.counts;
  const parts = [`${c.ended} ended`, `${c.sampled} sampled (${(rule.sampleRate * 100).toFixed(0)}%)`,
    `${c.scored} scored`, `${c.errors} errored`];
  if (c.filtered) parts.push(`${c.filtered} not matched`);
  if (c.capped) parts.push(`${c.capped} over the cap of ${rule.maxPerHour}/h`);
  if (c.dropped) parts.push(`${c.dropped} dropped (queue full)`);
  if (c.sink_failures) parts.push(`${c.sink_failures} deliveries failed`);
  if (rule.judgeBudget) {
    const b = rule.judgeBudget;
    parts.push(`judge ${b.used}/${b.calls} calls this ${b.per}` + (b.refused ? `, ${b.refused} refused` : ""));
  }
  return parts.join(" · ");
}

// A line of each metric's mean per period (0 at the bottom, the highest mean at the top).
function onlineTrend(rule) {
  const { svg, title } = window.AgentgaugeSvg;
  const periods = rule.trend;
  const names = [...new Set(periods.flatMap((p) => Object.keys(p.means)))];
  const width = 320, height = 60, pad = 4;
  const top = Math.max(1, ...periods.flatMap((p) => Object.values(p.means)));
  const x = (i) => pad + (periods.length > 1 ? (i * (width - 2 * pad)) / (periods.length - 1) : (width - 2 * pad) / 2);
  const y = (v) => height - pad - (v / top) * (height - 2 * pad);
  const chart = svg("svg", { class: "online-trend", width, height, viewBox: `0 0 ${width} ${height}` });
  names.forEach((name, n) => {
    const points = periods.map((p, i) => (name in p.means ? [x(i), y(p.means[name])] : null)).filter(Boolean);
    const line = svg("polyline", { points: points.map((p) => p.join(",")).join(" "), class: `trend-line s${n % 8}` },
      title(name));
    chart.append(line);
    for (const [px, py] of points) chart.append(svg("circle", { cx: px, cy: py, r: 3, class: `trend-dot s${n % 8}` }));
  });
  const legends = names.map((name, n) => el("span", { class: `legend s${n % 8}` }, name));
  const legend = periods.map((p) => `${p.period}: ${p.scored} scored, ${p.passed} passed, ${p.failed} failed, ` +
    `${p.errors} errored; ` + Object.entries(p.means).map(([k, v]) => `${k} ${v.toFixed(3)}`).join(", "));
  return el("div", {}, chart, el("div", {}, ...legends), el("p", { class: "muted online-periods" }, legend.join("\n")));
}

function onlineRecent(rule) {
  const rows = rule.recent.slice(0, 10).map((r) => el("tr", {},
    el("td", {}, el("a", { class: "open-live", onclick: () => openLiveSession(r.key) }, r.key)),
    el("td", {}, status(r.status)),
    el("td", {}, r.error || Object.entries(r.metrics).map(([k, v]) => `${k} ${v === null ? "–" : v.toFixed(3)}`)
      .join(", ")),
    el("td", {}, r.resultId || "")));
  return el("table", { class: "online-recent" },
    el("thead", {}, el("tr", {}, el("th", {}, "Session"), el("th", {}, "Status"), el("th", {}, "Scores"),
      el("th", {}, "Result (History)"))),
    el("tbody", {}, ...rows));
}

// History of a rule: its periods are the runs of eval set online_<rule> (under the app its sessions were scored in).
function onlineHistory(rule) {
  const saved = rule.recent.find((r) => r.resultId);
  if (!saved) return "";
  return el("button", { type: "button", class: "online-history", onclick: () => {
    ui.app = saved.appName;
    ui.set = `online_${rule.name}`;
    $("tab-history").click();
  } }, "History");
}

function renderOnline(data) {
  const rules = data.rules.map((rule) => el("div", { class: "online-rule", dataset: { rule: rule.name } },
    el("h4", {}, `${rule.name}` + (rule.evalSet ? ` — against ${rule.app}/${rule.evalSet}` : ""), " ",
      onlineHistory(rule)),
    el("p", { class: "online-counts" }, onlineCounts(rule)),
    rule.lastError ? el("p", { class: "warning" }, rule.lastError) : "",
    rule.trend.length ? onlineTrend(rule) : el("p", { class: "muted" }, "no session scored yet"),
    rule.recent.length ? onlineRecent(rule) : ""));
  const queue = data.queue;
  $("online-queue").textContent = `${data.waiting} session(s) not ended yet · queue ${queue.size}/${queue.capacity}` +
    (queue.dropped ? ` · ${queue.dropped} dropped` : "");
  $("online-rules").replaceChildren(...rules);
}

async function refreshOnline() {
  try {
    renderOnline(await api("GET", "/api/live/online"));
    showError("online-error", null);
  } catch (error) {
    showError("online-error", error);
  }
}

async function editOnlineRules() {
  const data = await api("GET", "/api/live/online/rules");
  $("online-file").textContent = data.file;
  $("online-text").value = data.text;
  $("online-editor").hidden = false;
}

async function saveOnlineRules(event) {
  event.preventDefault();
  try {
    const data = await api("PUT", "/api/live/online/rules", { text: $("online-text").value });
    $("online-saved").textContent = `Saved ${data.file}: ${data.rules.join(", ")}.`;
    showError("online-error", null);
    await refreshOnline();
  } catch (error) {
    showError("online-error", error);
  }
}

async function startOnline() {
  let data;
  try {
    data = await api("GET", "/api/live/online");
  } catch {
    return; // no --online: the section stays hidden
  }
  $("online").hidden = false;
  $("online-edit").addEventListener("click", () => editOnlineRules().catch((e) => showError("online-error", e)));
  $("online-editor").addEventListener("submit", saveOnlineRules);
  renderOnline(data);
  online.timer = setInterval(refreshOnline, 3000);
  document.body.dataset.online = "true";
}

startOnline().catch((error) => showError("online-error", error));
