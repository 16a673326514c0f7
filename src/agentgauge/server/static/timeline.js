// agentgauge web UI: the span timeline of a replayed case run, a waterfall drawn as plain SVG. Agent, model and tool
// bars with durations and tokens (hover for the label); a click scrolls the replay to the turn the bar belongs to.
// The server says where the bars come from (recorded spans, or each turn's recorded timings) and the note is shown.
"use strict";

window.AgentgaugeTimeline = (() => {
  const SVG = "http://www.w3.org/2000/svg";
  const ROW = 22;        // px per bar
  const LABEL = 230;     // px of the name column
  const AXIS = 22;       // px of the time axis on top

  const { svg, title } = window.AgentgaugeSvg;

  function describe(s) {
    const parts = [`${s.name} (${s.kind})`, `${s.duration.toFixed(3)} s from +${s.start.toFixed(3)} s`];
    if (s.inputTokens !== null || s.outputTokens !== null) parts.push(`${s.inputTokens ?? "–"} in / ${s.outputTokens ?? "–"} out tokens`);
    if (s.model) parts.push(`model ${s.model}`);
    if (s.turn) parts.push(`turn ${s.turn}`);
    if (s.aggregate) parts.push("total of the turn, not one span");
    return parts.join("\n");
  }

  function ticks(total, width, left) {
    const nodes = [];
    const step = [0.001, 0.01, 0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60, 120, 300, 600].find((s) => total / s <= 8) || total / 8;
    for (let t = 0; t <= total + 1e-9; t += step) {
      const x = left + (t / total) * width;
      nodes.push(svg("line", { x1: x, x2: x, y1: AXIS - 4, y2: "100%", class: "tl-grid" }));
      const label = svg("text", { x: x + 2, y: AXIS - 8, class: "tl-tick" });
      label.textContent = step < 1 ? `${(t * 1000).toFixed(0)} ms` : `${t.toFixed(0)} s`;
      nodes.push(label);
    }
    return nodes;
  }

  function goToTurn(turn) {
    const node = document.getElementById(`turn-${turn}`);
    if (!node) return;
    for (const other of document.querySelectorAll(".turn.highlight")) other.classList.remove("highlight");
    node.classList.add("highlight");
    node.scrollIntoView({ block: "start" });
    window.AgentgaugeNav.set({ turn: String(turn) }, { replace: true });  // the address names the turn shown
  }

  function render(data) {
    const box = document.getElementById("timeline");
    document.getElementById("timeline-note").textContent = data.note;
    box.dataset.source = data.source;
    if (!data.spans.length) {
      box.replaceChildren();
      return;
    }
    // The box's own width (the replay column), so the chart never scrolls sideways at any window width.
    const full = Math.max((box.clientWidth || box.parentElement.clientWidth || 700) - 2, 300);
    const label = Math.min(LABEL, full * 0.4);
    const width = full - label - 12;
    const total = data.total > 0 ? data.total : 1;
    const height = AXIS + data.spans.length * ROW + 4;
    const chart = svg("svg", { width: full, height, viewBox: `0 0 ${full} ${height}`, class: "tl-chart", role: "img" });
    chart.append(title(`Span timeline: ${data.spans.length} bars over ${total.toFixed(2)} s`));
    chart.append(...ticks(total, width, label));
    data.spans.forEach((s, i) => {
      const y = AXIS + i * ROW;
      const x = label + (s.start / total) * width;
      const w = Math.max(2, (s.duration / total) * width);
      const name = svg("text", { x: 4 + s.depth * 12, y: y + 15, class: "tl-name" });
      name.textContent = s.name.length > 34 ? `${s.name.slice(0, 33)}…` : s.name;
      const tokens = s.inputTokens !== null || s.outputTokens !== null ? ` · ${(s.inputTokens || 0) + (s.outputTokens || 0)} tok` : "";
      // The figures go after the bar, or inside its end when the bar reaches the right edge.
      const inside = x + w + 110 > full;
      const value = svg("text", { x: inside ? x + w - 4 : x + w + 4, y: y + 15, "text-anchor": inside ? "end" : "start",
        class: `tl-value${inside ? " inside" : ""}` });
      value.textContent = `${s.duration.toFixed(2)} s${tokens}`;
      const group = svg("g", { class: `tl-bar ${s.kind}${s.aggregate ? " aggregate" : ""}`, "data-turn": s.turn || "",
        "data-span": s.id }, title(describe(s)), name,
        svg("rect", { x, y: y + 3, width: w, height: ROW - 6, rx: 3 }), value);
      if (s.turn) group.addEventListener("click", () => goToTurn(s.turn));
      chart.append(group);
    });
    box.replaceChildren(chart);
  }

  function clear() {
    document.getElementById("timeline").replaceChildren();
    document.getElementById("timeline-note").textContent = "";
  }

  return { render, clear };
})();
