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
.informational { color: var(--info); }
.toolbar { display: flex; gap: 16px; align-items: center; margin: 8px 0 12px; }
.toolbar input[type=search] { padding: 4px 8px; min-width: 240px; }
details.case { border: 1px solid var(--line); border-radius: 8px; margin: 8px 0; padding: 0 12px; }
details.case > summary { cursor: pointer; padding: 8px 0; font-weight: 600; }
details.case.st-failed { border-left: 4px solid var(--bad); }
details.case.st-passed { border-left: 4px solid var(--ok); }
details.case.st-not_evaluated { border-left: 4px solid var(--na); }
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
  apply();
})();
"""
