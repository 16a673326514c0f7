// agentgauge web UI: the Cases tab's table of an eval set — per case a checkbox, the id, its turns, the last status
// and a button that opens it in the editor. Windowed (window.js): only the rows in view are in the DOM, two spacer
// rows stand for the others, so a set of thousands of cases shows at once. What the rows show (checks, statuses)
// lives in the data, never read back from the DOM. Loaded before app.js; uses its helpers (el, status) when drawing.
"use strict";

window.AgentgaugeCaseTable = (() => {
  const ROW_HEIGHT = 40;  // px, the height style.css gives a row; measured again once a row is laid out

  class CaseTable {
    // viewport: the element that scrolls the table; body: its <tbody>; checkAll: the select-all checkbox;
    // onEdit(evalId): the row's "View / edit" button.
    constructor({ viewport, body, head, checkAll, onEdit }) {
      Object.assign(this, { viewport, body, checkAll, onEdit });
      this.key = null;              // "app/set" of the cases shown
      this.cases = [];              // [{ evalId, turns }], the set's order
      this.positions = new Map();   // evalId → index in cases
      this.statuses = new Map();    // evalId → last status
      this.checked = new Set();     // evalIds checked
      this.measured = false;
      this.gapAbove = gapRow();
      this.gapBelow = gapRow();
      body.replaceChildren(this.gapAbove, this.gapBelow);
      this.rowWindow = new window.AgentgaugeWindow.RowWindow({
        viewport, list: body, anchor: this.gapBelow, rowHeight: ROW_HEIGHT,
        offset: () => head.offsetHeight,  // the sticky header covers the top of the viewport
        make: (index) => this.rowNode(this.cases[index]),
        place: (first, last, count) => this.place(first, last, count),
      });
      checkAll.addEventListener("change", () => this.checkEvery(checkAll.checked));
    }

    // The cases of set `key` ("app/set") with their statuses (a Map). Another set starts at its top with nothing
    // checked; the same set read again (a case added or deleted) keeps the place and the checks of its cases.
    setCases(key, cases, statuses) {
      const same = key === this.key;
      this.key = key;
      this.cases = cases;
      this.positions = new Map(cases.map((c, index) => [c.evalId, index]));
      this.statuses = new Map(statuses);
      this.checked = same ? new Set(cases.filter((c) => this.checked.has(c.evalId)).map((c) => c.evalId)) : new Set();
      this.showChecks();
      if (!same) this.viewport.scrollTop = 0;
      this.rowWindow.reset(cases.length);
    }

    ids() {
      return this.cases.map((c) => c.evalId);
    }

    // The checked cases in the set's order.
    checkedIds() {
      return this.cases.filter((c) => this.checked.has(c.evalId)).map((c) => c.evalId);
    }

    // Every case's last status again (a Map evalId → status; a case not in it keeps the one it shows).
    setStatuses(statuses) {
      for (const [id, value] of statuses) this.statuses.set(id, value);
      this.rowWindow.reset(this.cases.length);
    }

    // One case's status (during a run): the data, and the row if it is drawn.
    setStatus(evalId, value) {
      this.statuses.set(evalId, value);
      const row = this.rowWindow.node(this.positions.get(evalId) ?? -1);
      if (row) row.querySelector(".case-status").replaceChildren(status(value));
    }

    checkEvery(on) {
      this.checked = on ? new Set(this.ids()) : new Set();
      for (const box of this.body.querySelectorAll(".case-check")) box.checked = on;  // the drawn rows only
      this.showChecks();
    }

    check(evalId, on) {
      if (on) this.checked.add(evalId);
      else this.checked.delete(evalId);
      this.showChecks();
    }

    // The select-all box says whether every case, some or none are checked.
    showChecks() {
      const count = this.checked.size;
      this.checkAll.checked = count > 0 && count === this.cases.length;
      this.checkAll.indeterminate = count > 0 && count < this.cases.length;
    }

    // Scroll the case's row into view (drawn at once) and return it, or null for an unknown case.
    reveal(evalId) {
      const index = this.positions.get(evalId);
      if (index === undefined) return null;
      this.rowWindow.reveal(index);
      return this.rowWindow.node(index);
    }

    rowNode(c) {
      const id = c.evalId;
      const value = this.statuses.get(id);
      return el("tr", { class: "case-row", dataset: { case: id } },
        el("td", {}, el("input", { type: "checkbox", class: "case-check", value: id, checked: this.checked.has(id),
          onchange: (e) => this.check(id, e.target.checked) })),
        el("td", { class: "case-name", title: id }, id),
        el("td", {}, String(c.turns)),
        el("td", { class: "case-status" }, value ? status(value) : ""),
        el("td", {}, el("button", { type: "button", class: "case-edit", onclick: () => this.onEdit(id) },
          "View / edit")));
    }

    // The spacer rows stand for the rows above and below the window.
    place(first, last, count) {
      if (!this.measured) this.measure();
      const height = this.rowWindow.rowHeight;
      setGap(this.gapAbove, first * height);
      setGap(this.gapBelow, (count - last) * height);
    }

    // A row taller than planned (a larger font, a zoom) would throw the spacers off: use the height laid out.
    measure() {
      const row = this.rowWindow.nodes[0];
      const height = row ? row.getBoundingClientRect().height : 0;
      if (!height) return;  // not laid out yet (the tab is hidden): measured at the next drawing
      this.measured = true;
      if (Math.abs(height - this.rowWindow.rowHeight) > 0.5) {
        this.rowWindow.rowHeight = height;
        this.rowWindow.reset(this.cases.length);
      }
    }
  }

  function gapRow() {
    return el("tr", { class: "case-gap", hidden: true, ariaHidden: "true" }, el("td", { colSpan: 5 }));
  }

  function setGap(row, height) {
    row.hidden = height <= 0;
    row.style.height = `${height}px`;
  }

  return { CaseTable, ROW_HEIGHT };
})();
