"""Markdown for a pull-request comment or a CI step summary, rendered from the report document.

The first line is the conformance summary, as CI tools show a summary's first line. Failures
come next (fail, then error, then stale baseline entries), then warnings, then every rule in a
collapsed list. Failures, errors and warnings are grouped by cause (``causes``): one fault that
many rules read is one section naming its rules, with its evidence once. Text from the report is
escaped, evidence goes in fenced code blocks, and only the first ``DETAILED_LIMIT`` causes are
shown in full: GitHub refuses comments over 65,536 characters, and report.html has the rest.
"""

from __future__ import annotations

import re

from .causes import Cause, causes, tally
from .document import ErrorRecord, FailureRecord, ReportDocument, RuleRecord, Verdict
from .sanitize import scrub, shorten, truncate
from .text import era_findings, era_verdicts, notes, protocol_line, shard_line

BLOCK_LIMIT = 2_000
CALL_LIMIT = 400  # per call, so that a block shows every step of a shrunk sequence
DETAILED_LIMIT = 25
STATEMENT_LIMIT = 120

_SPECIAL = re.compile(r"([\\`*_\[\]<>&|~#])")
_BACKTICKS = re.compile("`+")


def inline(text: str) -> str:
    """Untrusted text as one line of Markdown that shows exactly that text."""
    return _SPECIAL.sub(r"\\\1", " ".join(scrub(text).split()))


