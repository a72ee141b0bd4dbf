/**
 * The static CSS and JS of the rendered HTML page. They hold no text from the registry (the
 * script reads the rows' data attributes), and the page's Content-Security-Policy allows
 * exactly these two by their hashes.
 */

export const PAGE_STYLE = `
:root {
  --bg: #ffffff; --fg: #1f2328; --muted: #59636e; --line: #d1d9e0; --head: #f6f8fa;
  --accent: #0969da; --code-bg: #eff2f5; --target: #fff8c5;
  --yes-bg: #dafbe1; --yes-fg: #116329; --no-bg: #eff2f5; --no-fg: #59636e;
  --warn-bg: #fff1cc; --warn-fg: #7d4e00; --bad-bg: #ffebe9; --bad-fg: #a40e26;
}
@media (prefers-color-scheme: dark) {
  :root {
    --bg: #0d1117; --fg: #e6edf3; --muted: #9198a1; --line: #30363d; --head: #151b23;
    --accent: #4493f8; --code-bg: #212830; --target: #3b2e00;
    --yes-bg: #12361f; --yes-fg: #6fdd8b; --no-bg: #212830; --no-fg: #9198a1;
    --warn-bg: #3b2a00; --warn-fg: #e3b341; --bad-bg: #42121a; --bad-fg: #ff9492;
  }
}
* { box-sizing: border-box; }
[hidden] { display: none !important; }
html { -webkit-text-size-adjust: 100%; }
body {
  margin: 0; background: var(--bg); color: var(--fg);
  font: 15px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif;
}
header, main, footer { max-width: 1280px; margin: 0 auto; padding: 0 20px; }
header { padding-top: 24px; }
h1 { font-size: 1.6rem; margin: 0 0 4px; }
h2 { font-size: 1.2rem; margin: 32px 0 8px; }
h4 { font-size: 0.8rem; text-transform: uppercase; letter-spacing: 0.04em; color: var(--muted); margin: 12px 0 4px; }
.registry-name { color: var(--muted); font-weight: 400; }
.meta, .muted, footer { color: var(--muted); }
footer { font-size: 0.85rem; padding-top: 16px; padding-bottom: 32px; }
a { color: var(--accent); text-decoration: none; }
a:hover { text-decoration: underline; }
code, pre { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: 0.88em; }
code { background: var(--code-bg); border-radius: 4px; padding: 1px 5px; overflow-wrap: anywhere; }
pre { background: var(--code-bg); border-radius: 6px; padding: 8px 10px; overflow-x: auto; }
pre code { background: none; padding: 0; }
.controls {
  position: sticky; top: 0; z-index: 1; display: flex; flex-wrap: wrap; gap: 8px 16px; align-items: end;
  background: var(--bg); padding: 12px 0; border-bottom: 1px solid var(--line);
}
.controls label { display: flex; flex-direction: column; font-size: 0.8rem; color: var(--muted); gap: 2px; }
.controls .search { flex: 1 1 260px; }
input, select {
  font: inherit; font-size: 1rem; color: var(--fg); background: var(--bg);
  border: 1px solid var(--line); border-radius: 6px; padding: 6px 8px; min-height: 38px;
}
input:focus, select:focus { outline: 2px solid var(--accent); outline-offset: -1px; }
output { font-size: 0.85rem; color: var(--muted); padding-bottom: 8px; }
table { width: 100%; border-collapse: collapse; margin-top: 8px; }
th, td { text-align: left; vertical-align: top; padding: 8px 10px; border-bottom: 1px solid var(--line); }
th { background: var(--head); font-size: 0.8rem; color: var(--muted); font-weight: 600; white-space: nowrap; }
td.prose { min-width: 280px; }
td p { margin: 0 0 4px; white-space: pre-line; }
td .summary { font-weight: 500; }
tr:target, tr:target td { background: var(--target); }
tr { scroll-margin-top: 90px; }
a.code { font-weight: 600; white-space: nowrap; }
.replaced-by { font-size: 0.85rem; margin-top: 4px; white-space: nowrap; }
tr.status-deprecated a.code, tr.status-reserved a.code { color: var(--muted); }
td[data-label="Action"] code { overflow-wrap: normal; }
.detail { font-size: 0.85rem; color: var(--muted); margin-top: 2px; white-space: pre-line; }
.pill {
  display: inline-block; font-size: 0.75rem; font-weight: 600; border-radius: 999px; padding: 1px 8px;
  background: var(--no-bg); color: var(--no-fg); white-space: nowrap;
}
.pill.yes { background: var(--yes-bg); color: var(--yes-fg); }
.pill.side-committed { background: var(--bad-bg); color: var(--bad-fg); }
.pill.side-unknown, .pill.deprecated { background: var(--warn-bg); color: var(--warn-fg); }
details { margin-top: 4px; }
summary { cursor: pointer; color: var(--accent); font-size: 0.85rem; }
details p, details li { white-space: pre-line; }
ul { margin: 0; padding-left: 20px; }
ul.safe li::marker { content: "\\2713  "; color: var(--yes-fg); }
ul.unsafe li::marker { content: "\\2717  "; color: var(--bad-fg); }
dl.facts { display: grid; grid-template-columns: max-content 1fr; gap: 2px 12px; margin: 8px 0 0; font-size: 0.9rem; }
dl.facts dt { color: var(--muted); }
dl.facts dd { margin: 0; }
dl.classes dt { margin-top: 8px; }
dl.classes dd { margin: 0 0 0 20px; }
.visually-hidden { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; }
@media (max-width: 760px) {
  header, main, footer { padding: 0 12px; }
  header { padding-top: 16px; }
  h1 { font-size: 1.3rem; }
  .controls { position: static; }
  .controls label:not(.search) { flex: 1 1 40%; }
  tr { scroll-margin-top: 8px; }
  table, thead, tbody, tr, td { display: block; width: 100%; }
  thead { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); }
  tr { border: 1px solid var(--line); border-radius: 8px; margin: 12px 0; padding: 6px 0; }
  td { border: 0; padding: 4px 12px; display: grid; grid-template-columns: 96px 1fr; gap: 8px; justify-items: start; align-items: baseline; }
  td::before { content: attr(data-label); color: var(--muted); font-size: 0.8rem; padding-top: 2px; }
  td[data-label="Code"] { display: block; font-size: 1.05rem; padding-top: 6px; }
  td[data-label="Code"]::before, td[data-label="Summary"]::before { content: none; }
  td[data-label="Summary"] { display: block; min-width: 0; }
  tr[data-role="empty"] td { display: block; }
  tr[data-role="empty"] td::before { content: none; }
  a.code { white-space: normal; }
}
`;

