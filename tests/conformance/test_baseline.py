"""Baseline semantics: a listed failure passes the gate, an unlisted one fails it, a listed rule
that now passes fails it as stale; a bad baseline file is refused."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from engram_conformance.conformance.baseline import Baseline, BaselineError
from engram_conformance.reports import RuleRecord, Verdict

RULES = {"ENV-001", "ENV-006"}


def baseline(tmp_path: Path, content: object) -> Baseline:
    path = tmp_path / "known.json"
    path.write_text(json.dumps(content), encoding="utf-8")
    return Baseline.load(path, RULES)


def gate_fails(verdict: str, level: str, mark: str | None) -> bool:
    """Whether a rule of this verdict, level and baseline mark fails the gate."""
    rule = RuleRecord(
        id="ENV-006",
        family="ENV",
        level=level,
        statement="",
        source="",
        verdict=Verdict(verdict),
        checks=(),
        reason=None,
        baseline=mark,
        flaky=False,
        failures=(),
    )
    return rule.fails_gate


def test_listed_unlisted_and_stale(tmp_path: Path) -> None:
    known = baseline(tmp_path, {"known_failures": {"ENV-006": "vendor issue 12"}})
    assert known.mark("ENV-006", "warn") == "known_failure"
    assert not gate_fails("fail", "must", known.mark("ENV-006", "fail"))
    assert known.mark("ENV-006", "pass") == "stale"
    assert gate_fails("pass", "profile", "stale")
    assert known.mark("ENV-006", "not_applicable") is None
    assert known.mark("ENV-001", "fail") is None
    assert gate_fails("fail", "must", None)


def test_an_undecided_must_rule_fails_the_gate() -> None:
    assert gate_fails("error", "must", None)
    assert not gate_fails("error", "profile", None)
    assert not gate_fails("warn", "profile", None)


@pytest.mark.parametrize(
    ("content", "problem"),
    [
        (["ENV-001"], "expected"),
        ({"known_failures": {"NOPE-001": "x"}}, "names rules the spec does not have"),
        ({"known_failures": {"ENV-001": 3}}, "expected"),
    ],
)
def test_a_bad_baseline_is_refused(tmp_path: Path, content: object, problem: str) -> None:
    with pytest.raises(BaselineError, match=problem):
        baseline(tmp_path, content)


def test_a_baseline_of_another_contract_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "baseline.json"
    path.write_text('{"contract": "mem", "known_failures": {"ENV-001": "known"}}')
    with pytest.raises(BaselineError, match="baseline of the 'mem' contract; this run tests"):
        Baseline.load(path, {"ENV-001"}, "engram-memory")
    assert Baseline.load(path, {"ENV-001"}).known_failures == {"ENV-001": "known"}
    path.write_text('{"contract": "engram-memory", "known_failures": {"ENV-001": "known"}}')
    assert Baseline.load(path, {"ENV-001"}, "engram-memory").known_failures == {"ENV-001": "known"}
