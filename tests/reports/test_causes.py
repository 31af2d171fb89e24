"""Problems grouped by cause: one fault that several rules read is one group."""

from __future__ import annotations

import copy

from engram_conformance.reports import ReportDocument, Verdict
from engram_conformance.reports.causes import causes

from .documents import small


def _document(extra: list[dict]) -> ReportDocument:
    data = copy.deepcopy(small())
    data["rules"] += extra
    for rule in extra:
        data["counts"][rule["verdict"]] += 1
    return ReportDocument.from_dict(data)


def _rule(rule_id: str, verdict: str, *, reason: str | None, observed: str | None = None) -> dict:
    failures = []
    if observed is not None:
        failure = {"check": "one_check", "expected": "an answer\nin two lines", "seed": None}
        failure |= {"observed": observed, "calls": [], "transcript": None, "reproduce": None}
        failures.append(failure)
    return {
        "id": rule_id,
        "family": rule_id.split("-")[0],
        "level": "must",
        "statement": "s",
        "source": "seed",
        "verdict": verdict,
        "checks": ["one_check"],
        "reason": reason,
        "baseline": None,
        "flaky": False,
        "recheck": None,
        "recheck_transcript": None,
        "failures": failures,
    }


def test_same_check_and_reason_make_one_cause() -> None:
    document = _document(
        [
            _rule("HANG-001", "error", reason="no answer within 10.0 s"),
            _rule("HANG-002", "error", reason="no answer within 10.0 s"),
            _rule("HANG-003", "error", reason="the server exited"),
        ]
    )
    found = causes(document, Verdict.ERROR)
    assert [[rule.id for rule in cause.rules] for cause in found] == [
        ["IDEM-003"],
        ["HANG-001", "HANG-002"],
        ["HANG-003"],
    ]
    assert found[1].headline == "no answer within 10.0 s" and found[1].evidence is None


def test_failures_group_by_what_was_observed_and_read_as_what_was_expected() -> None:
    document = _document(
        [
            _rule("ODD-001", "fail", reason=None, observed="null\nmore"),
            _rule("ODD-002", "fail", reason=None, observed="null"),
            _rule("ODD-003", "fail", reason=None, observed="[]"),
        ]
    )
    found = causes(document, Verdict.FAIL)
    assert [[rule.id for rule in cause.rules] for cause in found][1:] == [
        ["ODD-001", "ODD-002"],
        ["ODD-003"],
    ]
    assert found[1].headline == "expected an answer"
    assert found[1].anchor == "cause-ODD-001"


def test_known_failures_come_after_new_ones() -> None:
    known = _rule("OLD-001", "fail", reason=None, observed="x") | {"baseline": "known_failure"}
    document = _document([known, _rule("NEW-001", "fail", reason=None, observed="y")])
    assert [cause.rules[0].id for cause in causes(document, Verdict.FAIL)][-1] == "OLD-001"


def test_a_cause_carries_its_checks_own_time_not_its_rules() -> None:
    """A rule's time is that of every check deciding it; a cause names one check."""
    data = copy.deepcopy(small())
    (rule,) = [rule for rule in data["rules"] if rule["id"] == "ENV-002"]
    rule["timing"] = {"time_s": 9.0, "calls": 99, "waited_s": 0}  # decided by more checks
    (cause,) = causes(ReportDocument.from_dict(data), Verdict.FAIL)
    assert cause.check == "envelope_has_contract_shape"
    assert cause.timing is not None and (cause.timing.time_s, cause.timing.calls) == (0.5, 7)
    del data["run"]["timing"]
    (untimed,) = causes(ReportDocument.from_dict(data), Verdict.FAIL)
    assert untimed.timing is None
