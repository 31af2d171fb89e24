"""SARIF 2.1.0 rendered from the report document, so that failures show as code-scanning alerts.

One run, whose driver lists every rule of the report (id, statement, help, level and family),
and one result per rule the server does not pass:

- ``fail``: level ``error`` (``warning`` when flaky, as a flaky failure does not fail the gate);
- ``warn``: level ``warning``;
- ``error`` (the harness could not decide): level ``error`` on a ``must`` rule, which fails the
  gate, and ``note`` on a ``should`` or ``profile`` rule, which does not;
- pass, not_applicable and stale baseline entries: no result (a stale entry is a fault of the
  baseline, not of the server; the exit code, summary and JUnit report it).

A result whose rule the baseline lists as a known failure keeps its level and carries an
external, accepted suppression. Its message is what the first failing check expected and
observed (or why the rule could not be decided).

Code scanning places every alert at a line of a file, but a server's failures are in no file:
every result points at line 1 of the target descriptor, the file in the vendor's repository
that names the server (``target.descriptor``, a relative URI when the path was given relative,
as from the repository root in CI), and at the contract's rules when the run had no
descriptor: the file its plug-in names (``spec.rules_file``), else ``spec/<contract>/rules.json``
(the contract's name with ``_`` for ``-``, as the kit lays out its contracts).
"""

from __future__ import annotations

import json
from pathlib import PurePath
from typing import Any
from urllib.parse import quote

from .document import FailureRecord, ReportDocument, RuleRecord, Verdict
from .sanitize import scrub, shorten, truncate

SCHEMA_URI = (
    "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
)
TOOL_NAME = "engram-conformance"
SHORT_LIMIT = 200
EVIDENCE_LIMIT = 1_000
#: The report's levels -> the SARIF level of a broken rule.
DEFAULT_LEVELS = {"must": "error", "should": "warning", "profile": "warning"}


def render(document: ReportDocument) -> str:
    """The SARIF log of ``document``, as JSON text."""
    return json.dumps(sarif_log(document), ensure_ascii=False, indent=2) + "\n"


def sarif_log(document: ReportDocument) -> dict[str, Any]:
    """The SARIF log of ``document``, as JSON data."""
    location = _location(document.target.descriptor or _rules_file(document))
    results = [
        _result(rule, index, level, location)
        for index, rule in enumerate(document.rules)
        if (level := result_level(rule)) is not None
    ]
    run = {
        "tool": {
            "driver": {
                "name": TOOL_NAME,
                "version": scrub(document.kit.version),
                "rules": [_descriptor(rule) for rule in document.rules],
            }
        },
        "invocations": [
            {
                "executionSuccessful": document.exit_code != 2,
                "exitCode": document.exit_code,
                "commandLine": scrub(document.run.command),
                "startTimeUtc": document.run.started_at,
            }
        ],
        "results": results,
        "properties": {
            "contract": document.spec.contract,
            "summary": scrub(document.conformance.summary),
            "target": scrub(document.target.name),
            "profile": document.run.profile,
            "seed": document.run.seed,
            **_shard_properties(document),
        },
    }
    return {"$schema": SCHEMA_URI, "version": "2.1.0", "runs": [run]}


def _shard_properties(document: ReportDocument) -> dict[str, Any]:
    """A shard's run names its shard and the rules it did not run (they are neither results
    nor rules of its log); a merged run, how many shards it was merged from."""
    shard, merged = document.run.shard, document.run.merged_shards
    if shard is not None:
        return {"shard": f"{shard.index}/{shard.count}", "notRunHere": list(shard.elsewhere())}
    return {} if merged is None else {"mergedShards": merged}


def result_level(rule: RuleRecord) -> str | None:
    """The SARIF level of the rule's result, or None when the rule gets no result."""
    if rule.verdict == Verdict.FAIL:
        return "warning" if rule.flaky else "error"
    if rule.verdict == Verdict.WARN:
        return "warning"
    if rule.verdict == Verdict.ERROR:
        return "error" if rule.level == "must" else "note"
    return None


