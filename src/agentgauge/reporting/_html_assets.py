"""Inline CSS and JavaScript of the HTML report (no external assets, so the file works offline)."""

from __future__ import annotations

__all__ = ["CSS", "JS"]

CSS = """
:root { --ok: #1a7f37; --bad: #cf222e; --na: #9a6700; --info: #0969da; --muted: #57606a; --line: #d0d7de; }
* { box-sizing: border-box; }
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; margin: 0 auto; max-width: 1200px;
       padding: 24px; color: #1f2328; }
h1 { font-size: 22px; margin: 0 0 4px; }
h2 { font-size: 17px; margin: 28px 0 8px; }
.muted { color: var(--muted); }
.cards { display: flex; gap: 12px; flex-wrap: wrap; margin: 16px 0; }
.card { border: 1px solid var(--line); border-radius: 8px; padding: 10px 16px; min-width: 110px; }
.card b { display: block; font-size: 22px; }
table { border-collapse: collapse; margin: 6px 0 10px; }
th, td { border-bottom: 1px solid var(--line); padding: 4px 10px; text-align: left; vertical-align: top; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
.status { font-weight: 600; }
.passed { color: var(--ok); } .failed { color: var(--bad); } .not_evaluated { color: var(--na); }
.informational { color: var(--info); } .errored { color: var(--bad); }
.toolbar { display: flex; gap: 16px; align-items: center; margin: 8px 0 12px; }
.toolbar input[type=search] { padding: 4px 8px; min-width: 240px; }
details.case { border: 1px solid var(--line); border-radius: 8px; margin: 8px 0; padding: 0 12px; }
details.case > summary { cursor: pointer; padding: 8px 0; font-weight: 600; }
details.case.st-failed { border-left: 4px solid var(--bad); }
details.case.st-passed { border-left: 4px solid var(--ok); }
details.case.st-not_evaluated { border-left: 4px solid var(--na); }
details.case.st-error { border-left: 4px dashed var(--bad); }
body.only-failed details.case:not(.st-failed):not(.has-error) { display: none; }
.hidden { display: none !important; }
.error { background: #ffebe9; border: 1px solid #ff818266; padding: 6px 10px; border-radius: 6px;
         white-space: pre-wrap; }
.inv { border-top: 1px dashed var(--line); padding: 8px 0; }
.side { display: grid; grid-template-columns: 1fr 1fr; gap: 12px; }
.pane { border: 1px solid var(--line); border-radius: 6px; padding: 6px 10px; min-width: 0; }
.pane h4 { margin: 0 0 4px; font-size: 13px; text-transform: uppercase; color: var(--muted); }
.pane pre, .user pre { white-space: pre-wrap; word-break: break-word; margin: 2px 0 6px;
  font: 12.5px/1.4 ui-monospace, SFMono-Regular, Menlo, monospace; }
.call { display: block; padding: 1px 4px; border-radius: 3px; }
.call.diff { background: #ffebe9; }
.call.same { background: #dafbe1; }
ins { background: #abf2bc; text-decoration: none; }
del { background: #ffcecb; }
.reason { white-space: pre-wrap; color: var(--muted); }
.call code { font: 12.5px/1.4 ui-monospace, SFMono-Regular, Menlo, monospace; white-space: pre-wrap;
  word-break: break-word; }
.result { font: 12px/1.4 ui-monospace, SFMono-Regular, Menlo, monospace; color: var(--muted); padding-left: 12px;
  white-space: pre-wrap; word-break: break-word; }
.result.rdiff { background: #fff8c5; color: #1f2328; }
.calls { margin: 2px 0 6px; }
ul.rubrics { margin: 2px 0; padding-left: 18px; }
.rubric-text { font-style: italic; }
details.traceback pre { white-space: pre-wrap; word-break: break-word; font: 12px/1.4 ui-monospace, monospace;
  background: #f6f8fa; padding: 6px 10px; border-radius: 6px; }
.usage { font-weight: normal; font-size: 12.5px; margin-left: 8px; }
.runs { font-weight: normal; margin-left: 8px; }
.partial { margin: 6px 0; font-style: italic; }
table.sortable th { cursor: pointer; user-select: none; }
table.sortable th[aria-sort=ascending]::after { content: " ▲"; }
table.sortable th[aria-sort=descending]::after { content: " ▼"; }
"""

