"""A single static HTML page rendered from the report document.

The page needs nothing but itself: styles are inline and there is no script (a checkbox hides
passing rules through CSS alone). Every string from the report is scrubbed and escaped.
"""

from __future__ import annotations

import html
import json
import re

from .document import FailureRecord, ReportDocument, RuleRecord, worst
from .sanitize import scrub, truncate
from .text import notes

EVIDENCE_LIMIT = 20_000
#: A tool name shown as it is; any other (empty, spaced, with commas or quotes) is shown quoted.
_PLAIN_NAME = re.compile(r"[\w.:/-]+")

_STYLE = """
body { font: 15px/1.45 system-ui, sans-serif; margin: 2rem auto; max-width: 72rem; padding: 0 1rem;
       color: #1f2328; }
h1 { font-size: 1.5rem; } h2 { margin-top: 2.5rem; } h3 { margin-bottom: .25rem; }
.summary { font-size: 1.15rem; font-weight: 600; }
.counts { display: flex; gap: .5rem; list-style: none; padding: 0; }
.counts li { padding: .3rem .7rem; border-radius: .4rem; }
dl.run { display: grid; grid-template-columns: max-content auto; gap: .2rem 1rem; }
dl.run dt { font-weight: 600; } dl.run dd { margin: 0; overflow-wrap: anywhere; }
table { border-collapse: collapse; width: 100%; }
th, td { text-align: left; vertical-align: top; padding: .3rem .5rem;
         border-bottom: 1px solid #d0d7de; }
pre { background: #f6f8fa; padding: .6rem; overflow: auto; max-height: 24rem; white-space: pre-wrap;
      overflow-wrap: anywhere; }
tr.v-pass, li.v-pass { background: #dafbe1; }
tr.v-not_applicable, li.v-not_applicable { background: #eaeef2; }
tr.v-warn, li.v-warn { background: #fff8c5; } tr.v-fail, li.v-fail { background: #ffd8d3; }
tr.v-error, li.v-error { background: #f3d8ff; }
#hide-passing:checked ~ table tr.v-pass, #hide-passing:checked ~ table tr.v-not_applicable {
  display: none; }
section.rule { border-left: .4rem solid #d0d7de; padding-left: 1rem; margin-bottom: 1.5rem; }
section.rule.v-fail { border-color: #cf222e; } section.rule.v-error { border-color: #8250df; }
section.rule.v-warn { border-color: #bf8700; } section.rule.v-pass { border-color: #1a7f37; }
"""


def _e(text: str) -> str:
    return html.escape(scrub(text))


def _pre(text: str) -> str:
    return f"<pre>{_e(truncate(text, EVIDENCE_LIMIT))}</pre>"


def _names(names: tuple[str, ...]) -> str:
    """Tool names as a list a reader can tell apart: what a server listed may be any string,
    an empty one or one listed twice included, so a name that is not plain is shown quoted."""
    shown = (n if _PLAIN_NAME.fullmatch(n) else json.dumps(n, ensure_ascii=False) for n in names)
    return truncate(", ".join(shown), EVIDENCE_LIMIT) or "none"


def render(document: ReportDocument) -> str:
    """The HTML page of ``document``."""
    target = document.target
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en">',
        '<head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>engram-conformance: {_e(target.name)}</title>",
        f"<style>{_STYLE}</style></head>",
        "<body><header>",
        f"<h1>engram-conformance report: {_e(target.name)}</h1>",
        f'<p class="summary">{_e(document.conformance.summary)}</p>',
        _counts(document),
        _run(document),
        "</header><main>",
        _families(document),
        _rules(document),
        *_problems(document),
    ]
    if target.stderr_tail:
        parts.append(
            f"<section><h2>Server stderr (last lines)</h2>{_pre(target.stderr_tail)}</section>"
        )
    parts.append("</main></body></html>")
    return "\n".join(parts) + "\n"


def _counts(document: ReportDocument) -> str:
    items = "".join(
        f'<li class="v-{verdict}">{verdict.label} <strong>{count}</strong></li>'
        for verdict, count in document.counts.items()
    )
    return f'<ul class="counts">{items}</ul>'


