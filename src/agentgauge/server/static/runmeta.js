// agentgauge web UI: run metadata (eval --label KEY=VALUE, git state, agent source hash, models, version).
// Filters the Results list by label and shows the opened result's metadata. Reads app.js's `ui.results` rows
// (the server's result list: `labels` and `runMetadata` per row) and listens to its events.
"use strict";

(() => {
  const byId = (id) => document.getElementById(id);
  const KEY = /^[A-Za-z0-9][A-Za-z0-9_.\-/]{0,62}$/;  // model/_run_metadata.py LABEL_KEY_PATTERN

  // "env=prod team=core" -> {env: "prod", team: "core"}; throws naming the first bad token.
  function parseFilter(text) {
    const wanted = {};
    for (const token of text.split(/\s+/).filter(Boolean)) {
      const at = token.indexOf("=");
      const key = at < 0 ? "" : token.slice(0, at);
      if (!KEY.test(key)) throw new Error(`label filter '${token}': expected KEY=VALUE`);
      wanted[key] = token.slice(at + 1);
    }
    return wanted;
  }

  function applyFilter() {
    const error = byId("result-label-error");
    let wanted = {};
    try {
      wanted = parseFilter(byId("result-label-filter").value);
      error.hidden = true;
    } catch (e) {
      error.textContent = e.message;
      error.hidden = false;
      return;
    }
    const rows = new Map(ui.results.map((r) => [r.evalSetResultId, r.labels || {}]));
    for (const row of document.querySelectorAll("#result-list .result-row")) {
      const labels = rows.get(row.dataset.result) || {};
      row.hidden = !Object.entries(wanted).every(([k, v]) => labels[k] === v);
    }
  }

  function add(list, name, value) {
    if (value === undefined || value === null || value === "") return;
    list.append(Object.assign(document.createElement("dt"), { textContent: name }),
      Object.assign(document.createElement("dd"), { textContent: value }));
  }

  function showMetadata(resultId) {
    const box = byId("run-meta");
    const row = ui.results.find((r) => r.evalSetResultId === resultId);
    const m = (row && row.runMetadata) || {};
    box.replaceChildren();
    add(box, "Labels", Object.entries(m.labels || {}).map(([k, v]) => `${k}=${v}`).join(", "));
    if (m.gitCommit || m.gitDirty !== undefined) {
      const state = m.gitDirty === undefined ? "" : m.gitDirty ? " (uncommitted changes)" : " (clean)";
      add(box, "Git", `${(m.gitCommit || "no commit").slice(0, 12)}${m.gitBranch ? ` on ${m.gitBranch}` : ""}${state}`);
    }
    add(box, "Agent", m.agent && `${m.agent}${m.agentSourceHash ? ` (source ${m.agentSourceHash.slice(0, 12)})` : ""}`);
    add(box, "Models", (m.models || []).join(", "));
    add(box, "Judges", (m.judgeModels || []).join(", "));
    add(box, "agentgauge", m.agentgaugeVersion);
    box.hidden = !box.children.length;
  }

  byId("result-label-filter").addEventListener("input", () => {
    window.AgentgaugeNav.set({ labels: byId("result-label-filter").value.trim() || null }, { replace: true });
    applyFilter();
  });
  document.addEventListener("agentgauge:results-listed", applyFilter);
  document.addEventListener("agentgauge:result-opened", (e) => showMetadata(e.detail.resultId));
  document.addEventListener("agentgauge:result-closed", () => { byId("run-meta").hidden = true; });
})();