JS = """
(function () {
  var only = document.getElementById('only-failed');
  var search = document.getElementById('case-search');
  function apply() {
    document.body.classList.toggle('only-failed', only.checked);
    var q = search.value.toLowerCase();
    document.querySelectorAll('details.case').forEach(function (el) {
      el.classList.toggle('hidden', q !== '' && el.dataset.caseId.toLowerCase().indexOf(q) < 0);
    });
  }
  only.addEventListener('change', apply);
  search.addEventListener('input', apply);
  document.getElementById('expand-all').addEventListener('click', function () {
    document.querySelectorAll('details.case').forEach(function (el) { el.open = true; });
  });
  // Case blocks: sort by a data-* key; numbers descending (largest first), missing values last.
  var list = document.getElementById('case-list');
  var sort = document.getElementById('case-sort');
  function num(el, key) { var v = el.dataset[key]; return v === '' || v === undefined ? null : parseFloat(v); }
  sort.addEventListener('change', function () {
    var key = sort.value;
    var items = Array.prototype.slice.call(list.querySelectorAll(':scope > details.case'));
    items.sort(function (a, b) {
      if (key === 'id') {
        return a.dataset.caseId.localeCompare(b.dataset.caseId) || num(a, 'order') - num(b, 'order');
      }
      if (key === 'order' || key === 'status') {
        return (num(a, key) - num(b, key)) || (num(a, 'order') - num(b, 'order'));
      }
      var x = num(a, key), y = num(b, key);
      if (x === null || y === null) { return (x === null) - (y === null) || num(a, 'order') - num(b, 'order'); }
      return (y - x) || (num(a, 'order') - num(b, 'order'));
    });
    items.forEach(function (el) { list.appendChild(el); });
  });
  // Tables: click a header to sort by that column (data-sort when a cell has one, else its text).
  document.querySelectorAll('table.sortable').forEach(function (table) {
    var heads = table.querySelectorAll('tr:first-child th');
    heads.forEach(function (th, col) {
      th.addEventListener('click', function () {
        var asc = th.getAttribute('aria-sort') !== 'ascending';
        heads.forEach(function (h) { h.removeAttribute('aria-sort'); });
        th.setAttribute('aria-sort', asc ? 'ascending' : 'descending');
        var rows = Array.prototype.slice.call(table.querySelectorAll('tr')).slice(1);
        function key(row) {
          var cell = row.children[col];
          var raw = cell.hasAttribute('data-sort') ? cell.getAttribute('data-sort') : cell.textContent.trim();
          var n = parseFloat(raw);
          return raw !== '' && !isNaN(n) && isFinite(raw) ? n : raw.toLowerCase();
        }
        rows.sort(function (a, b) {
          var x = key(a), y = key(b);
          if (x === y) { return 0; }
          if (x === '' || x === '-') { return 1; }
          if (y === '' || y === '-') { return -1; }
          return (x < y ? -1 : 1) * (asc ? 1 : -1);
        });
        rows.forEach(function (row) { row.parentNode.appendChild(row); });
      });
    });
  });
  apply();
  // Framed by the web UI: tell it the page's height, so the frame grows with the report (no scroll inside a scroll).
  if (window.parent !== window) {
    var tell = function () {
      // The body's own bottom, not the document's scroll height: that is at least the frame's, and would only grow.
      var bottom = document.body.getBoundingClientRect().bottom + window.scrollY;
      var margin = parseFloat(window.getComputedStyle(document.body).marginBottom) || 0;
      window.parent.postMessage({ agentgaugeReportHeight: Math.ceil(bottom + margin) }, '*');
    };
    if (window.ResizeObserver) { new ResizeObserver(tell).observe(document.body); }
    window.addEventListener('load', tell);
    tell();
  }
})();
"""
