// agentgauge web UI, Compare tab: two results of the app compared case by case, as `agentgauge compare` shows them
// (what changed per case, metric means, pass@k, significance, cases not run by one side). Loaded before app.js; its
// functions use app.js's helpers ($, el, api, enc, ui, status, showTab) when called.
"use strict";

window.AgentgaugeCompare = (() => {
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
    window.AgentgaugeNav.set({ tab: "compare", base, new: head, case: null });
    await show(base, head);
    showTab("panel-compare");
  }

  async function show(base, head, caseId) {
    const data = await api("GET", `/api/apps/${enc(ui.app)}/compare?base=${enc(base)}&new=${enc(head)}`);
    Object.assign(shown, { base, head });
    renderComparison(data);
    document.dispatchEvent(new CustomEvent("agentgauge:compared", { detail: { base, head, data } }));  // diagnose.js
    // The case the address names, else the first one to act on, opens with its two answers.
    const first = document.querySelector(".compare-row");
    const open = caseId || (first && first.dataset.change !== "still_passing" ? first.dataset.case : null);
    if (open) await toggleCase(open, false);
    document.body.dataset.compared = `${base}:${head}`;
  }

  // The pair the address names (nav.js), once the results are listed.
  async function restore(s) {
    if (!s.base || !s.new) return;
    $("compare-base").value = s.base;
    $("compare-head").value = s.new;
    const same = shown.base === s.base && shown.head === s.new;
    const opened = document.querySelector(".compare-detail");
    if (same && (opened ? opened.dataset.case : null) === (s.case || null)) return;
    await show(s.base, s.new, s.case);
  }

  // The labels and order of `agentgauge compare`: what a reader must act on comes first. Cases one side did not
  // run ("not_run": it ran a selection of cases) are listed apart, below the table, and never a regression.
  const CHANGE_ORDER = ["broken", "fixed", "within_noise", "still_failing", "new", "removed", "still_passing"];
  const CHANGE_LABEL = { broken: "broken", fixed: "fixed", within_noise: "within noise",
    still_failing: "still failing", new: "new", removed: "removed", still_passing: "still passing",
    not_run: "not run" };
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

  // The gate's verdict and rule (what `agentgauge compare` exits by), what failed it, and the status flips the
  // exact test cannot tell from chance ("within noise": never broken).
  function renderGate(data) {
    const box = $("compare-gate");
    const verdict = box.querySelector(".gate-verdict");
    const findings = box.querySelector(".gate-findings");
    findings.replaceChildren();
    const g = data.gate;
    const state = g && g.failed ? "FAILED" : "passed";
    verdict.textContent = g ? `Gate: ${state} (--fail-on ${g.failOn}, alpha ${g.alpha}): ${g.rule}` : "";
    verdict.className = `gate-verdict ${g && g.failed ? "failed" : "passed"}`;
    for (const f of (g ? g.findings : [])) findings.append(el("li", { class: "gate-finding" }, f));
    const noise = data.cases.filter((c) => c.change === "within_noise");
    if (noise.length) {
      const shown = noise.map((c) => `${c.evalId} (${c.baseStatus} → ${c.newStatus}, ` +
        `${c.basePassedRuns}/${c.baseRuns} → ${c.newPassedRuns}/${c.newRuns})`);
      const cases = `${noise.length} case${noise.length === 1 ? "" : "s"}`;
      findings.append(el("li", { class: "within-noise" }, `Within noise: ${cases} (the status flipped, but the ` +
        `pass rate's change may be chance at ${data.alpha}; never broken): ${shown.join(", ")}`));
    }
    box.hidden = !g && !noise.length;
  }

  // A long reason shows its start; the rest is one click away (no row taller than the screen).
  function folded(text) {
    if (text.length <= 140) return text;
    return el("details", { class: "fold" }, el("summary", {}, `${text.slice(0, 140)}…`), el("div", {}, text));
  }

  function segmentNodes(list) {
    return (list || []).map(({ op, text }) =>
      op === "-" ? el("del", {}, text) : op === "+" ? el("ins", {}, text) : document.createTextNode(text));
  }

  function answerNode(side, facts, answer) {
    const calls = answer.toolCalls.length ? answer.toolCalls.map((c) => el("div", { class: "sbs-call" }, el("code", {}, ...segmentNodes(c))))
      : [el("div", { class: "muted" }, "(no tool calls)")];
    return el("div", { class: `sbs-side ${side}` },
      el("div", { class: "muted" }, "Tool calls"), ...calls,
      el("div", { class: "muted" }, "Final response"),
      answer.finalResponse ? el("div", { class: "sbs-text" }, ...segmentNodes(answer.finalResponse)) : el("div", { class: "muted" }, "(none)"));
  }

  function sideHead(name, facts) {
    if (!facts) return el("div", { class: "sbs-head muted" }, `${name}: not in this result`);
    return el("div", { class: "sbs-head" }, el("b", {}, name), " ", status(facts.status),
      facts.runId > 1 ? ` run ${facts.runId}` : "", facts.reason ? el("div", { class: "reason" }, folded(facts.reason)) : "");
  }

  // The two answers of one case side by side, under its row (the address keeps the case open).
  async function toggleCase(evalId, byReader) {
    const row = document.querySelector(`.compare-row[data-case="${CSS.escape(evalId)}"]`);
    if (!row) return;
    const open = row.nextElementSibling && row.nextElementSibling.classList.contains("compare-detail");
    if (open) {
      row.nextElementSibling.remove();
      row.classList.remove("open");
      if (byReader) window.AgentgaugeNav.set({ case: null });
      return;
    }
    if (byReader) window.AgentgaugeNav.set({ case: evalId });
    const cell = el("td", { colSpan: 6 }, el("span", { class: "muted" }, "Reading both answers…"));
    row.after(el("tr", { class: "compare-detail", dataset: { case: evalId } }, cell));
    row.classList.add("open");
    const [base, head] = [shown.base, shown.head];
    try {
      const data = await api("GET", `/api/apps/${enc(ui.app)}/compare/cases/${enc(evalId)}?base=${enc(base)}&new=${enc(head)}`);
      const turns = data.turns.map((t) => el("div", { class: "sbs-turn", dataset: { turn: String(t.index) } },
        el("div", { class: "sbs-user" }, el("span", { class: "muted" }, `Turn ${t.index} · user: `), t.user),
        el("div", { class: "sbs-grid" }, answerNode("base", data.base, t.base), answerNode("new", data.new, t.new))));
      cell.replaceChildren(el("div", { class: "sbs-grid" }, sideHead("Base", data.base), sideHead("New", data.new)),
        ...(turns.length ? turns : [el("p", { class: "muted" }, "No turn was recorded on either side.")]));
    } catch (error) {
      cell.replaceChildren(el("div", { class: "error" }, error.message));
    }
  }

  const shown = { base: null, head: null };

  function renderComparison(data) {
    const count = (kind) => data.cases.filter((c) => c.change === kind).length;
    const parts = CHANGE_ORDER.filter((k) => count(k)).map((k) => `${count(k)} ${CHANGE_LABEL[k]}`);
    const notRun = data.cases.filter((c) => c.change === "not_run");
    const tail = notRun.length ? ` (${notRun.length} not run)` : "";
    const summary = $("compare-summary");
    summary.textContent = `${data.regressed ? "REGRESSED" : "no regression"}: ` +
      `${parts.join(", ") || (notRun.length ? "no cases compared" : "no cases")}${tail}`;
    summary.className = data.regressed ? "error" : "ok";
    renderGate(data);
    const cases = data.cases.filter((c) => c.change !== "not_run")
      .sort((a, b) => CHANGE_ORDER.indexOf(a.change) - CHANGE_ORDER.indexOf(b.change));
    const body = $("compare-table").querySelector("tbody");
    body.replaceChildren();
    for (const c of cases) {
      const names = [...new Set([...Object.keys(c.baseMetrics), ...Object.keys(c.newMetrics)])];
      const scores = names.map((n) => `${n}: ${num(c.baseMetrics[n])} → ${num(c.newMetrics[n])}`);
      const row = el("tr", { class: "compare-row", dataset: { case: c.evalId, change: c.change },
        title: "show the two answers side by side", onclick: (e) => { if (!e.target.closest("details")) toggleCase(c.evalId, true); } },
        el("td", { class: "case-cell" }, el("button", { type: "button", class: "link sbs-toggle" }, c.evalId)),
        el("td", { class: `change ${c.change}` }, CHANGE_LABEL[c.change]),
        el("td", { class: "statuses" }, status(c.baseStatus), " → ", status(c.newStatus)),
        el("td", { class: "runs" }, `${runs(c.basePassedRuns, c.baseRuns, c.baseStatus)} → ${runs(c.newPassedRuns, c.newRuns, c.newStatus)}${runsStates(c)}`),
        el("td", { class: "reason" }, folded(c.reason || "")),
        el("td", { class: "scores" }, ...scores.map((line) => el("div", {}, line))));
      body.append(row);
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

  return { compare, renderComparison, restore };
})();