def _run(document: ReportDocument) -> str:
    target, run, spec = document.target, document.run, document.spec
    server = "did not initialize"
    if target.server_info:
        info = target.server_info
        server = f"{info.name} {info.version} (MCP {info.protocol_version})"
    budget = "none" if run.budget_s is None else f"{run.budget_s:g} s"
    rows = {
        "Target": f"{target.name} over {target.transport}",
        "Descriptor": target.descriptor or "none",
        "Server": server,
        "Tools claimed": _names(document.conformance.tools_claimed),
        "Tools listed": _names(document.conformance.tools_listed),
        "Contract": f"{spec.contract} {spec.contract_version} "
        f"(spec {spec.spec_version}, {spec.digest})",
        "Kit": f"{document.kit.name} {document.kit.version}",
        "Started": run.started_at,
        "Duration": f"{run.duration_s:.1f} s (budget: {budget})",
        "Profile and seed": f"{run.profile}, seed {run.seed}",
        "Only": ", ".join(run.only) or "every rule",
        "Command": run.command,
        "Exit code": str(document.exit_code),
    }
    items = "".join(f"<dt>{name}</dt><dd>{_e(value)}</dd>" for name, value in rows.items())
    return f'<dl class="run">{items}</dl>'


def _families(document: ReportDocument) -> str:
    rows = []
    for family, rules in document.by_family().items():
        verdict = worst(rule.verdict for rule in rules)
        rows.append(
            f'<tr class="v-{verdict}"><td>{_e(family)}</td><td>{len(rules)}</td>'
            f"<td>{verdict.label}</td></tr>"
        )
    return (
        "<section><h2>Families</h2><table><thead><tr><th>Family</th><th>Rules</th>"
        f"<th>Worst verdict</th></tr></thead><tbody>{''.join(rows)}</tbody></table></section>"
    )


def _rules(document: ReportDocument) -> str:
    detailed = {rule.id for rules in document.problems().values() for rule in rules}
    rows = []
    for rule in document.rules:
        rule_id = _e(rule.id)
        link = f'<a href="#rule-{rule_id}">{rule_id}</a>' if rule.id in detailed else rule_id
        rows.append(
            f'<tr class="v-{rule.verdict}"><td>{link}</td><td>{rule.level}</td>'
            f"<td>{rule.verdict.label}</td><td>{_e(rule.statement)}</td>"
            f"<td>{_e(', '.join(notes(rule)))}</td></tr>"
        )
    body = "\n".join(rows)
    return (
        '<section><h2>Rules</h2><input type="checkbox" id="hide-passing">'
        '<label for="hide-passing"> hide passing and not applicable rules</label>'
        "<table><thead><tr><th>Rule</th><th>Level</th><th>Verdict</th><th>Statement</th>"
        f"<th>Notes</th></tr></thead><tbody>\n{body}\n</tbody></table></section>"
    )


def _problems(document: ReportDocument) -> list[str]:
    return [
        f"<section><h2>{title} ({len(rules)})</h2>{''.join(map(_rule, rules))}</section>"
        for title, rules in document.problems().items()
        if rules
    ]


def _rule(rule: RuleRecord) -> str:
    parts = [
        f'<section class="rule v-{rule.verdict}" id="rule-{_e(rule.id)}">',
        f"<h3>{_e(rule.id)}: {rule.verdict.label} ({rule.level})</h3>",
        f"<p>{_e(rule.statement)}</p>",
        f"<p>Source: {_e(rule.source)}. Checks: {_e(', '.join(rule.checks) or 'none')}.</p>",
    ]
    if rule.reason:
        parts.append(f"<p>Reason: {_e(rule.reason)}</p>")
    if notes(rule):
        parts.append(f"<p>Notes: {_e(', '.join(notes(rule)))}</p>")
    parts.extend(_failure(failure) for failure in rule.failures)
    parts.append("</section>")
    return "".join(parts)


def _failure(failure: FailureRecord) -> str:
    seed = f" (seed {failure.seed})" if failure.seed is not None else ""
    items = [("Expected", _pre(failure.expected)), ("Observed", _pre(failure.observed))]
    if failure.calls:
        calls = "\n".join(failure.call_lines())
        items.append((f"Calls ({len(failure.calls)})", _pre(calls)))
    if failure.transcript:
        items.append(("Transcript", f"<code>{_e(failure.transcript)}</code>"))
    if failure.reproduce:
        items.append(("Reproduce", _pre(failure.reproduce)))
    body = "".join(f"<dt>{name}</dt><dd>{value}</dd>" for name, value in items)
    return f"<h4>{_e(failure.check)}{seed}</h4><dl>{body}</dl>"
