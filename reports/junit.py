"""JUnit XML rendered from the report document: one testsuite per family, one testcase per rule.

A testcase is named by its rule id alone, so that a CI's history of it survives an edit of the
rule's statement; the statement, level and verdict are the testcase's properties (a warning is
told apart from a pass there, as ``verdict`` ``warn``); its ``time`` is that of the checks that
decided it. JUnit readers go red on exactly what
fails the gate and on what could not be decided:
- a failure not in the baseline, and a stale baseline entry: ``<failure>``;
- error: ``<error>``;
- a known failure (fail or error listed in the baseline): ``<skipped>``, as pytest renders xfail;
- not_applicable: ``<skipped>`` with its reason;
- warn: a pass, with the warning in ``<system-out>``.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET

from . import text
from .document import ReportDocument, RuleRecord, Verdict
from .sanitize import scrub, shorten

MESSAGE_LIMIT = 200

_DECLARATION = '<?xml version="1.0" encoding="UTF-8"?>\n'
#: Outcome element -> the attribute that counts it.
_TALLIES = {"failure": "failures", "error": "errors", "skipped": "skipped"}


def render(document: ReportDocument) -> str:
    """The JUnit XML of ``document``."""
    root = ET.Element("testsuites", name="engram-conformance")
    for family, rules in document.by_family().items():
        suite = ET.SubElement(root, "testsuite", name=family)
        _run_properties(suite, document)
        for rule in rules:
            _testcase(suite, rule, document.spec.contract)
        _count(suite)
    _count(root)
    root.set("time", f"{document.run.duration_s:.3f}")
    ET.indent(root)
    return _DECLARATION + ET.tostring(root, encoding="unicode") + "\n"


def _run_properties(suite: ET.Element, document: ReportDocument) -> None:
    """The MCP era of the run and its shard, as properties of each testsuite (JUnit has none
    for the whole). A shard's testsuites hold its rules alone: the other shards' reports hold
    the others, so that the JUnit files of every shard of a run name each rule once."""
    named: list[tuple[str, str]] = []
    protocol = document.target.protocol
    if protocol is not None:
        named += [
            ("mcp_era", protocol.era),
            ("mcp_era_requested", protocol.era_requested),
            ("mcp_protocol_version", protocol.protocol_version),
        ]
    shard = document.run.shard
    if shard is not None:
        named += [("shard", f"{shard.index}/{shard.count}")]
        named += [("rules_not_run_here", str(len(shard.elsewhere())))]
    if document.run.merged_shards is not None:
        named += [("merged_shards", str(document.run.merged_shards))]
    if not named:
        return
    properties = ET.SubElement(suite, "properties")
    for name, value in named:
        ET.SubElement(properties, "property", name=name, value=value)


def _count(element: ET.Element) -> None:
    """Set the tests, failures, errors and skipped attributes from the testcases inside."""
    cases = list(element.iter("testcase"))
    element.set("tests", str(len(cases)))
    for outcome, attribute in _TALLIES.items():
        element.set(attribute, str(sum(case.find(outcome) is not None for case in cases)))


def _testcase(suite: ET.Element, rule: RuleRecord, contract: str) -> None:
    case = ET.SubElement(suite, "testcase", classname=f"{contract}.{rule.family}", name=rule.id)
    if rule.timing is not None:
        case.set("time", f"{rule.timing.time_s:.3f}")
    properties = ET.SubElement(case, "properties")
    for name, value in (("verdict", rule.verdict), ("level", rule.level)):
        ET.SubElement(properties, "property", name=name, value=value)
    ET.SubElement(properties, "property", name="statement", value=scrub(rule.statement))
    for era, verdict in (rule.eras or {}).items():  # --era both: each era's verdict
        ET.SubElement(properties, "property", name=f"verdict_{era}", value=verdict)
    details = text.rule_evidence(rule)
    outcome = _outcome(rule)
    if outcome is not None:
        tag, message = outcome
        element = ET.SubElement(case, tag, message=scrub(shorten(message, MESSAGE_LIMIT)))
        if tag != "skipped":
            element.text = details
    notes = []
    if rule.verdict == Verdict.WARN:
        notes.append(f"warning: this {rule.level} rule is broken")
    if rule.flaky:
        notes.append(text.flaky_note(rule))
    if rule.failures and (outcome is None or outcome[0] == "skipped"):
        notes.append(details)
    if notes:
        ET.SubElement(case, "system-out").text = "\n".join(notes)


def _outcome(rule: RuleRecord) -> tuple[str, str] | None:
    """The outcome element's tag and message, or None for a plain pass."""
    if rule.baseline == "known_failure" and rule.verdict in (Verdict.FAIL, Verdict.ERROR):
        return "skipped", text.known_failure(rule)
    if rule.verdict == Verdict.ERROR:
        return "error", rule.reason or ""
    if rule.fails_gate:
        return "failure", _failure_message(rule)
    if rule.verdict == Verdict.NOT_APPLICABLE:
        return "skipped", rule.reason or ""
    return None


def _failure_message(rule: RuleRecord) -> str:
    if rule.baseline == "stale":
        return text.STALE_ADVICE
    if not rule.failures:
        return f"{rule.id} fails"
    first = rule.failures[0]
    return f"{first.check}: expected {first.expected}; observed {first.observed}"
