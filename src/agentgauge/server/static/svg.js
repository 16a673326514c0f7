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

  return { svg, title };
})();