def _descriptor(rule: RuleRecord) -> dict[str, Any]:
    statement = scrub(rule.statement)
    source = scrub(rule.source)
    checks = ", ".join(rule.checks) or "none"
    help_text = (
        f"{statement}\n\nLevel: {rule.level} ({_level_meaning(rule.level)}). "
        f"Source: {source}. Decided by: {checks}."
    )
    return {
        "id": rule.id,
        "shortDescription": {"text": scrub(shorten(rule.statement, SHORT_LIMIT))},
        "fullDescription": {"text": statement},
        "help": {"text": help_text},
        "defaultConfiguration": {"level": DEFAULT_LEVELS[rule.level]},
        "properties": {
            "level": rule.level,
            "family": rule.family,
            "source": source,
            "tags": ["engram-conformance", rule.family, rule.level],
        },
    }


def _level_meaning(level: str) -> str:
    if level == "must":
        return "the contract requires it; a failure fails the gate"
    return "a recommendation or a decision of the design; a failure is a warning"


def _result(rule: RuleRecord, index: int, level: str, location: dict[str, Any]) -> dict[str, Any]:
    result: dict[str, Any] = {
        "ruleId": rule.id,
        "ruleIndex": index,
        "level": level,
        "message": {"text": _message(rule)},
        "locations": [location],
        "properties": _evidence(rule),
    }
    if rule.baseline == "known_failure":
        result["suppressions"] = [
            {
                "kind": "external",
                "status": "accepted",
                "justification": "listed in the baseline as a known failure",
            }
        ]
    return result


def _message(rule: RuleRecord) -> str:
    heading = f"{rule.id} {rule.verdict.label} ({rule.level})"
    if rule.flaky:
        heading += ", flaky: a second try disagreed"
    if rule.baseline == "known_failure":
        heading += ", a known failure (in the baseline)"
    if rule.verdict == Verdict.ERROR:
        gate = "; an error on a must rule fails the gate" if rule.level == "must" else ""
        return scrub(f"{heading}: could not be decided: {rule.reason or 'no reason given'}{gate}")
    if not rule.failures:
        return scrub(f"{heading}: {rule.statement}")
    first = rule.failures[0]
    lines = [
        f"{heading}: {first.check} expected {truncate(first.expected, EVIDENCE_LIMIT)}",
        f"observed: {truncate(first.observed, EVIDENCE_LIMIT)}",
    ]
    if len(rule.failures) > 1:
        lines.append(f"({len(rule.failures) - 1} more failing checks in report.json)")
    if first.reproduce:
        lines.append(f"reproduce: {first.reproduce}")
    return scrub("\n".join(lines))


def _evidence(rule: RuleRecord) -> dict[str, Any]:
    evidence: dict[str, Any] = {
        "verdict": rule.verdict.value,
        "checks": list(rule.checks),
        "baseline": rule.baseline,
        "flaky": rule.flaky,
    }
    if rule.failures:
        first: FailureRecord = rule.failures[0]
        evidence["seed"] = first.seed
        evidence["transcript"] = scrub(first.transcript) if first.transcript else None
    return evidence


def _rules_file(document: ReportDocument) -> str:
    spec = document.spec
    return spec.rules_file or f"spec/{spec.contract.replace('-', '_')}/rules.json"


def _location(path: str) -> dict[str, Any]:
    """Line 1 of the file at ``path``."""
    uri = _file_uri(path)
    return {"physicalLocation": {"artifactLocation": {"uri": uri}, "region": {"startLine": 1}}}


def _file_uri(path: str) -> str:
    """``path`` as a URI reference: relative stays relative (to the repository root, as code
    scanning reads it), absolute becomes a ``file:`` URI. Every unsafe character is escaped."""
    pure = PurePath(path)
    posix = quote(pure.as_posix(), safe="/", errors="surrogatepass")
    if not pure.is_absolute():
        return posix
    return "file://" + (posix if posix.startswith("/") else "/" + posix)
