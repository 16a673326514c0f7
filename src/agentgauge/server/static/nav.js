// agentgauge web UI: the address of every view. What is chosen (app, eval set, tab, opened result, replayed case, its
// run and turn, the compared pair and case, the filters) is kept in the URL's fragment, `#app=..&set=..&tab=..`, so a
// view survives a reload, Back and Forward step through the choices, and a link pasted elsewhere (the HTML report,
// the terminal, JUnit, a CI summary: agentgauge.reporting.replay_link writes the same keys) opens that view.
// Loaded before app.js; apply() calls app.js's and the views' functions when the address changes.
"use strict";

window.AgentgaugeNav = (() => {
  // The fragment's keys, in the order they are written (so one view has one address).
  const KEYS = ["app", "set", "tab", "result", "case", "run", "turn", "base", "new", "q", "status", "labels"];
  const TABS = { cases: "panel-cases", chat: "panel-chat", results: "panel-runs", compare: "panel-compare",
    live: "panel-live", replay: "panel-review", triage: "panel-triage", history: "panel-history",
    metrics: "panel-metrics", optimize: "panel-optimize" };
  const PANELS = Object.fromEntries(Object.entries(TABS).map(([name, panel]) => [panel, name]));
  let applying = 0;  // while the page follows the address, its own changes are not written back

  function read() {
    const params = new URLSearchParams(location.hash.replace(/^#/, ""));
    return Object.fromEntries(KEYS.filter((k) => params.get(k)).map((k) => [k, params.get(k)]));
  }

  function format(state) {
    const params = new URLSearchParams();
    for (const key of KEYS) if (state[key] !== undefined && state[key] !== null && state[key] !== "") params.set(key, String(state[key]));
    const text = params.toString();
    return text ? `#${text}` : location.pathname;
  }

  // Change the address by `patch` (null drops a key). A new entry for a new view; `replace` for what is typed
  // (a search, a filter), so Back does not step through every letter.
  function set(patch, { replace = false } = {}) {
    if (applying) return;
    const next = { ...read(), ...patch };
    const address = format(next);
    if (address === (location.hash || location.pathname)) return;
    history[replace ? "replaceState" : "pushState"](null, "", address);
  }

  // What a new choice drops: another app forgets everything chosen in the previous one, another set its result.
  const DROP_FOR_APP = { set: null, result: null, case: null, run: null, turn: null, base: null, new: null };
  const DROP_FOR_SET = { result: null, case: null, run: null, turn: null };

  // Each tab's view as the address names it (the views read what they need of `s`).
  const RESTORE = {
    "panel-runs": (s) => {
      const filter = $("result-label-filter");
      if (filter.value !== (s.labels || "")) {
        filter.value = s.labels || "";
        filter.dispatchEvent(new Event("input"));  // runmeta.js filters the list (the address is already this one)
      }
      return s.result ? openResult(s.result) : closeResult();
    },
    "panel-review": (s) => window.AgentgaugeReview.restore(s),
    "panel-compare": (s) => window.AgentgaugeCompare.restore(s),
    "panel-history": () => window.AgentgaugeHistory.load(),
    "panel-metrics": () => window.AgentgaugePicker.load(),
    "panel-optimize": () => window.AgentgaugeOptimize.load(),
  };

  async function following(work) {
    applying += 1;
    try { return await work(); } finally { applying -= 1; }
  }

  // Bring the page to the address: the app and set in the sidebar, the tab, and that tab's view.
  async function apply() {
    const s = read();
    await following(async () => {
      const app = ui.apps[s.app] ? s.app : ui.app || Object.keys(ui.apps)[0];
      if (app && app !== ui.app) await selectApp(app);
      if (s.set && s.set !== ui.set) await selectSet(s.set);
      else if (!s.set && ui.set && s.app === ui.app) await selectSet(null);
      const panel = TABS[s.tab] || "panel-cases";
      showTab(panel);
      const restore = RESTORE[panel];
      if (restore) await restore(s);
    });
  }

  // Back, Forward and a followed link change the fragment (the page's own changes use pushState, which does not).
  window.addEventListener("hashchange", () => { apply().catch((error) => showError("sidebar-error", error)); });
  // The address of a case's replay in a result (a link a view can show).
  const replayLink = (app, set, result, evalId, run) => format({ app, set, tab: "replay", result, case: evalId, run });

  return { read, set, apply, format, replayLink, TABS, PANELS, DROP_FOR_APP, DROP_FOR_SET, following };
})();
