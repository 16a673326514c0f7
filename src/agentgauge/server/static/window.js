// agentgauge web UI: a window over a long list of equal-height rows. Only the rows in view (plus a few beyond each
// edge) are in the DOM; the caller's spacers stand for the rest, so a list of thousands shows and scrolls at once.
// Used by caselist.js (the Replay tab's case list) and casetable.js (the Cases tab's table). Needs nothing else.
"use strict";

window.AgentgaugeWindow = (() => {
  const OVERSCAN = 6;  // rows kept beyond each edge of the view, so a fast scroll or a Tab to the next row shows no gap

  // viewport: the element that scrolls; list: the element holding the rows. make(index): a new node for row
  // `index`. place(first, last, count): sizes the spacers (or moves the rows) for rows first..last-1 of count.
  // anchor: the node the rows are inserted before (null: at the end of list). offset(): the height of what covers
  // the top of the viewport (a sticky table header).
  class RowWindow {
    constructor({ viewport, list, rowHeight, make, place, anchor = null, offset = () => 0, fallbackHeight = 400 }) {
      Object.assign(this, { viewport, list, rowHeight, make, place, anchor, offset, fallbackHeight });
      this.count = 0;
      this.first = 0;
      this.nodes = [];  // the drawn rows, rows first..first+nodes.length-1
      viewport.addEventListener("scroll", () => this.render(false));
      // A viewport that is shown, resized or laid out again (a tab opened, the window resized) draws what it shows.
      new ResizeObserver(() => this.render(false)).observe(viewport);
    }

    // The range of rows to draw for the current scroll position: [first, last).
    range() {
      const top = Math.max(0, this.viewport.scrollTop - this.offset());
      const height = this.viewport.clientHeight || this.fallbackHeight;  // a hidden viewport: draw a screenful
      const first = Math.max(0, Math.min(this.count, Math.floor(top / this.rowHeight) - OVERSCAN));
      const last = Math.min(this.count, Math.ceil((top + height) / this.rowHeight) + OVERSCAN);
      return [first, Math.max(first, last)];
    }

    // Rows changed (count, order or content): draw the window again from scratch.
    reset(count) {
      this.count = count;
      this.render(true);
    }

    // Draw rows [first, last). Rows that stay in the window are kept as they are (not even moved), so a focused
    // checkbox or button keeps its focus while the window slides; `force` builds every row again.
    render(force) {
      const [first, last] = this.range();
      const end = this.first + this.nodes.length;
      if (!force && first === this.first && last === end) return;
      if (force || !this.nodes.length || last <= this.first || first >= end) {
        for (const node of this.nodes) node.remove();
        this.nodes = this.build(first, last);
        this.list.insertBefore(fragment(this.nodes), this.anchor);
      } else {
        const head = this.nodes.slice(0, Math.max(0, first - this.first));
        const tail = this.nodes.slice(Math.max(0, last - this.first));
        for (const node of [...head, ...tail]) node.remove();
        const kept = this.nodes.slice(head.length, this.nodes.length - tail.length);
        const before = this.build(first, Math.min(this.first, last));
        const after = this.build(Math.max(end, first), last);
        if (before.length) kept[0].before(fragment(before));
        if (after.length) kept[kept.length - 1].after(fragment(after));
        this.nodes = [...before, ...kept, ...after];
      }
      this.first = first;
      this.place(first, last, this.count);
    }

    build(from, to) {
      const nodes = [];
      for (let i = from; i < to; i += 1) nodes.push(this.make(i));
      return nodes;
    }

    // The drawn node of row `index`, or null when the row is outside the window.
    node(index) {
      const at = index - this.first;
      return at >= 0 && at < this.nodes.length ? this.nodes[at] : null;
    }

    // Scroll so row `index` is in view (centred when it was not).
    reveal(index) {
      if (index < 0 || index >= this.count) return;
      const offset = this.offset();
      const top = offset + index * this.rowHeight;
      const view = this.viewport;
      if (top < view.scrollTop + offset || top + this.rowHeight > view.scrollTop + view.clientHeight) {
        view.scrollTop = Math.max(0, top - offset - (view.clientHeight - offset) / 2);
        this.render(false);  // draw now: the caller may look the row up before the scroll event comes
      }
    }
  }

  function fragment(nodes) {
    const part = document.createDocumentFragment();
    part.append(...nodes);
    return part;
  }

  return { RowWindow, OVERSCAN };
})();
