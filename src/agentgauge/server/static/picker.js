// agentgauge web UI, Metrics tab: choose the eval set's metrics from the registry — description, value range,
// default threshold, judge settings (key values are never sent by the server) — and save the choice to the set's
// metrics file in that file's own dialect (an ADK test_config.json stays one). Loaded after app.js (helpers $, el,
// api, enc, ui, showSet).
"use strict";

window.AgentgaugePicker = (() => {
  const state = { data: null, app: null, set: null };

  function range(m) {
    return `${m.minValue} – ${m.maxValue === null ? "∞" : m.maxValue}`;
  }

  function judgeCell(m) {
    if (!m.needsJudge) return el("td", { class: "muted" }, "no judge");
    const current = m.judge["judge_model"] || m.judge["judgeModel.modelName"] || "";
    const settings = Object.entries(m.judge).map(([k, v]) => `${k}: ${v}`).join("\n");
    return el("td", {},
      el("input", { class: "picker-judge", placeholder: "judge model (default)", value: m.judgeModel ?? current,
        dataset: { metric: m.name }, oninput: (e) => { m.judgeModel = e.target.value; } }),
      settings ? el("div", { class: "muted picker-judge-settings" }, settings) : "");
  }

  function rowNode(m) {
    const threshold = m.threshold !== null ? m.threshold : m.defaultThreshold;
    return el("tr", { class: `picker-row${m.chosen ? " chosen" : ""}`, dataset: { metric: m.name } },
      el("td", {}, el("input", { type: "checkbox", class: "picker-check", checked: m.chosen, value: m.name,
        onchange: (e) => { m.chosen = e.target.checked; e.target.closest("tr").classList.toggle("chosen", m.chosen); } })),
      el("td", {}, el("b", {}, m.name), m.needsExpected ? el("div", { class: "muted" }, "needs expected turns") : ""),
      el("td", { class: "nowrap" }, range(m)),
      el("td", {}, String(m.defaultThreshold)),
      el("td", {}, el("input", { type: "number", class: "picker-threshold", step: "0.05", min: m.minValue,
        max: m.maxValue === null ? "" : m.maxValue, value: threshold, dataset: { metric: m.name },
        oninput: (e) => { m.threshold = Number(e.target.value); } })),
      judgeCell(m),
      el("td", { class: "picker-description" }, m.description));
  }

  function describeFile(data) {
    const dialect = data.dialect === "adk" ? "ADK test_config.json form ({\"criteria\": …})" : "native form (a JSON array)";
    const scoring = data.scoringDialect ? `, scored with ${data.scoringDialect} rules` : "";
    return data.file ? `Metrics file ${data.file}: ${dialect}${scoring}. Saving keeps this form.`
      : `No metrics file yet: saving creates ${data.saveAs} in the ${dialect}.`;
  }

  function render(data) {
    state.data = data;
    $("picker-file").textContent = describeFile(data);
    const filter = $("picker-search").value.toLowerCase();
    const only = $("picker-chosen-only").checked;
    const rows = data.metrics.filter((m) => (!only || m.chosen) &&
      (!filter || `${m.name} ${m.description}`.toLowerCase().includes(filter)));
    $("picker-list").replaceChildren(...rows.map(rowNode));
  }

  // The choice as edited (kept on the metrics themselves, so rows hidden by the filter keep their edits).
  function chosen() {
    return state.data.metrics.filter((m) => m.chosen).map((m) => {
      const entry = { metricName: m.name, threshold: m.threshold ?? m.defaultThreshold };
      const judge = (m.judgeModel ?? "").trim();
      if (judge) entry.judgeModel = judge;
      return entry;
    });
  }

  async function load() {
    showError("picker-error", null);
    if (!ui.app || !ui.set) {
      $("picker-file").textContent = "Choose an eval set.";
      $("picker-list").replaceChildren();
      return;
    }
    state.app = ui.app;
    state.set = ui.set;
    const data = await api("GET", `/api/apps/${enc(ui.app)}/eval-sets/${enc(ui.set)}/metric-picker`);
    if (state.app === ui.app && state.set === ui.set) render(data);
  }

  async function save() {
    showError("picker-error", null);
    $("picker-note").textContent = "";
    try {
      const data = await api("PUT", `/api/apps/${enc(state.app)}/eval-sets/${enc(state.set)}/metric-picker`, { metrics: chosen() });
      render(data);
      $("picker-note").textContent = `Saved ${data.metrics.filter((m) => m.chosen).length} metrics to ${data.file}.`;
      if (state.app === ui.app && state.set === ui.set) await showSet();  // the Run box uses the file now
    } catch (error) {
      showError("picker-error", error);
    }
  }

  function start() {
    const failed = (error) => showError("picker-error", error);
    // A set shown while the tab is open is read once: the tab's own opening may already be reading that set, and
    // drawing the list again would drop what is being typed into it.
    const current = () => state.data && state.app === ui.app && state.set === ui.set;
    document.addEventListener("agentgauge:set-shown", () => {
      if (!$("panel-metrics").hidden && !current()) load().catch(failed);
    });
    $("picker-save").addEventListener("click", save);
    $("picker-search").addEventListener("input", () => state.data && render(state.data));
    $("picker-chosen-only").addEventListener("change", () => state.data && render(state.data));
  }

  start();
  return { load };
})();
