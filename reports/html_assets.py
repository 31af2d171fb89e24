"""The style sheet and the one script of the HTML report, kept apart from the markup.

The script only filters the rule table (verdict, level, family, text); the page reads whole
without it. It holds no string of the report: the report's text is in the markup, escaped.
"""

STYLE = """
:root { color-scheme: light dark; --fg: #1f2328; --bg: #ffffff; --muted: #59636e;
  --line: #d0d7de; --code: #f6f8fa; --pass: #dafbe1; --na: #eaeef2; --warn: #fff8c5;
  --fail: #ffd8d3; --error: #f3d8ff; --fail-edge: #cf222e; --error-edge: #8250df;
  --warn-edge: #bf8700; --pass-edge: #1a7f37; }
@media (prefers-color-scheme: dark) {
  :root { --fg: #e6edf3; --bg: #0d1117; --muted: #9198a1; --line: #3d444d; --code: #151b23;
    --pass: #12361f; --na: #262c36; --warn: #3b2e05; --fail: #4c1418; --error: #33204d; }
}
body { font: 15px/1.45 system-ui, sans-serif; margin: 1.5rem auto; max-width: 76rem;
  padding: 0 1rem; color: var(--fg); background: var(--bg); }
h1 { font-size: 1.4rem; margin: 0 0 .3rem; } h2 { margin-top: 2rem; }
h3 { margin: 0 0 .3rem; overflow-wrap: anywhere; }
.verdict { font-size: 1.15rem; font-weight: 600; margin: .2rem 0; }
.run-line { color: var(--muted); margin: .2rem 0 .6rem; overflow-wrap: anywhere; }
.counts { display: flex; flex-wrap: wrap; gap: .5rem; list-style: none; padding: 0; margin: 0; }
.counts li { padding: .25rem .7rem; border-radius: .4rem; }
.v-pass { background: var(--pass); } .v-not_applicable { background: var(--na); }
.v-warn { background: var(--warn); } .v-fail { background: var(--fail); }
.v-error { background: var(--error); }
section.cause { border-left: .4rem solid var(--line); padding: .2rem 0 .2rem 1rem;
  margin: 0 0 1.2rem; background: none; }
section.cause.v-fail { border-color: var(--fail-edge); }
section.cause.v-error { border-color: var(--error-edge); }
section.cause.v-warn { border-color: var(--warn-edge); }
.rules-of { color: var(--muted); }
dl.evidence, dl.run { display: grid; grid-template-columns: max-content minmax(0, 1fr);
  gap: .2rem 1rem; margin: .4rem 0; }
dl dt { font-weight: 600; } dl dd { margin: 0; overflow-wrap: anywhere; }
pre { background: var(--code); padding: .5rem; overflow: auto; max-height: 22rem; margin: 0;
  white-space: pre-wrap; overflow-wrap: anywhere; }
table { border-collapse: collapse; width: 100%; }
th, td { text-align: left; vertical-align: top; padding: .3rem .5rem;
  border-bottom: 1px solid var(--line); }
.filters { display: flex; flex-wrap: wrap; gap: .4rem 1rem; align-items: center;
  margin: .5rem 0; }
.filters input[type=search] { min-width: 16rem; }
details > summary { cursor: pointer; } summary h2 { display: inline; }
@media print {
  .filters { display: none; } pre { max-height: none; } tr[hidden] { display: table-row; }
  details { display: block; } body { max-width: none; }
}
"""

SCRIPT = """
(function () {
  const form = document.getElementById("filters");
  const rows = Array.from(document.querySelectorAll("#rules tbody tr"));
  const count = document.getElementById("shown");
  function apply() {
    const verdicts = new Set(Array.from(form.querySelectorAll("input[name=verdict]:checked"),
      (box) => box.value));
    const level = form.elements.level.value;
    const family = form.elements.family.value;
    const text = form.elements.text.value.trim().toLowerCase();
    let shown = 0;
    for (const row of rows) {
      const keep = verdicts.has(row.dataset.verdict)
        && (!level || row.dataset.level === level)
        && (!family || row.dataset.family === family)
        && (!text || row.textContent.toLowerCase().includes(text));
      row.hidden = !keep;
      shown += keep ? 1 : 0;
    }
    count.textContent = shown + " of " + rows.length + " rules shown";
  }
  form.hidden = false;
  form.addEventListener("input", apply);
  form.addEventListener("submit", (event) => event.preventDefault());
  apply();
})();
"""
