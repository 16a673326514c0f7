// agentgauge web UI, History tab: an eval set's runs over time as plain SVG — the pass rate and each metric's mean
// per run (hover a run for its labels; click to pick it: one picked run opens, two compare), and the runs × cases
// matrix of statuses (click a cell to replay that case in that run). Loaded after app.js (helpers $, el, api, enc,
// ui, when, showTab, openResult), compare.js and replay.js.
"use strict";

window.AgentgaugeHistory = (() => {
  const SVG = "http://www.w3.org/2000/svg";
  const state = { data: null, picked: [], app: null, set: null };
  const MATRIX_RUNS = 60;    // newest runs shown as columns of the matrix
  const MATRIX_CASES = 300;  // cases shown as rows (failing ones first)
  const CELL = 16;
  const HEAD = 20;  // px of the run numbers above the matrix
  const STATUS = { P: "passed", F: "failed", E: "error", N: "not_evaluated", "-": "not_run" };

  const { svg, title, tip } = window.AgentgaugeSvg;

  function runLabel(run, index) {
    const lines = [`run #${index + 1} · ${when(run.timestamp)}`, `pass rate ${fmt(run.passRate)} (${run.passed}/${run.total} case runs)`,
      `${run.passedCases}/${run.cases} cases passed`];
    for (const [name, mean] of Object.entries(run.metricMeans)) lines.push(`${name}: ${fmt(mean)}`);
    for (const [key, value] of Object.entries(run.metadata || {})) lines.push(`${key}: ${value}`);
    if (run.cancelled) lines.push("cancelled");
    lines.push(run.resultId);
    return lines.join("\n");
  }

  const fmt = (v) => (v === null || v === undefined ? "–" : Number(v).toFixed(3));

  // The series drawn: the pass rate, and each metric whose means all lie in [0, 1] (counts and seconds do not).
  function series(data) {
    const out = [{ name: "pass rate", key: null, values: data.runs.map((r) => r.passRate) }];
    const skipped = [];
    for (const name of data.metrics) {
      const values = data.runs.map((r) => (name in r.metricMeans ? r.metricMeans[name] : null));
      if (values.every((v) => v === null || (v >= 0 && v <= 1))) out.push({ name, key: name, values });
      else skipped.push(name);
    }
    return { lines: out, skipped };
  }

  function renderChart(data) {
    const box = $("trend-chart");
    const width = Math.max(box.clientWidth || 800, 320);
    const height = 240;
    const pad = { left: 40, right: 12, top: 12, bottom: 34 };
    const plotW = width - pad.left - pad.right;
    const plotH = height - pad.top - pad.bottom;
    const n = data.runs.length;
    const x = (i) => pad.left + (n <= 1 ? plotW / 2 : (i / (n - 1)) * plotW);
    const y = (v) => pad.top + (1 - v) * plotH;
    const chart = svg("svg", { width, height, viewBox: `0 0 ${width} ${height}`, class: "trend", role: "img" });
    chart.append(title(`Pass rate and metric means over ${n} runs`));
    for (const v of [0, 0.25, 0.5, 0.75, 1]) {
      const label = svg("text", { x: 4, y: y(v) + 4, class: "tl-tick" });
      label.textContent = v.toFixed(2);
      chart.append(svg("line", { x1: pad.left, x2: width - pad.right, y1: y(v), y2: y(v), class: "tl-grid" }), label);
    }
    const { lines, skipped } = series(data);
    lines.forEach((line, k) => {
      // A run without the metric breaks its line: no segment is drawn across a gap.
      const pieces = [[]];
      line.values.forEach((v, i) => {
        if (v === null) pieces.push([]);
        else pieces[pieces.length - 1].push(`${x(i).toFixed(1)},${y(v).toFixed(1)}`);
      });
      for (const points of pieces.filter((p) => p.length)) {
        chart.append(svg("polyline", { points: points.join(" "), class: `trend-line s${k % 8}`, "data-series": line.name }));
      }
      if (n <= 200) {  // dots only where they stay apart
        line.values.forEach((v, i) => { if (v !== null) chart.append(svg("circle", { cx: x(i), cy: y(v), r: k ? 2.5 : 3.5, class: `trend-dot s${k % 8}` })); });
      }
    });
    // One hit area per run: hover shows its labels, a click picks it.
    const band = n <= 1 ? plotW : plotW / (n - 1);
    data.runs.forEach((run, i) => {
      const hit = tip(svg("rect", { x: x(i) - band / 2, y: pad.top, width: Math.max(band, 2), height: plotH,
        class: `trend-hit${state.picked.includes(run.resultId) ? " picked" : ""}`, "data-result": run.resultId, "data-index": i }),
      runLabel(run, i));
      hit.addEventListener("click", () => pick(run.resultId));
      chart.append(hit);
    });
    // The x-axis names its runs: number, date, and the commit or labels when the result records them.
    const every = Math.max(1, Math.ceil(n / Math.max(1, Math.floor(plotW / 110))));
    data.runs.forEach((run, i) => {
      if (i % every && i !== n - 1) return;
      if (i !== n - 1 && n - 1 - i < every / 2) return;  // keep the newest run's label clear of the one before
      const meta = run.metadata || {};
      const extra = meta["git commit"] ? meta["git commit"].slice(0, 7)
        : Object.entries(meta).filter(([k]) => !k.includes(" ") && k !== "models" && k !== "agentgauge").map(([k, v]) => `${k}=${v}`).join(" ");
      const anchor = n === 1 ? "middle" : i === 0 ? "start" : i === n - 1 ? "end" : "middle";
      const label = svg("text", { x: x(i), y: height - 16, class: "tl-tick run-tick", "text-anchor": anchor, "data-index": i });
      label.append(svg("tspan", { x: x(i) }), svg("tspan", { x: x(i), dy: 11 }));
      label.firstChild.textContent = `#${i + 1} ${run.timestamp ? new Date(run.timestamp * 1000).toLocaleDateString() : ""}`;
      label.lastChild.textContent = extra.slice(0, 18);
      chart.append(label);
    });
    box.replaceChildren(chart);
    $("trend-legend").replaceChildren(...lines.map((line, k) => el("span", { class: `legend s${k % 8}` }, line.name)),
      ...(skipped.length ? [el("span", { class: "muted" }, ` not charted (values beyond 0–1): ${skipped.join(", ")}`)] : []));
  }

  // Rows: cases failing in the newest run first, then cases that ever failed, then the rest (at most MATRIX_CASES).
  function matrixRows(data, columns) {
    const newest = data.matrix[data.matrix.length - 1] || "";
    const failing = (letter) => letter === "F" || letter === "E";
    const rank = (c) => (failing(newest[c]) ? 0 : columns.some((r) => failing(data.matrix[r][c])) ? 1 : 2);
    const order = data.cases.map((_, c) => c).sort((a, b) => rank(a) - rank(b) || a - b);
    return order.slice(0, MATRIX_CASES);
  }

  function renderMatrix(data) {
    const box = $("matrix-box");
    const first = Math.max(0, data.runs.length - MATRIX_RUNS);
    const columns = data.runs.map((_, i) => i).slice(first);
    const rows = matrixRows(data, columns);
    const label = 180;
    const width = label + columns.length * CELL + 8;
    const height = HEAD + rows.length * CELL + 8;
    const chart = svg("svg", { width, height, viewBox: `0 0 ${width} ${height}`, class: "matrix", role: "img" });
    chart.append(title(`Statuses of ${rows.length} cases in the newest ${columns.length} runs`));
    const every = Math.max(1, Math.ceil(columns.length / 15));  // a run number every few columns
    columns.forEach((run, k) => {
      if (k % every) return;
      const number = svg("text", { x: label + k * CELL, y: HEAD - 6, class: "tl-tick" });
      number.textContent = `#${run + 1}`;
      chart.append(number);
    });
    rows.forEach((c, r) => {
      const name = svg("text", { x: 0, y: HEAD + r * CELL + 12, class: "tl-name" });
      const id = data.cases[c];
      name.textContent = id.length > 26 ? `${id.slice(0, 25)}…` : id;
      chart.append(name);
      columns.forEach((run, k) => {
        const letter = data.matrix[run][c] || "-";
        const share = (data.runs[run].caseRuns || {})[id];  // [runs passed, runs] of a result with several runs
        const count = share ? ` (${share[0]}/${share[1]} runs passed)` : "";
        const cell = tip(svg("rect", { x: label + k * CELL, y: HEAD + r * CELL, width: CELL - 2, height: CELL - 2,
          class: `cell ${STATUS[letter]}${share ? " shaded" : ""}`, "data-case": id, "data-result": data.runs[run].resultId }),
        `${id} · run #${run + 1} (${when(data.runs[run].timestamp)}): ${STATUS[letter].replace("_", " ")}${count}`);
        // Shaded by the pass rate over the case's runs: all red at 0/n, all green at n/n.
        if (share && share[1]) cell.style.fill = `hsl(${Math.round(120 * share[0] / share[1])}, 62%, 52%)`;
        if (letter !== "-") cell.addEventListener("click", () => window.AgentgaugeReview.openResultCase(state.app, data.runs[run].resultId, id));
        chart.append(cell);
      });
    });
    box.replaceChildren(chart);
    const hidden = [];
    if (first) hidden.push(`${first} older runs`);
    if (data.cases.length > rows.length) hidden.push(`${data.cases.length - rows.length} cases`);
    $("matrix-note").textContent = `Rows: cases (failing in the newest run first); columns: runs, oldest left.` +
      (hidden.length ? ` Not shown: ${hidden.join(" and ")}.` : "");
  }

  function pick(resultId) {
    const at = state.picked.indexOf(resultId);
    if (at >= 0) state.picked.splice(at, 1);
    else state.picked = [...state.picked.slice(-1), resultId];
    showPicked();
  }

  function showPicked() {
    for (const hit of document.querySelectorAll(".trend-hit")) hit.classList.toggle("picked", state.picked.includes(hit.dataset.result));
    const runs = state.data.runs;
    const names = state.picked.map((id) => `#${runs.findIndex((r) => r.resultId === id) + 1}`);
    $("history-picked").textContent = names.length ? `Picked: ${names.join(" and ")}` : "Click a run to pick it.";
    $("history-open").disabled = state.picked.length !== 1;
    $("history-compare").disabled = state.picked.length !== 2;
  }

  async function load() {
    if (!ui.app || !ui.set) {
      $("history-scope").textContent = "Choose an eval set.";
      return;
    }
    state.app = ui.app;
    state.set = ui.set;
    const asked = performance.now();  // the browser tests read the timings (docs/web.md quotes them)
    const data = await api("GET", `/api/apps/${enc(ui.app)}/eval-sets/${enc(ui.set)}/history`);
    if (state.app !== ui.app || state.set !== ui.set) return;
    state.data = data;
    state.picked = [];
    const started = performance.now();
    $("history-scope").textContent = `${data.runs.length} runs of ${ui.app} / ${ui.set}` +
      (data.truncated ? ` (${data.truncated} older runs left out)` : "");
    renderChart(data);
    renderMatrix(data);
    showPicked();
    document.body.dataset.historyRenderMs = String(Math.round(performance.now() - started));
    document.body.dataset.historyFetchMs = String(Math.round(started - asked));
    document.body.dataset.historyLoaded = String(data.runs.length);
  }

  function start() {
    const failed = (error) => { $("history-scope").textContent = String(error.message || error); };
    document.addEventListener("agentgauge:set-shown", () => { if (!$("panel-history").hidden) load().catch(failed); });
    document.addEventListener("agentgauge:results-refreshed", () => { if (!$("panel-history").hidden) load().catch(failed); });
    $("history-open").addEventListener("click", () => { if (state.picked.length === 1) openResult(state.picked[0]); });
    $("history-compare").addEventListener("click", async () => {
      if (state.picked.length !== 2) return;
      const order = state.data.runs.map((r) => r.resultId);
      const [base, head] = [...state.picked].sort((a, b) => order.indexOf(a) - order.indexOf(b));
      for (const box of document.querySelectorAll(".compare-check")) box.checked = false;  // the picked runs decide
      $("compare-base").value = base;
      $("compare-head").value = head;
      await window.AgentgaugeCompare.compare();
    });
  }

  start();
  return { load, state };
})();
