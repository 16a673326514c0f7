// agentgauge web UI: the case list of the Replay tab — last status and first failure reason per case, filtered by
// status and searched by id, words (every user message and expected answer) or reason. Windowed (window.js): only
// the rows in view (plus a few) are in the DOM, so a list of thousands of cases renders and scrolls at once. Loaded
// after app.js, whose helpers (el, status) it uses.
"use strict";

window.AgentgaugeCaseList = (() => {
  const ROW_HEIGHT = 46;  // px; every row has the same height (id and status on one line, the reason on the next)
  const FAILING = new Set(["failed", "error"]);

  // What a row's search looks in, lower-cased once per row (a list of thousands is searched at every key): its id,
  // every user message and expected answer of its turns (row.search, when the server sent more than row.text) and
  // its reason.
  const hays = new WeakMap();
  function hay(row) {
    let found = hays.get(row);
    if (found === undefined) {
      found = `${row.evalId}\n${row.search || row.text || ""}\n${row.reason || ""}`.toLowerCase();
      hays.set(row, found);
    }
    return found;
  }

  // A row matches the status filter ("" all, "failing" failed or error, "not_run" never run) and the words of the
  // search, each found in the id, the case's words or the reason (case-insensitive).
  function matches(row, filter, words) {
    if (filter === "failing" && !FAILING.has(row.status)) return false;
    if (filter === "not_run" && row.status) return false;
    if (filter && filter !== "failing" && filter !== "not_run" && row.status !== filter) return false;
    if (!words.length) return true;
    const text = hay(row);
    return words.every((w) => text.includes(w));
  }

  // The reason on its one line: the server's short form (metric and invocation, then what differs) in two parts, so
  // that a narrow list cuts the headline and keeps the difference in view; the full reason is the row's title.
  const CUT = ": … ";
  function reasonLine(row) {
    const shown = row.reasonShort || row.reason || (row.status ? "" : row.text || "");
    const at = row.reasonShort ? shown.indexOf(CUT) : -1;
    if (at < 0) return el("div", { class: "case-reason" }, shown);
    return el("div", { class: "case-reason split" }, el("span", { class: "reason-head" }, shown.slice(0, at + 1)),
      el("span", { class: "reason-tail" }, shown.slice(at + 1)));
  }

  class CaseList {
    constructor(viewport, onPick) {
      this.viewport = viewport;
      this.onPick = onPick;
      this.spacer = el("div", { class: "case-spacer" });
      this.window = el("div", { class: "case-window" });
      this.spacer.append(this.window);
      viewport.replaceChildren(this.spacer);
      this.all = [];
      this.rows = [];
      this.filter = "";
      this.words = [];
      this.selected = null;
      this.rowWindow = new window.AgentgaugeWindow.RowWindow({
        viewport, list: this.window, rowHeight: ROW_HEIGHT,
        make: (index) => this.rowNode(this.rows[index], index),
        place: (first) => { this.window.style.transform = `translateY(${first * ROW_HEIGHT}px)`; },
      });
    }

    setRows(rows) {
      this.all = rows;
      this.apply();
    }

    setQuery(filter, text) {
      this.filter = filter;
      this.words = text.toLowerCase().split(/\s+/).filter(Boolean);
      this.apply();
    }

    apply() {
      this.rows = this.all.filter((row) => matches(row, this.filter, this.words));
      this.spacer.style.height = `${this.rows.length * ROW_HEIGHT}px`;
      this.rowWindow.reset(this.rows.length);
    }

    rowNode(row, index) {
      const item = el("div", {
        class: `case-item${row.evalId === this.selected ? " selected" : ""}`,
        dataset: { case: row.evalId, index: String(index), status: row.status || "not_run" },
        title: [row.statusText, row.reason].filter(Boolean).join("\n"),
        onclick: () => this.pick(row.evalId),
      },
      el("div", { class: "case-line" }, status(row.status || "not run"),
        el("span", { class: "case-id", title: row.evalId }, row.evalId),
        row.runs > 1 && row.runsPassed > 0 && row.runsPassed < row.runs ? el("span", { class: "flaky", title: "its runs disagree" }, "flaky") : "",
        el("span", { class: "case-meta muted" }, `${row.turns} turn${row.turns === 1 ? "" : "s"}` +
          (row.runs > 1 ? ` · ${row.runsPassed}/${row.runs} runs passed` : ""))),
      reasonLine(row));
      return item;
    }

    // Mark the case as the one shown and scroll it into view (without opening it).
    select(evalId) {
      this.selected = evalId;
      this.rowWindow.reveal(this.rows.findIndex((r) => r.evalId === evalId));
      this.rowWindow.reset(this.rows.length);  // the selected row's mark moves
    }

    pick(evalId) {
      this.select(evalId);
      const row = this.all.find((r) => r.evalId === evalId);
      if (row) this.onPick(row);
    }

    // The next (step 1) or previous (step -1) failing case in the filtered list after the selected one.
    stepFailed(step) {
      const failing = this.rows.filter((r) => FAILING.has(r.status));
      if (!failing.length) return null;
      const at = failing.findIndex((r) => r.evalId === this.selected);
      const next = at < 0 ? (step > 0 ? 0 : failing.length - 1) : (at + step + failing.length) % failing.length;
      this.pick(failing[next].evalId);
      return failing[next].evalId;
    }

    counts() {
      return { shown: this.rows.length, total: this.all.length,
        failing: this.all.filter((r) => FAILING.has(r.status)).length,
        // cases its result could not run, with why (a trace run's cases without a trace)
        notRun: this.all.filter((r) => !r.status && r.reason).length };
    }
  }

  return { CaseList, matches, ROW_HEIGHT };
})();
