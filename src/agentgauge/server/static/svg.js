// agentgauge web UI: the two SVG helpers the drawn views share (timeline.js, history.js). Loaded before them.
"use strict";

window.AgentgaugeSvg = (() => {
  const NS = "http://www.w3.org/2000/svg";

  // An SVG element with attributes and children.
  function svg(tag, attrs = {}, ...children) {
    const node = document.createElementNS(NS, tag);
    for (const [key, value] of Object.entries(attrs)) node.setAttribute(key, String(value));
    for (const child of children) node.append(child);
    return node;
  }

  // A <title> child: the text a browser shows on hover.
  function title(text) {
    const node = svg("title");
    node.textContent = text;
    return node;
  }

  // A styled tooltip for drawn elements: `data-tip` holds its text (one shared box follows the pointer).
  function tip(node, text) {
    node.setAttribute("data-tip", text);
    return node;
  }

  const box = document.createElement("div");
  box.id = "tip";
  box.hidden = true;
  document.addEventListener("DOMContentLoaded", () => document.body.append(box));
  document.addEventListener("mouseover", (event) => {
    const target = event.target.closest && event.target.closest("[data-tip]");
    box.hidden = !target;
    if (target) box.textContent = target.getAttribute("data-tip");
  });
  document.addEventListener("mousemove", (event) => {
    if (box.hidden) return;
    const x = Math.min(event.clientX + 14, window.innerWidth - box.offsetWidth - 4);
    const y = event.clientY + 16 + box.offsetHeight > window.innerHeight ? event.clientY - box.offsetHeight - 8 : event.clientY + 16;
    box.style.left = `${Math.max(4, x)}px`;
    box.style.top = `${Math.max(4, y)}px`;
  });

  return { svg, title, tip };
})();
