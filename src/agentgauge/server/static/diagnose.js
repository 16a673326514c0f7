// agentgauge web UI, diagnosis: two runs of a case side by side with their first divergence marked (in the Compare
// tab for base vs new, in the Replay tab for a run vs its expected turns), how a replayed turn's tool calls were
// served from its recording, and the Triage tab (a result's failures in clusters). The server computes everything
// (/api/apps/{app}/diff, /api/apps/{app}/results/{id}/triage); this file only lays it out.
// Loaded after app.js (helpers $, el, api, enc, ui, showTab), compare.js and replay.js, whose events it follows.
"use strict";

window.AgentgaugeDiagnose = (() => {
  const KIND = { different_tool: "different tool", different_arguments: "different arguments",
    different_result: "different tool result", extra_call: "extra call", missing_call: "missing call",
    different_answer: "different answer", extra_turn: "extra turn", missing_turn: "missing turn" };
  const MARK = { match: "=", replace: "≠", delete: "−", insert: "+" };

  const json = (v) => JSON.stringify(v);
  function stepText(step) {
    if (!step) return "";
    if (step.kind === "answer") return `answer: ${step.text || ""}`;
    return `${step.name}(${json(step.arguments ?? {})})` + (step.result === undefined ? "" : ` → ${json(step.result)}`);
  }
  const place = (s) => (s ? `${s.turn}.${s.step}` : "");

  function divergenceLine(d, sides) {
    if (!d) return "No divergence: both runs take the same steps.";
    let text = `First divergence at turn ${d.turn}, step ${d.step}: ${KIND[d.kind] || d.kind}`;
    if (d.detail) text += ` (${d.detail})`;
    const r = d.reconverges;
    text += r ? `; re-converges at ${sides[0]} ${r.baseTurn}.${r.baseStep} / ${sides[1]} ${r.newTurn}.${r.newStep}`
      : "; the runs do not re-converge";
    return text;
  }

  // The two runs' steps in two columns; the row where they first part has the class "fork".
  function sideBySide(data, sides) {
    const fork = data.steps.findIndex((s) => s.op !== "match");
    const rows = data.steps.map((s, i) => el("tr", { class: `step ${s.op}${i === fork ? " fork" : ""}`, dataset: { op: s.op } },
      el("td", { class: "where" }, place(s.base)), el("td", {}, el("code", {}, stepText(s.base))),
      el("td", { class: "mark" }, MARK[s.op]), el("td", { class: "where" }, place(s.new)),
      el("td", {}, el("code", {}, stepText(s.new)))));
    const table = el("table", { class: "steps" },
      el("thead", {}, el("tr", {}, el("th", { class: "where" }, ""), el("th", {}, `${sides[0]} (${data.base})`),
        el("th", { class: "mark" }, ""), el("th", { class: "where" }, ""), el("th", {}, `${sides[1]} (${data.new})`))),
      el("tbody", {}, ...rows));
    return el("div", { class: "fork-view" },
      el("p", { class: `divergence ${data.firstDivergence ? "diverged" : "same"}` }, divergenceLine(data.firstDivergence, sides)),
      table);
  }

  // ---- Compare: the first divergence of every changed case, each opening base and new side by side ----
  async function openFork(base, head, evalId) {
    const box = $("compare-fork");
    box.hidden = false;
    box.replaceChildren(el("p", { class: "muted" }, `Loading ${evalId}…`));
    try {
      const data = await api("GET", `/api/apps/${enc(ui.app)}/diff?base=${enc(base)}&new=${enc(head)}&case=${enc(evalId)}`);
      box.replaceChildren(el("h3", {}, `${evalId}: base → new`), sideBySide(data, ["base", "new"]));
    } catch (error) {
      box.replaceChildren(el("div", { class: "error" }, error.message));
    }
  }

  function showDivergences({ base, head, data }) {
    const list = $("compare-divergences");
    const diverged = data.cases.filter((c) => c.firstDivergence);
    $("compare-fork").hidden = true;
    list.replaceChildren();
    if (!diverged.length) return;
    list.append(el("h3", {}, `First divergences (${diverged.length})`));
    for (const c of diverged) {
      const d = c.firstDivergence;
      list.append(el("button", { type: "button", class: "divergence-item", dataset: { case: c.evalId, kind: d.kind },
        onclick: () => openFork(base, head, c.evalId) },
      el("b", {}, c.evalId), ` — turn ${d.turn}, step ${d.step}: ${KIND[d.kind] || d.kind}`));
    }
  }

  // ---- Replay: a run against its expected turns, and how replayed turns were served ----
  function replayNote(record) {
    const parts = [`${record.answered.length}/${record.recorded} recorded call(s) answered (${record.mode})`];
    for (const d of record.drift || []) parts.push(`drift at call ${d.call} ${d.name}: ${d.difference}${d.served ? "" : " (answered with an error)"}`);
    for (const c of record.unrecorded || []) parts.push(`call ${c.call} ${c.name} not in the recording: ${c.reason}`);
    for (const c of record.unconsumed || []) parts.push(`recorded call ${c.call} ${c.name}(${json(c.arguments)}) never consumed`);
    return el("ul", { class: "replay-record" }, ...parts.map((p) => el("li", {}, p)));
  }

  async function showReplay({ app, resultId, evalId, runId, turns }) {
    for (const turn of turns || []) {
      const node = document.querySelector(`#replay article[data-turn="${turn.index}"] .conv`);
      if (node && turn.replay) node.append(el("div", { class: "ev replay" }, el("span", { class: "who" }, "Replay"), replayNote(turn.replay)));
    }
    const box = el("details", { class: "fork-box", id: "replay-fork" }, el("summary", {}, "Steps against the expected turns"));
    const head = document.querySelector("#replay .replay-head");
    if (head) head.after(box);
    try {
      const data = await api("GET", `/api/apps/${enc(app)}/diff?new=${enc(resultId)}&case=${enc(evalId)}&newRun=${runId}`);
      box.open = !!data.firstDivergence;
      box.append(sideBySide(data, ["expected", "actual"]));
    } catch (error) {
      box.append(el("div", { class: "error" }, error.message));
    }
  }

  // ---- Triage: a result's failures in clusters ----
  async function openTriage(app, resultId) {
    showTab("panel-triage");
    const box = $("triage");
    $("triage-scope").textContent = `Failures of result ${resultId}, in clusters (heaviest first)`;
    box.replaceChildren(el("p", { class: "muted" }, "Loading…"));
    const merge = $("triage-merge").checked ? "?merge=0.9" : "";
    try {
      const data = await api("GET", `/api/apps/${enc(app)}/results/${enc(resultId)}/triage${merge}`);
      const head = el("p", { id: "triage-summary" }, data.headline);
      const rows = data.clusters.map((c) => el("tr", { class: "cluster", dataset: { rank: String(c.rank) } },
        el("td", {}, `#${c.rank}`), el("td", { class: "num" }, String(c.size)),
        el("td", { class: "num" }, `${Math.round((100 * c.size) / data.failing)}%`),
        el("td", { class: "num" }, c.cost === undefined ? "–" : `$${Number(c.cost).toFixed(4)}`),
        el("td", {}, el("b", {}, c.metric), c.divergence ? ` · ${KIND[c.divergence] || c.divergence}${c.tool ? ` at ${c.tool}` : ""}` : "",
          el("div", { class: "template" }, c.template)),
        el("td", {}, el("a", { href: "#", onclick: (e) => { e.preventDefault(); window.AgentgaugeReview.openResultCase(app, resultId, c.example.evalId); } },
          `${c.example.evalId} (run ${c.example.runId})`), el("div", { class: "reason" }, c.example.reason))));
      const table = el("table", { id: "triage-table" },
        el("thead", {}, el("tr", {}, ...["Rank", "Runs", "Share", "Cost", "Signature", "Typical member"].map((h) => el("th", {}, h)))),
        el("tbody", {}, ...rows));
      box.replaceChildren(head, data.clusters.length ? table : el("p", { class: "muted" }, "No failure: nothing to triage."));
    } catch (error) {
      box.replaceChildren(el("div", { class: "error" }, error.message));
    }
  }

  let opened = null;
  document.addEventListener("agentgauge:compared", (e) => showDivergences(e.detail));
  document.addEventListener("agentgauge:replay-shown", (e) => showReplay(e.detail));
  document.addEventListener("agentgauge:result-opened", (e) => {
    opened = e.detail;
    $("triage-result").onclick = () => openTriage(e.detail.app, e.detail.resultId);
  });
  $("triage-merge").addEventListener("change", () => { if (opened) openTriage(opened.app, opened.resultId); });
  return { openFork, openTriage, sideBySide };
})();
