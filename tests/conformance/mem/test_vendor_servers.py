"""The kit judges servers that keep seed 003's protocol in their own dialect (``vendors.py``)
without a ``fail`` or an ``error``: what differs from upstream reads ``warn`` on the rules that
are not the seed's, or ``not_applicable`` where the server leaves a rule nothing to judge, each
for its own reason.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from engram_conformance.conformance.mem.plugin import CONTRACT
from engram_conformance.conformance.mem.settings import Policy
from engram_conformance.conformance.runner import RunResult
from engram_conformance.reference_impl.mem.server import Handlers

from . import vendors
from .inprocess import run_against

#: why DISC-010 is not applicable to a server whose tools publish no outputSchema
NO_OUTPUT_SCHEMA = "no listed tool publishes an outputSchema"
#: reasons of ``not_applicable`` every in-process quick run has, whatever the server
ANY_SERVER = {
    "DEDUP-005": "the descriptor gives no dedupe window",
    "DEL-005": "not testable from outside a server",
    "DEL-008": "the harness does not stop it",
    "JUDGE-003": "not testable from outside a server",
    "PROJ-003": "the current project is configured",
    "SAVE-008": "restarts only a server it starts over stdio",
    "SAVE-013": "several server processes only of a server it starts over stdio",
}
NOT_LISTED = "the target does not claim mem_get_observation"
SCOPE_UNPUBLISHED = "mem_context's input schema publishes no argument for 'scope'"


def _run(tmp_path: Path, vendor: type[Handlers], policy: Policy | None = None) -> RunResult:
    return run_against(tmp_path, wiring_mutant=vendor, target_policy=policy, profile="quick")


def _by_verdict(result: RunResult, verdict: str) -> dict[str, str]:
    """Rule -> reason, of the rules the run read ``verdict``."""
    return {
        rule: found.reason or ""
        for rule, found in result.verdicts.items()
        if found.verdict == verdict
    }


def _assert_reasons(read: dict[str, str], expected: dict[str, str]) -> None:
    assert sorted(read) == sorted(expected), read
    assert {rule: text for rule, text in expected.items() if text not in read[rule]} == {}, read


def _assert_no_false_alarm(result: RunResult) -> None:
    alarms = {
        rule: (found.verdict, found.reason)
        for rule, found in result.verdicts.items()
        if found.verdict in ("fail", "error")
    }
    assert alarms == {}


@pytest.fixture(scope="module")
def structured(tmp_path_factory: pytest.TempPathFactory) -> RunResult:
    return _run(tmp_path_factory.mktemp("structured"), vendors.StructuredAnswers)


@pytest.fixture(scope="module")
def own_names(tmp_path_factory: pytest.TempPathFactory) -> RunResult:
    policy = Policy(answers=vendors.ANSWERS)
    return _run(tmp_path_factory.mktemp("own-names"), vendors.OwnNamesAndIds, policy)


@pytest.fixture(scope="module")
def seed_only(tmp_path_factory: pytest.TempPathFactory) -> RunResult:
    return _run(tmp_path_factory.mktemp("seed-only"), vendors.SeedToolsOnly)


def test_answers_given_as_structured_content_only_are_read(structured: RunResult) -> None:
    _assert_no_false_alarm(structured)
    assert _by_verdict(structured, "warn") == {}
    structured_only = {"TOPIC-005": "judges the answer's text, and it has none"}
    _assert_reasons(_by_verdict(structured, "not_applicable"), ANY_SERVER | structured_only)
    # its tools publish an outputSchema, and every structured answer keeps it
    assert structured.verdicts["DISC-010"].verdict == "pass"


def test_own_argument_names_generated_session_ids_and_declared_texts_are_followed(
    own_names: RunResult,
) -> None:
    _assert_no_false_alarm(own_names)
    warned = own_names.ledger.evidence
    # upstream's and the reference's promises the vendor does not keep, each its own
    assert sorted(_by_verdict(own_names, "warn")) == [
        "DEL-004",
        "DISC-004",
        "JUDGE-004",
        "SAVE-011",
    ]
    assert "a boolean hard" in warned["DEL-004"].failures[0].expected
    assert "suggested key" in warned["SAVE-011"].failures[0].expected
    _assert_reasons(
        _by_verdict(own_names, "not_applicable"),
        ANY_SERVER
        | dict.fromkeys(("SCOPE-005", "SCOPE-006"), SCOPE_UNPUBLISHED)
        | {"JUDGE-005": "answers none", "DISC-010": NO_OUTPUT_SCHEMA},
    )


def test_the_seed_s_twelve_tools_alone_leave_only_the_other_tools_rules_undecided(
    seed_only: RunResult,
) -> None:
    _assert_no_false_alarm(seed_only)
    assert set(seed_only.tools_claimed) == set(CONTRACT.load_spec().seed_tools)
    assert sorted(_by_verdict(seed_only, "warn")) == ["DISC-004"]
    inapplicable = _by_verdict(seed_only, "not_applicable")
    others = {rule: why for rule, why in inapplicable.items() if rule not in ANY_SERVER}
    assert others, inapplicable
    assert {
        rule: why
        for rule, why in others.items()
        if NOT_LISTED not in why
        and "which the server does not list" not in why
        # its search answers give no record as data to read a memory's fields from instead
        and "the server lists no mem_get_observation" not in why
        and NO_OUTPUT_SCHEMA not in why
    } == {}
    passed = _by_verdict(seed_only, "pass")
    for rule in ("DISC-002", "DISC-003", "DISC-005", "DISC-008", "ERR-001", "ERR-003"):
        assert rule in passed, seed_only.verdicts[rule]


def test_a_server_that_captures_only_in_a_named_session_is_given_its_session(
    tmp_path: Path,
) -> None:
    """Where a schema requires a session_id, the kit sends the session the server started for
    the project the call is about (or the check's one project's)."""
    required = _run(tmp_path, vendors.SessionsRequired)
    _assert_no_false_alarm(required)
    # its schemas (a session required, none taken) widen no upstream version line
    assert sorted(_by_verdict(required, "warn")) == ["DISC-004"]
    passive = {rule: found.verdict for rule, found in required.verdicts.items() if "PASS" in rule}
    assert passive == dict.fromkeys(
        ("PASS-001", "PASS-002", "PASS-003", "PASS-004", "PASS-005", "PASS-006"), "pass"
    )