export const PAGE_SCRIPT = `
(function () {
  "use strict";
  var search = document.querySelector("[data-role=search]");
  var byClass = document.querySelector("[data-role=class]");
  var byStatus = document.querySelector("[data-role=status]");
  var count = document.querySelector("[data-role=count]");
  var rows = Array.prototype.slice.call(document.querySelectorAll("tr[data-search]"));
  var tables = Array.prototype.slice.call(document.querySelectorAll("[data-role=table]"));

  function apply() {
    var terms = search.value.toLowerCase().split(/\\s+/).filter(Boolean);
    var shown = 0;
    rows.forEach(function (row) {
      var ok = (!byClass.value || row.getAttribute("data-class") === byClass.value) &&
        (!byStatus.value || row.getAttribute("data-status") === byStatus.value) &&
        terms.every(function (t) { return row.getAttribute("data-search").indexOf(t) >= 0; });
      row.hidden = !ok;
      if (ok) shown++;
    });
    tables.forEach(function (table) {
      var any = table.querySelector("tr[data-search]:not([hidden])") !== null;
      table.querySelector("[data-role=empty]").hidden = any;
      var section = table.closest("[data-role=section]");
      if (section) section.hidden = !any;
    });
    count.textContent = shown === rows.length ? rows.length + " codes" : shown + " of " + rows.length + " codes";
  }

  // A link to a code that the filters hide clears them, so the code is always reachable.
  function reveal() {
    var id = decodeURIComponent(location.hash.slice(1));
    var row = id ? document.getElementById(id) : null;
    if (row && row.hidden) {
      search.value = ""; byClass.value = ""; byStatus.value = "";
      apply();
      row.scrollIntoView();
    }
  }

  search.addEventListener("input", apply);
  byClass.addEventListener("change", apply);
  byStatus.addEventListener("change", apply);
  window.addEventListener("hashchange", reveal);
  document.addEventListener("keydown", function (e) {
    if (e.key === "/" && document.activeElement !== search && !(e.target instanceof HTMLInputElement || e.target instanceof HTMLSelectElement)) {
      e.preventDefault();
      search.focus();
    } else if (e.key === "Escape" && document.activeElement === search) {
      search.value = "";
      apply();
    }
  });
  apply();
  reveal();
})();
`;
