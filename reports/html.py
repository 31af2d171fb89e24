"""A single static HTML page rendered from the report document, written for a person.

The first screen holds what a vendor needs first: the verdict, the counts, then the failures
and errors grouped by cause (``causes``), each with its evidence (the calls as sent and the
answers as received, the transcript, the reproduction). Then warnings, the full rule table with
filters, families, and the run's details. The page needs nothing but itself (styles and the one
filtering script inline, nothing fetched), reads in light and dark, and prints whole. Every
string from the report is scrubbed and escaped.
"""

from __future__ import annotations

import html
import json
import re
from collections.abc import Mapping
from typing import Any

from .causes import GROUPED, Cause, causes, counted, tally
from .document import (
    CallRecord,
    CheckTiming,
    ErrorRecord,
    FailureRecord,
    ReportDocument,
    RuleRecord,
    Timing,
    Verdict,
    worst,
)
from .html_assets import SCRIPT, STYLE
from .sanitize import scrub, shorten, truncate
from .text import era_findings, era_verdicts, notes, shard_line

EVIDENCE_LIMIT = 20_000
#: how many of the slowest checks the run's section lists
SLOWEST_SHOWN = 10
#: a cause's heading: its reason on about two lines (the whole is in the evidence below)
HEADING_LIMIT = 200
#: A tool name shown as it is; any other (empty, spaced, with commas or quotes) is shown quoted.
_PLAIN_NAME = re.compile(r"[\w.:/-]+")
_TITLES = {Verdict.FAIL: "Failures", Verdict.ERROR: "Errors", Verdict.WARN: "Warnings"}
_LEVELS = ("must", "should", "profile")


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
    found = {verdict: causes(document, verdict) for verdict in GROUPED}
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en">',
        '<head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>engram-conformance: {_e(target.name)}</title>",
        f"<style>{STYLE}</style></head>",
        "<body>",
        _header(document),
        '<main id="main">',
        _era_findings(document),
        _first_screen(document, found),
        _warnings(found[Verdict.WARN]),
        _rules(document, found),
        _families(document),
        _run(document),
    ]
    if target.stderr_tail:
        parts.append(
            f'<section id="stderr"><h2>Server stderr (last lines)</h2>'
            f"{_pre(target.stderr_tail)}</section>"
        )
    parts.append(f"</main><script>{SCRIPT}</script></body></html>")
    return "\n".join(parts) + "\n"


def _header(document: ReportDocument) -> str:
    spec, run = document.spec, document.run
    info = document.target.server_info
    server = f"{info.name} {info.version}, MCP {info.protocol_version}" if info else "no server"
    only = f", only {', '.join(run.only)}" if run.only else ""
    if run.shard is not None:
        only += f", shard {run.shard.index} of {run.shard.count}"
    line = (
        f"{spec.contract} {spec.contract_version} · {run.profile} profile{only} · {server} · "
        f"{run.duration_s:.1f} s · exit code {document.exit_code}"
    )
    counts = "".join(
        f'<li class="v-{verdict}">{verdict.label} <strong>{count}</strong></li>'
        for verdict, count in document.counts.items()
    )
    return (
        f"<header><h1>engram-conformance: {_e(document.target.name)}</h1>"
        f'<p class="verdict">{_e(document.conformance.summary)}</p>'
        f'<p class="run-line">{_e(line)}</p><ul class="counts">{counts}</ul></header>'
    )


def _era_findings(document: ReportDocument) -> str:
    """The rules the server keeps in one MCP era and breaks in the other (``--era both``),
    before anything else: the console and the Markdown show them first too."""
    found = era_findings(document)
    if not found:
        return ""
    items = "".join(
        f"<li>{_rule_link(rule)} ({_e(era_verdicts(rule))}): {_e(rule.statement)}</li>"
        for rule in found
    )
    return (
        f'<section id="era-findings"><h2>Era findings ({len(found)})</h2>'
        "<p>The server keeps these rules in one MCP era and breaks them in the other.</p>"
        f"<ul>{items}</ul></section>"
    )


