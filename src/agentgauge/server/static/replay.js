// agentgauge web UI, Replay tab: the case list of an eval set (or of an opened result) and one case run replayed
// turn by turn: user message, tool calls and results, hand-offs, intermediate text, final response; each turn's
// PASS/FAIL and metric verdicts beside it; the expected side with the differences marked as the HTML report marks
// them (computed by the server). Keys: j / n next failed case, k / p previous failed case.
// Loaded after app.js (helpers $, el, api, enc, ui, status, when, showTab) and caselist.js / timeline.js.
"use strict";

window.AgentgaugeReview = (() => {
  const view = { app: null, set: null, resultId: null, fromResult: false, list: null, caseId: null, token: 0 };

  const num = (v, digits = 2) => (v === null || v === undefined ? "–" : Number(v).toFixed(digits));
  const seconds = (v) => (v === null || v === undefined ? null : `${Number(v).toFixed(2)} s`);

  function segments(list) {
    return (list || []).map(({ op, text }) =>
      op === "-" ? el("del", {}, text) : op === "+" ? el("ins", {}, text) : document.createTextNode(text));
  }

  function bubble(kind, who, ...content) {
    return el("div", { class: `ev ${kind}` }, el("span", { class: "who" }, who), ...content);
  }

  function eventNode(e) {
    if (e.kind === "tool_call") {
      return bubble("tool-call", "Tool call", el("code", {}, ...(e.diff ? segments(e.diff) : [e.text || e.name])));
    }
    if (e.kind === "tool_result") return bubble("tool-result", `Result of ${e.name}`, el("code", {}, e.result || ""));
    if (e.kind === "handoff") {
      return bubble("handoff", "Hand-off", `${e.author ? `${e.author} → ` : "→ "}${e.name || "(unnamed agent)"}`);
    }
    return bubble("text", e.author ? `Agent (${e.author})` : "Agent (intermediate)", el("div", { class: "text" }, e.text || ""));
  }

  function verdictNode(m) {
    const node = el("li", { class: `verdict ${m.status}`, dataset: { metric: m.metricName } },
      el("div", {}, status(m.status), " ", el("b", {}, m.metricName), " ",
        el("span", { class: "score" }, `${num(m.score)} / ${num(m.threshold)}`),
        m.value ? el("span", { class: "muted value" }, ` (${m.value})`) : ""));
    if (m.reason) node.append(el("div", { class: "reason" }, m.reason));
    for (const r of m.rubrics || []) node.append(el("div", { class: "reason rubric" }, r));
    return node;
  }

  function expectedNode(turn) {
    const exp = turn.expected;
    if (!exp) return el("div", { class: "muted" }, "No expected invocation.");
    const calls = exp.toolCalls.length ? exp.toolCalls.map((c) => el("div", {}, el("code", {}, ...segments(c))))
      : [el("div", { class: "muted" }, "(no tool calls)")];
    const response = exp.finalResponse
      ? el("div", { class: "text" }, ...(exp.responseStrategy ? [el("span", { class: "muted" }, `${exp.responseStrategy}: `)] : []),
        ...segments(exp.finalResponse))
      : el("div", { class: "muted" }, "(no final response)");
    return el("div", { class: "expected-side" }, el("div", { class: "muted" }, "Tool calls"), ...calls,
      el("div", { class: "muted" }, "Final response"), response);
  }

  function turnNode(turn) {
    const facts = [seconds(turn.duration), turn.modelDuration !== null ? `model ${seconds(turn.modelDuration)}` : null,
      turn.toolDuration !== null ? `tools ${seconds(turn.toolDuration)}` : null,
      turn.inputTokens !== null || turn.outputTokens !== null ? `${num(turn.inputTokens, 0)} in / ${num(turn.outputTokens, 0)} out tokens` : null]
      .filter(Boolean).join(" · ");
    const final = turn.finalResponse === null ? el("div", { class: "muted" }, "(no final response)")
      : el("div", { class: "text" }, ...(turn.finalResponseDiff ? segments(turn.finalResponseDiff) : [turn.finalResponse]));
    const conversation = el("div", { class: "conv" },
      bubble("user", "User", el("div", { class: "text" }, turn.user)),
      ...turn.events.map(eventNode),
      bubble("final", "Final response", final));
    const verdicts = el("ul", { class: "verdicts" }, ...turn.metrics.map(verdictNode));
    if (!turn.metrics.length) verdicts.append(el("li", { class: "muted" }, "No metric judged this turn."));
    const expected = el("details", { class: "expected", open: turn.status === "failed" },
      el("summary", {}, "Expected"), expectedNode(turn));
    const label = turn.status === "passed" ? "PASS" : turn.status === "failed" ? "FAIL" : turn.status.replace("_", " ");
    return el("article", { class: `turn ${turn.status}`, id: `turn-${turn.index}`, dataset: { turn: String(turn.index) } },
      el("header", { class: "row" }, el("b", {}, `Turn ${turn.index}`), el("span", { class: `status ${turn.status} verdict-badge` }, label),
        el("span", { class: "muted" }, facts)),
      el("div", { class: "turn-grid" }, el("div", {}, conversation, expected), verdicts));
  }

  function renderReplay(data) {
    const box = $("replay");
    // A reason is printed once: beside the turn it judged, not again among the case's overall verdicts.
    const shownInTurns = new Set(data.turns.flatMap((t) => t.metrics.map((m) => m.reason)).filter(Boolean));
    const runs = data.runIds.length > 1 ? el("select", { id: "replay-run", onchange: (e) => pickCase(data.evalId, Number(e.target.value)) },
      ...data.runIds.map((r, i) => el("option", { value: String(r), selected: r === data.runId },
        `run ${r}: ${(data.runStatuses[i] || "").replace("_", " ")}`))) : "";
    const head = el("div", { class: "replay-head" },
      el("div", { class: "row" }, el("h3", { id: "replay-title" }, data.evalId), status(data.status), runs,
        data.score != null ? el("span", { class: "muted", id: "replay-score" }, `case score ${num(data.score)}`) : "",
        el("span", { class: "spacer" }), el("span", { class: "muted" }, `result ${data.resultId}`)),
      data.reason ? el("div", { class: "error", id: "replay-reason" }, data.reason) : "",
      el("ul", { class: "verdicts overall" }, ...data.metrics.map((m) => verdictNode(shownInTurns.has(m.reason) ? { ...m, reason: null } : m))));
    box.replaceChildren(head, ...data.turns.map(turnNode));
    if (!data.turns.length) box.append(el("p", { class: "muted" }, "No turn was recorded."));
  }

  // A case picked by the reader: its address first (Back returns to the previous case), then the replay.
  function pickCase(evalId, runId) {
    window.AgentgaugeNav.set({ tab: "replay", result: view.fromResult ? view.resultId : null, case: evalId,
      run: runId || null, turn: null });
    return openCase(evalId, runId);
  }

  async function openCase(evalId, runId) {
    const row = view.list.all.find((r) => r.evalId === evalId);
    const resultId = (row && row.resultId) || view.resultId;
    view.caseId = evalId;
    view.runId = runId;
    $("replay-hint").hidden = true;
    if (!resultId) {
      $("replay").replaceChildren(el("p", { class: "muted" }, `Case ${evalId} has not been run yet.`));
      window.AgentgaugeTimeline.clear();
      return;
    }
    const token = ++view.token;
    const base = `/api/apps/${enc(view.app)}/results/${enc(resultId)}/cases/${enc(evalId)}`;
    const query = runId ? `?runId=${runId}` : "";
    try {
      const [data, timeline] = await Promise.all([api("GET", `${base}/replay${query}`), api("GET", `${base}/timeline${query}`)]);
      if (token !== view.token) return;  // another case was picked meanwhile
      renderReplay(data);
      document.dispatchEvent(new CustomEvent("agentgauge:replay-shown", { detail: { app: view.app, resultId,
        evalId, runId: data.runId, turns: data.turns } }));  // diagnose.js: the steps against the expected turns
      window.AgentgaugeTimeline.render(timeline);
      document.body.dataset.replayCase = evalId;
    } catch (error) {
      $("replay").replaceChildren(el("div", { class: "error" }, error.message));
    }
  }

  function showCounts() {
    const c = view.list.counts();
    $("case-count").textContent = `${c.shown} of ${c.total} cases · ${c.failing} failing` +
      (c.notRun ? ` · ${c.notRun} not run` : "");
    $("case-none").hidden = !(c.total && !c.shown);  // a blank box would look like a broken page
  }

  async function load(app, set, resultId) {
    if (!app || (!set && !resultId)) {
      $("review-scope").textContent = "Choose an eval set, or open a result.";
      view.list.setRows([]);
      showCounts();
      return;
    }
    const started = performance.now();  // the browser tests read the timings (docs/web.md quotes them)
    Object.assign(view, { app, set, resultId: resultId || null, fromResult: !!resultId });
    const path = resultId ? `/api/apps/${enc(app)}/results/${enc(resultId)}/cases`
      : `/api/apps/${enc(app)}/eval-sets/${enc(set)}/case-list`;
    const data = await api("GET", path);
    const fetched = performance.now();
    view.resultId = data.resultId;
    $("review-scope").textContent = resultId ? `Cases of result ${resultId} (${data.evalSetId})`
      : `Cases of ${app} / ${set}` + (data.resultId ? `, statuses of the latest run ${data.resultId}` : ", never run");
    const report = $("review-report");
    report.hidden = !data.resultId;
    if (data.resultId) report.href = `/api/apps/${enc(app)}/results/${enc(data.resultId)}/report.html`;
    view.list.setRows(data.cases);
    showCounts();
    const rendered = performance.now();
    Object.assign(document.body.dataset, { reviewFetchMs: String(Math.round(fetched - started)),
      reviewRenderMs: String(Math.round(rendered - fetched)), reviewLoaded: String(data.cases.length) });
  }

  function onKey(event) {
    if ($("panel-review").hidden || event.ctrlKey || event.metaKey || event.altKey) return;
    if (/^(INPUT|TEXTAREA|SELECT)$/.test(event.target.tagName)) return;
    const step = { j: 1, n: 1, k: -1, p: -1 }[event.key];
    if (!step) return;
    event.preventDefault();
    view.list.stepFailed(step);
  }

  function start() {
    view.list = new window.AgentgaugeCaseList.CaseList($("case-viewport"), (row) => pickCase(row.evalId));
    const query = () => {
      window.AgentgaugeNav.set({ q: $("case-search").value.trim() || null, status: $("case-filter").value || null },
        { replace: true });
      view.list.setQuery($("case-filter").value, $("case-search").value);
      showCounts();
    };
    let timer = null;
    $("case-search").addEventListener("input", () => { clearTimeout(timer); timer = setTimeout(query, 80); });
    $("case-filter").addEventListener("change", query);
    document.addEventListener("keydown", onKey);
    $("review-set").addEventListener("click", () => {
      window.AgentgaugeNav.set({ result: null, case: null, run: null, turn: null });
      load(ui.app, ui.set, null).catch(showFailure);
    });
    document.addEventListener("agentgauge:result-opened", (e) => {
      $("result-actions").hidden = false;
      $("replay-result").onclick = () => {
        window.AgentgaugeNav.set({ tab: "replay", result: e.detail.resultId, case: null, run: null, turn: null });
        showTab("panel-review");
        load(e.detail.app, null, e.detail.resultId).catch(showFailure);
      };
    });
    document.addEventListener("agentgauge:result-closed", () => { $("result-actions").hidden = true; });
    document.addEventListener("agentgauge:results-refreshed", () => {
      if (!$("panel-review").hidden && !view.fromResult && view.app) load(view.app, view.set, null).catch(showFailure);
    });
    document.addEventListener("agentgauge:set-shown", (e) => {
      view.fromResult = false;
      if ($("panel-review").hidden) view.app = null;  // loaded when the tab is opened
      else load(e.detail.app, e.detail.set, null).catch(showFailure);
    });
    // The report follows its own height (it says so by a message): no fixed-height frame, no scroll inside a scroll.
    window.addEventListener("message", (event) => {
      const frame = $("result-frame");
      const height = event.data && event.data.agentgaugeReportHeight;
      if (event.source === frame.contentWindow && typeof height === "number" && height > 0) {
        frame.style.height = `${Math.ceil(height) + 4}px`;
        frame.classList.add("fitted");
      }
    });
  }

  function showFailure(error) {
    $("review-scope").textContent = String(error.message || error);
  }

  // Open one case of one result (the history matrix calls this).
  async function openResultCase(app, resultId, evalId) {
    window.AgentgaugeNav.set({ tab: "replay", result: resultId, case: evalId, run: null, turn: null });
    await window.AgentgaugeNav.apply();
  }

  // The view the address names (nav.js): the set's or the result's cases, the filters, the case, its run, its turn.
  async function restore(s) {
    const resultId = s.result || null;
    const stale = resultId ? !view.fromResult || view.resultId !== resultId
      : view.fromResult || view.app !== ui.app || view.set !== ui.set;
    if (stale) await load(ui.app, resultId ? null : ui.set, resultId);
    $("case-search").value = s.q || "";
    $("case-filter").value = s.status || "";
    view.list.setQuery(s.status || "", s.q || "");
    showCounts();
    const runId = Number(s.run) || undefined;
    // No case named: the first failing one is shown rather than an empty pane beside the list.
    const shown = s.case || (stale || !view.caseId ? (view.list.rows.find((r) => r.status === "failed" || r.status === "error") || {}).evalId : null);
    if (shown && (shown !== view.caseId || runId !== view.runId || stale)) {
      view.list.select(shown);
      await openCase(shown, runId);
    }
    if (s.turn) {
      const turn = document.getElementById(`turn-${s.turn}`);
      if (turn) { turn.scrollIntoView({ block: "start" }); turn.classList.add("highlight"); }
    }
  }

  start();
  return { load, openCase, openResultCase, restore, view };
})();