def code_block(text: str, info: str = "text") -> str:
    """Evidence in a fenced block whose fence is longer than any run of backticks inside."""
    body = scrub(truncate(text, BLOCK_LIMIT))
    longest = max((len(run) for run in _BACKTICKS.findall(body)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}{info}\n{body}\n{fence}"


def render(document: ReportDocument) -> str:
    """The Markdown summary of ``document``."""
    parts = [scrub(document.conformance.summary), _counts_table(document), _run_line(document)]
    parts.extend(_era_findings(document))
    detailed_left = DETAILED_LIMIT
    for verdict in (Verdict.FAIL, Verdict.ERROR, None, Verdict.WARN):
        if verdict is None:
            parts.extend(_stale(document))
            continue
        found = causes(document, verdict)
        if not found:
            continue
        parts.append(f"## {_TITLES[verdict]} ({tally(found)})")
        for cause in found:
            parts.append(_cause_section(cause) if detailed_left > 0 else _cause_line(cause))
            detailed_left -= 1
    if document.target.stderr_tail:
        tail = code_block(document.target.stderr_tail)
        parts.append(
            f"<details><summary>Server stderr (last lines)</summary>\n\n{tail}\n\n</details>"
        )
    parts.append(_all_rules(document))
    return "\n\n".join(parts) + "\n"


_TITLES = {Verdict.FAIL: "Failures", Verdict.ERROR: "Errors", Verdict.WARN: "Warnings"}


def _era_findings(document: ReportDocument) -> list[str]:
    """The rules the server keeps in one MCP era and breaks in the other (``--era both``)."""
    found = era_findings(document)
    if not found:
        return []
    lines = [f"- **{rule.id}** ({era_verdicts(rule)}): {inline(rule.statement)}" for rule in found]
    return [f"## Era findings ({len(found)})", "\n".join(lines)]


def _stale(document: ReportDocument) -> list[str]:
    stale = [rule for rule in document.rules if rule.baseline == "stale"]
    if not stale:
        return []
    advice = "Listed in the baseline but no longer failing: remove them from the baseline."
    return [f"## Stale baseline entries ({len(stale)})", advice, *map(_rule_line, stale)]


def _counts_table(document: ReportDocument) -> str:
    header = " | ".join(verdict.label for verdict in document.counts)
    counts = " | ".join(str(count) for count in document.counts.values())
    return f"| {header} |\n|{'---:|' * len(document.counts)}\n| {counts} |"


def _run_line(document: ReportDocument) -> str:
    target, run, spec = document.target, document.run, document.spec
    reached = target.transport
    if target.descriptor:
        reached += f", descriptor {inline(target.descriptor)}"
    server = "did not initialize"
    if target.server_info:
        info = target.server_info
        server = f"{inline(info.name)} {inline(info.version)}, MCP {inline(info.protocol_version)}"
    era = protocol_line(document)
    if era is not None:
        server += f" · {era}"
    return (
        f"**Target** {inline(target.name)} ({reached}), server {server} · "
        f"**contract** {spec.contract} {spec.contract_version}, "
        f"spec {spec.spec_version} `{spec.digest}` · "
        f"**run** {run.profile} profile{_subset(document)}{_shard(document)}, seed {run.seed}, "
        f"{run.duration_s:.1f} s{_timing(document)}, "
        f"exit code {document.exit_code}"
    )


def _timing(document: ReportDocument) -> str:
    """Where the run's checks spent their time, when it was measured."""
    timing = document.run.timing
    if timing is None:
        return ""
    return f" (checks {timing.time_s:.1f} s: {timing.calls} calls, {timing.waited_s:.1f} s waiting)"


def _shard(document: ReportDocument) -> str:
    """Which part of a sharded run the report holds, or that it merges the parts."""
    line = shard_line(document)
    return f" ({line})" if line else ""


def _subset(document: ReportDocument) -> str:
    """The rules the run was limited to (``--only``), if it was."""
    only = document.run.only
    return f" (only {', '.join(inline(rule) for rule in only)})" if only else ""


def _headline(rule: RuleRecord) -> str:
    return " · ".join([rule.id, rule.verdict.label, rule.level, *notes(rule)])


def _rule_line(rule: RuleRecord) -> str:
    return f"- **{_headline(rule)}**: {inline(shorten(rule.statement, STATEMENT_LIMIT))}"


def _cause_line(cause: Cause) -> str:
    rules = ", ".join(rule.id for rule in cause.rules)
    headline = inline(shorten(cause.headline, STATEMENT_LIMIT))
    return f"- **{cause.verdict.label}** ({rules}): {headline}"


def _cause_section(cause: Cause) -> str:
    parts = [
        f"### {cause.verdict.label}: {inline(shorten(cause.headline, STATEMENT_LIMIT))}",
        "\n".join(
            f"- **{_headline(rule)}** ({inline(rule.source)}): {inline(rule.statement)}"
            for rule in cause.rules
        ),
        f"Check: `{cause.check or 'none'}`",
    ]
    if cause.rules[0].reason:
        parts.append(f"Reason: {inline(cause.rules[0].reason)}")
    if cause.evidence is not None:
        parts.append(_failure(cause.evidence))
    elif cause.stopped is not None:
        parts.extend(_replaying(cause.stopped, "Call under way"))
    return "\n\n".join(parts)


def _failure(failure: FailureRecord) -> str:
    seed = f" (seed {failure.seed})" if failure.seed is not None else ""
    parts = [
        f"Expected{seed}:\n\n{code_block(failure.expected)}",
        f"Observed:\n\n{code_block(failure.observed)}",
        *_replaying(failure, f"Calls ({len(failure.calls)})"),
    ]
    return "\n\n".join(parts)


def _replaying(record: FailureRecord | ErrorRecord, calls_title: str) -> list[str]:
    """How to see ``record`` again: the command, the calls as sent and the transcript."""
    parts = []
    if record.reproduce:
        parts.append(f"Reproduce:\n\n{code_block(record.reproduce, 'sh')}")
    if record.calls:
        calls = "\n".join(truncate(line, CALL_LIMIT) for line in record.call_lines())
        parts.append(f"{calls_title}:\n\n{code_block(calls, 'json')}")
    if record.transcript:
        parts.append(f"Transcript: {inline(record.transcript)}")
    return parts


def _all_rules(document: ReportDocument) -> str:
    rows = "\n".join(
        f"| {rule.id} | {rule.level} | {rule.verdict.label} | "
        f"{inline(shorten(rule.statement, STATEMENT_LIMIT))} |"
        for rule in document.rules
    )
    table = f"| Rule | Level | Verdict | Statement |\n|---|---|---|---|\n{rows}" if rows else ""
    title = "All rules" if document.run.shard is None else "Rules of this shard"
    shown = f"<details><summary>{title} ({len(document.rules)})</summary>\n\n{table}\n\n</details>"
    return shown + _elsewhere(document)


def _elsewhere(document: ReportDocument) -> str:
    """The rules of the other shards, which this shard's report does not judge."""
    shard = document.run.shard
    if shard is None or not shard.elsewhere():
        return ""
    by_shard: dict[int, list[str]] = {}
    for rule in shard.elsewhere():
        by_shard.setdefault(shard.plan[rule], []).append(rule)
    lines = "\n".join(
        f"- shard {index}: {', '.join(rules)}" for index, rules in sorted(by_shard.items())
    )
    summary = f"Not run here: the rules of other shards ({len(shard.elsewhere())})"
    return f"\n\n<details><summary>{summary}</summary>\n\n{lines}\n\n</details>"