def _first_screen(document: ReportDocument, found: Mapping[Verdict, tuple[Cause, ...]]) -> str:
    """Failures, errors and stale baseline entries, or a sentence saying there are none."""
    parts = [_causes(found[verdict]) for verdict in (Verdict.FAIL, Verdict.ERROR)]
    if found[Verdict.ERROR] and document.target.stderr_tail:
        parts.append('<p>What the server wrote on stderr last: <a href="#stderr">below</a>.</p>')
    stale = [rule for rule in document.rules if rule.baseline == "stale"]
    if stale:
        items = "".join(f"<li>{_rule_link(rule)}: {_e(rule.statement)}</li>" for rule in stale)
        parts.append(
            f'<section id="stale"><h2>Stale baseline entries ({len(stale)})</h2>'
            f"<p>These rules no longer fail: remove them from the baseline.</p>"
            f"<ul>{items}</ul></section>"
        )
    shown = "".join(part for part in parts if part)
    return shown or '<section id="problems"><p>No failures and no errors.</p></section>'


def _warnings(found: tuple[Cause, ...]) -> str:
    if not found:
        return ""
    body = "".join(map(_cause, found))
    return (
        f'<section id="warnings"><details><summary><h2>Warnings ({tally(found)})</h2>'
        f"</summary>{body}</details></section>"
    )


def _causes(found: tuple[Cause, ...]) -> str:
    if not found:
        return ""
    verdict = found[0].verdict
    title = f"{_TITLES[verdict]} ({tally(found)})"
    return f'<section id="{verdict}s"><h2>{title}</h2>{"".join(map(_cause, found))}</section>'


def _cause(cause: Cause) -> str:
    rules = "; ".join(f"{_rule_link(rule)} ({rule.level})" for rule in cause.rules)
    statements = "".join(
        f"<li>{_e(rule.id)}: {_e(rule.statement)}"
        + "".join(f" <em>({_e(note)})</em>" for note in notes(rule))
        + "</li>"
        for rule in cause.rules
    )
    parts = [
        f'<section class="cause v-{cause.verdict}" id="{_e(cause.anchor)}">',
        f"<h3>{cause.verdict.label}: {_e(shorten(cause.headline, HEADING_LIMIT) or 'no reason')}"
        "</h3>",
        f'<p class="rules-of">{counted(len(cause.rules), "rule")}: {rules}. '
        f"Check: {_e(cause.check or 'none')}{_took(cause)}.</p>",
        f"<ul>{statements}</ul>",
    ]
    if cause.evidence is not None:
        parts.append(_evidence(cause.evidence))
    elif cause.stopped is not None:
        parts.append(_listed(_replaying(cause.stopped, "Call under way")))
    parts.append("</section>")
    return "".join(parts)


def _evidence(failure: FailureRecord) -> str:
    """What was expected, how to see it again, then what came (the command before the answer,
    which may be long: both on the first screen)."""
    items = [("Expected", _pre(failure.expected)), *_reproducing(failure)]
    items.append(("Observed", _pre(failure.observed)))
    items += _recorded(failure, f"Calls ({len(failure.calls)})")
    if failure.seed is not None:
        items.append(("Seed", str(failure.seed)))
    return _listed(items)


def _replaying(record: FailureRecord | ErrorRecord, calls_title: str) -> list[tuple[str, str]]:
    """How to see ``record`` again: the command, the calls as sent (with their answers) and
    the transcript."""
    return _reproducing(record) + _recorded(record, calls_title)


def _reproducing(record: FailureRecord | ErrorRecord) -> list[tuple[str, str]]:
    return [("Reproduce", _pre(record.reproduce))] if record.reproduce else []


def _recorded(record: FailureRecord | ErrorRecord, calls_title: str) -> list[tuple[str, str]]:
    """The calls as sent, with their answers, and the transcript's path."""
    items = []
    if record.calls:
        items.append((calls_title, _pre("\n\n".join(_exchange(call) for call in record.calls))))
    if record.transcript:
        items.append(("Transcript", f"<code>{_e(record.transcript)}</code>"))
    return items


def _listed(items: list[tuple[str, str]]) -> str:
    body = "".join(f"<dt>{name}</dt><dd>{value}</dd>" for name, value in items)
    return f'<dl class="evidence">{body}</dl>'


def _exchange(call: CallRecord) -> str:
    """A call as sent (``→``) and its answer as received (``←``)."""
    if call.arguments_cut is not None:
        cut = call.arguments_cut
        sent = (
            f"({cut.bytes:,} bytes, sha256 {cut.sha256}, whole in the transcript) "
            f"{cut.begins} … {cut.ends}"
        )
    else:
        sent = _json(call.arguments)
    return f"→ {call.tool} {sent}\n← {_json(call.answer)}"


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


