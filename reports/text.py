"""A rule's verdict and evidence as plain text: what JUnit, the pytest plugin and the terminal of
``engram-conformance run`` say of a rule, and the sentences they share (a known failure, a stale
baseline entry, a flaky failure), each written here once."""

from __future__ import annotations

from pathlib import PurePath

from .document import FailureRecord, ReportDocument, RuleRecord
from .sanitize import scrub, truncate

EVIDENCE_LIMIT = 10_000  # per expectation, observation and call
TERMINAL_LIMIT = 160  # the longest line ``terminal_line`` gives

KNOWN_FAILURE = "known failure (in the baseline)"
STALE = "stale baseline entry"
STALE_ADVICE = f"{STALE}: the rule no longer fails; remove it from the baseline"
FLAKY = "flaky: passed when checked again alone"
_BASELINE_NOTES = {"known_failure": KNOWN_FAILURE, "stale": STALE}


def notes(rule: RuleRecord) -> tuple[str, ...]:
    """What a reader should know beside the verdict: baseline status, flakiness."""
    found = [_BASELINE_NOTES[rule.baseline]] if rule.baseline else []
    if rule.flaky:
        found.append(flaky_note(rule))
    return tuple(found)


def flaky_note(rule: RuleRecord, folder: PurePath | None = None) -> str:
    """That the rule's failure did not recur alone, and the transcript of the re-check that
    passed (under ``folder``, the report folder, when given)."""
    if not rule.recheck_transcript:
        return FLAKY
    return f"{FLAKY} ({_path(rule.recheck_transcript, folder)})"


def known_failure(rule: RuleRecord) -> str:
    """Why a known failure passes the gate: "known failure (in the baseline): fail"."""
    return f"{KNOWN_FAILURE}: {rule.verdict.label}"


def rule_evidence(
    rule: RuleRecord, *, standalone: bool = False, folder: PurePath | None = None
) -> str:
    """The rule and what was found against it: its statement, the reason for its verdict, and
    per failure the check, seed, expectation, observation, calls, transcript and reproduction.

    ``standalone`` text (the pytest plugin's) also says the verdict and what it means for the
    gate (flaky, stale), which a JUnit report says in its own elements. Transcript paths are
    given under ``folder``, the report folder, when it is given.
    """
    verdict = f" {rule.verdict}" if standalone else ""
    lines = [f"{rule.id}{verdict} ({rule.level}, {rule.source}): {rule.statement}"]
    if standalone and rule.flaky:
        lines.append(flaky_note(rule, folder))
    if standalone and rule.baseline == "stale":
        lines.append(STALE_ADVICE)
    if rule.reason:
        lines.append(f"reason: {rule.reason}")
    lines.extend(_failure_evidence(failure, folder) for failure in rule.failures)
    return scrub("\n".join(lines))


def protocol_line(document: ReportDocument) -> str | None:
    """The MCP era the run spoke, and how it was chosen ("MCP era 2026-07-28 (auto: the newest
    the server speaks), protocol version 2026-07-28"); None when no connection was opened."""
    protocol = document.target.protocol
    if protocol is None:
        return None
    asked = (
        "auto: the newest the server speaks"
        if protocol.era_requested == "auto"
        else f"asked for {protocol.era_requested}"
    )
    line = f"MCP era {protocol.era} ({asked}), protocol version {protocol.protocol_version}"
    for era, said in (protocol.not_spoken or {}).items():
        line += f"; {era} not spoken: {said}"
    return line


def shard_line(document: ReportDocument) -> str | None:
    """Which part of a sharded run the report holds, and that the other rules were not run
    here ("shard 1 of 3: 70 of 215 rules; the other 145 belong to other shards and were not
    run here"), or how many shards' reports were merged into it; None for a run made whole."""
    run = document.run
    if run.merged_shards is not None:
        return f"merged from the reports of {run.merged_shards} shards"
    if run.shard is None:
        return None
    elsewhere = len(run.shard.elsewhere())
    return (
        f"shard {run.shard.index} of {run.shard.count}: {len(run.shard.plan) - elsewhere} of "
        f"{len(run.shard.plan)} rules; the other {elsewhere} belong to other shards and were "
        "not run here"
    )


def era_verdicts(rule: RuleRecord) -> str:
    """Each era's verdict of a rule run in both ("2025-11-25 pass, 2026-07-28 fail")."""
    return ", ".join(f"{era} {verdict}" for era, verdict in (rule.eras or {}).items())


def era_findings(document: ReportDocument) -> list[RuleRecord]:
    """The rules whose eras gave different verdicts (``--era both``), in the report's order."""
    return [rule for rule in document.rules if rule.era_finding]


def terminal_line(rule: RuleRecord) -> str:
    """The rule on one terminal line: verdict, id, baseline status, flakiness and why."""
    reason = rule.reason or (rule.failures[0].expected if rule.failures else "")
    mark = f" ({rule.baseline})" if rule.baseline else ""
    mark += f" ({FLAKY})" if rule.flaky else ""
    return f"  {rule.verdict.upper():5} {rule.id:11}{mark} {reason}"[:TERMINAL_LIMIT]


def _failure_evidence(failure: FailureRecord, folder: PurePath | None) -> str:
    seed = f" (seed {failure.seed})" if failure.seed is not None else ""
    lines = [
        "",
        f"check: {failure.check}{seed}",
        f"expected: {truncate(failure.expected, EVIDENCE_LIMIT)}",
        f"observed: {truncate(failure.observed, EVIDENCE_LIMIT)}",
    ]
    lines.extend(f"call: {truncate(call, EVIDENCE_LIMIT)}" for call in failure.call_lines())
    if failure.transcript:
        lines.append(f"transcript: {_path(failure.transcript, folder)}")
    if failure.reproduce:
        lines.append(f"reproduce: {failure.reproduce}")
    return "\n".join(lines)


def _path(relative: str, folder: PurePath | None) -> str:
    return relative if folder is None else str(folder / relative)
