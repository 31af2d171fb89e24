"""JUnit XML: a suite per family, a case per rule, red where the gate or the harness is."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from typing import Any

from engram_conformance.reports import ReportDocument, Verdict, junit
from hypothesis import given

from .documents import SETTINGS, documents, small
from .snapshot import assert_snapshot


def _expected_outcome(rule: Any) -> str | None:
    if rule.baseline == "known_failure" and rule.verdict in (Verdict.FAIL, Verdict.ERROR):
        return "skipped"
    if rule.verdict == Verdict.ERROR:
        return "error"  # an undecided rule, whether or not it fails the gate
    if rule.fails_gate:
        return "failure"
    return {Verdict.NOT_APPLICABLE: "skipped"}.get(rule.verdict)


@SETTINGS
@given(documents())
def test_junit_parses_with_one_testcase_per_rule_and_the_right_outcomes(data: dict) -> None:
    document = ReportDocument.from_dict(data)
    text = junit.render(document)
    root = ET.fromstring(text.encode("utf-8"))
    assert [suite.get("name") for suite in root] == list(document.by_family())
    cases = list(root.iter("testcase"))
    assert len(cases) == len(document.rules) == int(root.get("tests"))
    grouped = [rule for rules in document.by_family().values() for rule in rules]
    for case, rule in zip(cases, grouped, strict=True):
        assert case.get("classname") == f"engram-memory.{rule.family}"
        assert case.get("name") == rule.id  # stable: an edited statement keeps the history
        properties = {item.get("name"): item.get("value") for item in case.find("properties")}
        assert (properties["verdict"], properties["level"]) == (rule.verdict, rule.level)
        assert properties["statement"]
        outcomes = [child.tag for child in case if child.tag not in ("system-out", "properties")]
        expected = _expected_outcome(rule)
        assert outcomes == ([expected] if expected else [])
    for tag, attribute in (("failure", "failures"), ("error", "errors"), ("skipped", "skipped")):
        assert int(root.get(attribute)) == sum(case.find(tag) is not None for case in cases)


def test_hostile_observed_text_stays_well_formed_and_readable() -> None:
    data = small()
    data["rules"][1]["failures"][0]["observed"] = "a\x00b\ud800c]]><x>&\x1b"
    root = ET.fromstring(junit.render(ReportDocument.from_dict(data)).encode("utf-8"))
    failure = root.find(".//testcase/failure")
    assert "a\\x00b\\ud800c]]><x>&\\x1b" in failure.text
    assert "a\\x00b\\ud800c]]><x>&\\x1b" in failure.get("message")


def test_warnings_pass_with_a_note_in_system_out() -> None:
    root = ET.fromstring(junit.render(ReportDocument.from_dict(small())))
    [case] = [c for c in root.iter("testcase") if c.get("name") == "SEARCH-004"]
    assert [child.tag for child in case] == ["properties", "system-out"]
    assert case.find("properties/property[@name='verdict']").get("value") == "warn"
    assert case.find("system-out").text.startswith("warning: this should rule is broken")


def test_junit_of_the_small_document() -> None:
    assert_snapshot(junit.render(ReportDocument.from_dict(small())), "small.junit.xml")


def test_a_rule_measured_has_the_time_of_its_checks() -> None:
    root = ET.fromstring(junit.render(ReportDocument.from_dict(small())))
    times = {case.get("name"): case.get("time") for case in root.iter("testcase")}
    assert times["ENV-002"] == "0.500" and times["ENV-001"] is None  # not measured: no time