def _rule_link(rule: RuleRecord) -> str:
    return f'<a href="#rule-{_e(rule.id)}">{_e(rule.id)}</a>'


def _rules(document: ReportDocument, found: Mapping[Verdict, tuple[Cause, ...]]) -> str:
    anchors = {
        rule.id: cause.anchor
        for grouped in found.values()
        for cause in grouped
        for rule in cause.rules
    }
    rows = []
    for rule in document.rules:
        rule_id = _e(rule.id)
        cause = anchors.get(rule.id)
        verdict = rule.verdict.label
        shown = f'<a href="#{_e(cause)}">{verdict}</a>' if cause else verdict
        rows.append(
            f'<tr id="rule-{rule_id}" class="v-{rule.verdict}" data-verdict="{rule.verdict}" '
            f'data-level="{rule.level}" data-family="{_e(rule.family)}"><td>{rule_id}</td>'
            f"<td>{rule.level}</td><td>{shown}</td><td>{_e(rule.statement)}</td>"
            f"<td>{_rule_time(rule)}</td><td>{_e(', '.join(notes(rule)))}</td></tr>"
        )
    return (
        "<section><h2>Rules</h2>"
        f"{_filters(document)}"
        '<table id="rules"><thead><tr><th>Rule</th><th>Level</th><th>Verdict</th>'
        "<th>Statement</th><th>Time</th><th>Notes</th></tr></thead><tbody>\n"
        + "\n".join(rows)
        + "\n</tbody></table></section>"
    )


def _took(cause: Cause) -> str:
    """``, which took 1.20 s (4 calls)``: its check's time, when the report has it."""
    return f", which took {_spent(cause.timing)}" if cause.timing is not None else ""


def _rule_time(rule: RuleRecord) -> str:
    """The time of the checks that decided the rule, its calls, and its waits if any."""
    return _spent(rule.timing) if rule.timing is not None else ""


def _spent(timing: Timing | CheckTiming) -> str:
    waited = f", {timing.waited_s:.1f} s waiting" if timing.waited_s >= 0.05 else ""
    return f"{timing.time_s:.2f} s ({timing.calls} calls{waited})"


def _filters(document: ReportDocument) -> str:
    """The filter controls, hidden until the script shows them (without it they do nothing)."""
    boxes = "".join(
        f'<label><input type="checkbox" name="verdict" value="{verdict}" checked> '
        f"{verdict.label}</label>"
        for verdict in document.counts
    )
    levels = "".join(f'<option value="{level}">{level}</option>' for level in _LEVELS)
    families = "".join(
        f'<option value="{_e(family)}">{_e(family)}</option>' for family in document.by_family()
    )
    return (
        '<form id="filters" class="filters" hidden>'
        f"{boxes}"
        f'<label>level <select name="level"><option value="">any</option>{levels}</select></label>'
        f'<label>family <select name="family"><option value="">any</option>{families}</select>'
        "</label>"
        '<label>text <input type="search" name="text" placeholder="id, statement, note"></label>'
        '<output id="shown"></output></form>'
    )


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
        "Shard": shard_line(document) or "none: the whole run",
        "Command": run.command,
        "Exit code": str(document.exit_code),
    }
    timing = run.timing
    if timing is not None:
        rows["Checks' time"] = (
            f"{timing.time_s:.1f} s: {timing.calls} calls, {timing.waited_s:.1f} s waiting "
            "(expiries, windows, time-outs); the rest of the duration is starts, discovery and "
            "re-checks"
        )
    items = "".join(f"<dt>{name}</dt><dd>{_e(value)}</dd>" for name, value in rows.items())
    return f'<section><h2>Run</h2><dl class="run">{items}</dl>{_slowest(document)}</section>'


def _slowest(document: ReportDocument) -> str:
    """The checks that took the most time, with their calls and waits."""
    timing = document.run.timing
    if timing is None or not timing.checks:
        return ""
    rows = "".join(
        f"<tr><td>{_e(check.check)}</td><td>{check.time_s:.2f} s</td><td>{check.calls}</td>"
        f"<td>{check.waited_s:.2f} s</td></tr>"
        for check in timing.checks[:SLOWEST_SHOWN]
    )
    return (
        f"<h3>The {min(SLOWEST_SHOWN, len(timing.checks))} slowest checks</h3><table><thead>"
        "<tr><th>Check</th><th>Time</th><th>Calls</th><th>Waiting</th></tr></thead>"
        f"<tbody>{rows}</tbody></table>"
    )
